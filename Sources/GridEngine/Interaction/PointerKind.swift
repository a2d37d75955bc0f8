/// What produced a pointer event. Mouse and pen lift an item as soon as it is dragged a few
/// points; touch lifts only after a long press without moving (F9), as on iOS, so that a
/// finger can still scroll the grid.
public enum PointerKind: UInt8, Hashable, Sendable {
    case mouse
    case touch
    case pen
}
