/// Why a ``BatchUpdate`` would crash UIKit's `performBatchUpdates` (or break a snapshot's
/// invariants) when applied to a given snapshot. The names follow UIKit's assertions.
///
///     do throws(BatchUpdateError) { try BatchUpdate.validate(stage, against: shown) }
///     catch .itemDeletedAndMoved(let p) { /* both deleted and moved: UIKit would crash */ }
///     catch { /* other cases */ }
public enum BatchUpdateError: Error, Equatable, Sendable {
    // Sections
    case sectionDeleteOutOfRange(Int)
    case sectionDeletedTwice(Int)
    case sectionInsertOutOfRange(Int)
    case sectionInsertedTwice(Int)
    case sectionMoveSourceOutOfRange(Int)
    case sectionMoveDestinationOutOfRange(Int)
    case sectionMovedTwice(Int)
    case sectionDeletedAndMoved(Int)
    /// Two moves, or a move and an insert, target the same section index after the batch.
    case sectionDestinationUsedTwice(Int)
    /// `itemCountsAfter.count` is not old sections − deleted + inserted.
    case sectionCountMismatch(expected: Int, declared: Int)
    /// An inserted section whose items and versions differ in length or whose declared
    /// count differs.
    case sectionInsertContentMismatch(Int)
    // Items
    case itemDeleteOutOfRange(IndexPath)
    case itemDeletedTwice(IndexPath)
    case itemDeleteInDeletedSection(IndexPath)
    case itemInsertOutOfRange(IndexPath)
    case itemInsertIntoInsertedSection(IndexPath)
    case itemMoveSourceOutOfRange(IndexPath)
    case itemMoveDestinationOutOfRange(IndexPath)
    case itemMoveFromDeletedSection(IndexPath)
    case itemMoveIntoInsertedSection(IndexPath)
    case itemDeletedAndMoved(IndexPath)
    case itemMovedTwice(IndexPath)
    /// Two inserts, two moves, or an insert and a move target the same index path after.
    case itemDestinationUsedTwice(IndexPath)
    case itemReloadOutOfRange(IndexPath)
    case itemReloadInDeletedSection(IndexPath)
    case itemDeletedAndReloaded(IndexPath)
    case itemMovedAndReloaded(IndexPath)
    case itemReloadedTwice(IndexPath)
    /// "Invalid number of items in section": old − deleted − moved out + inserted + moved in
    /// differs from the declared count after the batch (section index after).
    case itemCountMismatch(section: Int, expected: Int, declared: Int)
    /// A declared count below zero, or more items than the old ones plus every insert.
    case itemCountOutOfRange(section: Int, declared: Int)
    /// An inserted id that is still in the snapshot (not deleted by this batch) or is
    /// inserted twice.
    case duplicateItemID(ItemID)
    /// An inserted section id that is still in the snapshot or is inserted twice.
    case duplicateSectionID(SectionID)
}
