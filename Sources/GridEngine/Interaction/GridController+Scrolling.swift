// Where a fling comes to rest (F6–F8): the built-in snapping chosen at run time, or any
// custom behaviour passed generically.

extension GridController {
    /// The resting content offset for a fling that would end at `proposed` with
    /// `velocity` (points per second), using `snapping`.
    public func scrollTarget(proposed: Point, velocity: Point) -> Point {
        scrollTarget(proposed: proposed, velocity: velocity, behavior: snapping)
    }

    /// The resting content offset using a custom behaviour (F8).
    public func scrollTarget<B: ScrollTargetBehavior>(proposed: Point, velocity: Point, behavior: B) -> Point {
        behavior.resolve(proposed, context: scrollTargetContext(proposed: proposed, velocity: velocity))
    }

    /// The context a behaviour sees for a fling starting at the current offset.
    public func scrollTargetContext(proposed: Point, velocity: Point) -> ScrollTargetContext {
        ScrollTargetContext(originalTarget: ScrollTarget(rect: Rect(origin: proposed, size: viewportSize)),
                            velocity: velocity, contentSize: contentSize, containerSize: viewportSize,
                            startOffset: contentOffset, layout: layout)
    }
}

extension GridController {
    /// Paging by gesture (issue 13): the resting offset one page from `offset` in `direction`
    /// (+1 down, −1 up), whatever distance the wheel or key reported. The host passes the
    /// offset the previous turn is heading for while it still animates, so quick turns
    /// advance one page each.
    public func pageStep(from offset: Double, direction: Int) -> Double {
        PagingScrollTargetBehavior().step(from: offset, direction: direction, pageHeight: viewportSize.height,
                                          maxOffsetY: max(0, contentSize.height - viewportSize.height))
    }
}
