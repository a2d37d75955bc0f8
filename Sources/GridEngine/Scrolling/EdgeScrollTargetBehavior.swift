/// The seed's custom behaviour (F8), written as any custom one is — a type conforming to
/// ``ScrollTargetBehavior`` — and offered in the page's snapping menu (``ScrollSnapping/edges``):
/// a scroll moving down rests on the max edge of the item at the proposed target, one moving
/// up on its min edge. A target over a header or a gap (no item there) is only clamped (F7).
/// At rest (no velocity) the nearer edge wins.
///
///     let offset = EdgeScrollTargetBehavior().resolve(proposed, context: context)
public struct EdgeScrollTargetBehavior: ScrollTargetBehavior, Hashable, Sendable {
    public init() {}

    public func updateTarget(_ target: inout ScrollTarget, context: ScrollTargetContext) {
        let y = target.rect.minY
        let line = Rect(x: 0, y: y, width: context.containerSize.width, height: 1)
        if let item = context.itemFrames(in: line).first {
            if context.velocity.y > 0 { target.rect.origin.y = item.maxY }
            else if context.velocity.y < 0 { target.rect.origin.y = item.minY }
            else { target.rect.origin.y = y - item.minY <= item.maxY - y ? item.minY : item.maxY }
        }
        target.rect.origin.y = min(context.maxOffsetY, max(0, target.rect.origin.y))
    }
}
