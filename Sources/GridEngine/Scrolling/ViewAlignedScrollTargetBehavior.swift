/// Rests with an item's top edge at the container's top (F6), as SwiftUI's
/// `.viewAligned(limitBehavior:)`. Only items are candidates, never headers (F7).
///
///     let behavior = ViewAlignedScrollTargetBehavior(limitBehavior: .always)
///     let offset = behavior.resolve(proposed, context: context)
///
/// Complexity: O(log n + items within two container heights of the target).
public struct ViewAlignedScrollTargetBehavior: ScrollTargetBehavior, Hashable, Sendable {
    /// Whether one fling may travel more than one page (F8).
    public enum LimitBehavior: UInt8, Hashable, Sendable {
        /// Limited when the container is compact (narrower than `compactWidth`), as on
        /// an iPhone; free otherwise.
        case automatic
        /// At most one container height from where the fling started.
        case always
        /// As far as the fling goes.
        case never
    }

    public var limitBehavior: LimitBehavior
    /// The width below which `.automatic` limits.
    public var compactWidth: Double

    public init(limitBehavior: LimitBehavior = .automatic, compactWidth: Double = 600) {
        self.limitBehavior = limitBehavior; self.compactWidth = compactWidth
    }

    /// Whether the fling is limited to one page in this context.
    public func isLimited(_ context: ScrollTargetContext) -> Bool {
        switch limitBehavior {
        case .always: return true
        case .never: return false
        case .automatic: return context.containerSize.width < compactWidth
        }
    }

    public func updateTarget(_ target: inout ScrollTarget, context: ScrollTargetContext) {
        let page = context.containerSize.height
        var y = target.rect.origin.y
        if isLimited(context) && page > 0 {
            y = min(max(y, context.startOffset.y - page), context.startOffset.y + page)
        }
        let span = max(page, 1)
        var best = y, bestDistance = Double.infinity
        for f in context.itemFrames(in: Rect(x: 0, y: y - span, width: max(context.contentSize.width, 1), height: 2 * span)) {
            var d = f.minY - y
            if d < 0 { d = -d }
            if isLimited(context) && page > 0 && (f.minY > context.startOffset.y + page || f.minY < context.startOffset.y - page) { continue }
            if d < bestDistance { bestDistance = d; best = f.minY }
        }
        target.rect.origin.y = min(context.maxOffsetY, max(0, best))
    }
}

extension ScrollTargetBehavior where Self == ViewAlignedScrollTargetBehavior {
    public static var viewAligned: ViewAlignedScrollTargetBehavior { ViewAlignedScrollTargetBehavior() }
    public static func viewAligned(limitBehavior: ViewAlignedScrollTargetBehavior.LimitBehavior) -> ViewAlignedScrollTargetBehavior {
        ViewAlignedScrollTargetBehavior(limitBehavior: limitBehavior)
    }
}
