/// Why ``StagedChangeset/init(from:to:)`` refused two snapshots: an id occurs twice, so
/// "where did this item go" has no single answer.
///
///     do throws(DiffError) { _ = try StagedChangeset(from: old, to: new) }
///     catch .duplicateItemInTarget(let id) { /* the new snapshot lists id twice */ }
///     catch { /* other cases */ }
public enum DiffError: Error, Equatable, Sendable {
    case duplicateItemInSource(ItemID)
    case duplicateItemInTarget(ItemID)
    case duplicateSectionInSource(SectionID)
    case duplicateSectionInTarget(SectionID)
}
