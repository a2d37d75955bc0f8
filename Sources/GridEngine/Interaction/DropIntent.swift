/// How a drop relates to the collection, as `UICollectionViewDropProposal.Intent` (F29).
public enum DropIntent: UInt8, Hashable, Sendable {
    /// No index path: outside targets, or a drop with no destination (it goes to the end
    /// of the last section, F28).
    case unspecified
    /// Insert at the destination index path; the others shift aside.
    case insertAtDestinationIndexPath
    /// Drop into the item (swap mode) or the end-of-section gap cell (F27).
    case insertIntoDestinationIndexPath
}
