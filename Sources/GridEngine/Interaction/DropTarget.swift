/// Where a proposal points: the place a drop would land, resolved against the shown layout.
public enum DropTarget: Hashable, Sendable {
    /// Over the collection but over no section: the end of the last section (F28).
    case none
    /// Insert here. The item index counts only the items that are not being dragged, so
    /// for a move it is where the first dropped item ends up; for a copy the copies go
    /// before that same neighbour (the originals stay where they are).
    case insert(at: IndexPath)
    /// The end-of-section gap cell of this section (F27).
    case gapCell(section: Int)
    /// Onto this item (swap mode, F3). With k carried items, they swap with this item and
    /// the k − 1 items after it in reading order (dragged items skipped).
    case item(IndexPath)
    /// An outside drop target (the trash), by its id (F21).
    case outside(id: Int)
    /// Outside the collection and every outside target.
    case offscreen
}
