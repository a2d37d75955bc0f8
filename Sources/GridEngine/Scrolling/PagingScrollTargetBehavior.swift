/// Rests on whole pages (one container height each), at most one page per fling in the
/// fling's direction (F6), as SwiftUI's `.paging`. The last page ends at the content end.
///
///     let offset = PagingScrollTargetBehavior().resolve(proposed, context: context)
public struct PagingScrollTargetBehavior: ScrollTargetBehavior, Hashable, Sendable {
    /// Slower flings than this (points per second) settle on the nearest page instead.
    public var flingThreshold: Double

    public init(flingThreshold: Double = 100) { self.flingThreshold = flingThreshold }

    public func updateTarget(_ target: inout ScrollTarget, context: ScrollTargetContext) {
        let page = context.containerSize.height
        guard page > 0 else { return }
        let maxY = context.maxOffsetY
        let current = _nearestWhole(context.startOffset.y / page)
        var next: Double
        if context.velocity.y > flingThreshold { next = current + 1 }
        else if context.velocity.y < -flingThreshold { next = current - 1 }
        else { next = _nearestWhole(target.rect.origin.y / page) }
        next = max(0, next)
        target.rect.origin.y = min(maxY, next * page)
    }
}

extension PagingScrollTargetBehavior {
    /// One page in `direction` (+1 down, −1 up, 0: the nearest page) from the page nearest
    /// `offset`, within 0...`maxOffsetY` (the last page ends at the content end). Paging by
    /// gesture (issue 13): a wheel gesture or a PageDown/PageUp key turns exactly one page,
    /// whatever the wheel's delta, from where the previous turn was heading.
    public func step(from offset: Double, direction: Int, pageHeight page: Double, maxOffsetY maxY: Double) -> Double {
        guard page > 0 else { return 0 }
        // The last page rests at the content end, which is no multiple of the page height:
        // resting there counts as the page after the one before it.
        let current = offset >= maxY - 0.5 && maxY > 0 ? _nearestWhole(maxY / page + 0.4999) : _nearestWhole(offset / page)
        let next = max(0, current + Double(direction > 0 ? 1 : direction < 0 ? -1 : 0))
        return min(max(0, maxY), next * page)
    }
}

extension ScrollTargetBehavior where Self == PagingScrollTargetBehavior {
    public static var paging: PagingScrollTargetBehavior { PagingScrollTargetBehavior() }
}

/// The nearest whole number (halves away from zero) without libm, which the engine does
/// not link; clamped so `Int(_:)` cannot trap.
@inlinable func _nearestWhole(_ x: Double) -> Double {
    guard x.isFinite else { return 0 }
    let c = min(max(x, -1e15), 1e15)
    return c >= 0 ? Double(Int(c + 0.5)) : -Double(Int(-c + 0.5))
}
