/// The built-in behaviours as one value, switched at run time from a segmented control
/// (F6): free, paging, view-aligned, and the seed's custom edge behaviour (F8). An enum, so the controller holds it without an
/// existential; it is itself a ``ScrollTargetBehavior``.
///
///     controller.snapping = .viewAligned(.always)
///     let rest = controller.scrollTarget(proposed: flingEnd, velocity: v)
public enum ScrollSnapping: ScrollTargetBehavior, Hashable, Sendable {
    case none
    case paging
    case viewAligned(ViewAlignedScrollTargetBehavior.LimitBehavior)
    /// ``EdgeScrollTargetBehavior``: down to the item's max edge, up to its min edge.
    case edges

    public func updateTarget(_ target: inout ScrollTarget, context: ScrollTargetContext) {
        switch self {
        case .none:
            target.rect.origin.y = min(context.maxOffsetY, max(0, target.rect.origin.y))
        case .paging:
            PagingScrollTargetBehavior().updateTarget(&target, context: context)
        case .viewAligned(let limit):
            ViewAlignedScrollTargetBehavior(limitBehavior: limit).updateTarget(&target, context: context)
        case .edges:
            EdgeScrollTargetBehavior().updateTarget(&target, context: context)
        }
    }
}
