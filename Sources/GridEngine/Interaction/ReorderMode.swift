/// What dragging over other items does.
public enum ReorderMode: UInt8, Hashable, Sendable {
    /// The others shift aside live and the items are inserted at the destination (F9, F18).
    case insert
    /// The hovered item shrinks and fades (F4) and the two exchange places on drop (F3).
    case swap
}
