/// The phases of a drag session. Every phase can be cancelled (pointer cancel, Escape,
/// `cancelDrag`).
///
///     idle → pending → lifted → dragging → dropping → settling → idle
///
/// - `pending`: the pointer went down on an item; a mouse or pen lifts it after moving a
///   few points, a touch after a long press without moving (F9).
/// - `lifted`: the item floats under the pointer, scaled (F10); not yet moved.
/// - `dragging`: proposals follow the pointer; the others shift aside (insert mode).
/// - `dropping`: the drop is committed; the preview animates to its final place (or back
///   home when cancelled, or into the trash).
/// - `settling`: the cells settle; hooks after the drop (F10) run here.
public enum DragPhase: UInt8, Hashable, Sendable {
    case idle
    case pending
    case lifted
    case dragging
    case dropping
    case settling
}
