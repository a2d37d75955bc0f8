/// Where a fling will come to rest: the rectangle of content the container will show
/// (origin = content offset, size = container size), as SwiftUI's `ScrollTarget`.
public struct ScrollTarget: Hashable, Sendable {
    public var rect: Rect
    public init(rect: Rect) { self.rect = rect }
}

/// What a ``ScrollTargetBehavior`` may look at: the proposed target, the fling's velocity
/// (points per second, y positive downwards), the content and container sizes, where the
/// fling started, and the item layout. Only items are snap targets: headers and gap cells
/// are not part of the designated item layout (F7).
public struct ScrollTargetContext: Sendable {
    public var originalTarget: ScrollTarget
    public var velocity: Point
    public var contentSize: Size
    public var containerSize: Size
    /// The content offset when the fling began.
    public var startOffset: Point
    /// The layout whose items are the snap targets.
    public var layout: CollectionLayout

    public init(originalTarget: ScrollTarget, velocity: Point, contentSize: Size, containerSize: Size,
                startOffset: Point, layout: CollectionLayout) {
        self.originalTarget = originalTarget; self.velocity = velocity; self.contentSize = contentSize
        self.containerSize = containerSize; self.startOffset = startOffset; self.layout = layout
    }

    /// The largest valid content offset y.
    public var maxOffsetY: Double { max(0, contentSize.height - containerSize.height) }

    /// Frames of the items (not headers, not gap cells) overlapping `rect`. O(log n + k).
    public func itemFrames(in rect: Rect) -> [Rect] {
        var out: [Rect] = []
        for a in layout.attributes(in: rect) where a.kind == .item { out.append(a.frame) }
        return out
    }
}

/// Decides where a scroll comes to rest (F6–F8), as SwiftUI's `ScrollTargetBehavior`:
/// `updateTarget` may move the proposed target. Custom behaviours conform and are passed
/// generically (no existentials: Embedded Swift).
///
///     struct EdgeSnapping: ScrollTargetBehavior {   // the seed's example
///         func updateTarget(_ target: inout ScrollTarget, context: ScrollTargetContext) { ... }
///     }
///     let offset = controller.scrollTarget(proposed: p, velocity: v, behavior: EdgeSnapping())
public protocol ScrollTargetBehavior {
    func updateTarget(_ target: inout ScrollTarget, context: ScrollTargetContext)
}

extension ScrollTargetBehavior {
    /// The resting content offset for a fling that would end at `proposed`.
    public func resolve(_ proposed: Point, context: ScrollTargetContext) -> Point {
        var target = ScrollTarget(rect: Rect(origin: proposed, size: context.containerSize))
        updateTarget(&target, context: context)
        return target.rect.origin
    }
}
