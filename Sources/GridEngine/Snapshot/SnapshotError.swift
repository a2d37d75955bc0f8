/// Why a ``Snapshot`` refused to be built or changed. The snapshot is left as it was.
///
///     do throws(SnapshotError) { try snapshot.appendItems([ItemID(1)], toSection: 0) }
///     catch .duplicateItem(let id) { /* id 1 is already in the snapshot */ }
///     catch { /* other cases */ }
public enum SnapshotError: Error, Equatable, Sendable {
    /// The item id occurs twice (in the input, or already in the snapshot).
    case duplicateItem(ItemID)
    /// The section id occurs twice (in the input, or already in the snapshot).
    case duplicateSection(SectionID)
    /// No item with this id is in the snapshot.
    case unknownItem(ItemID)
    /// No section with this id is in the snapshot.
    case unknownSection(SectionID)
    /// A section index outside `0..<sectionCount` (or `0...sectionCount` for an insert).
    case sectionIndexOutOfRange(Int)
    /// An index path whose item is outside the section's valid range for the operation.
    case indexPathOutOfRange(IndexPath)
    /// A section whose `items` and `versions` arrays differ in length.
    case versionCountMismatch(SectionID)

    /// A one-line explanation for logs and error responses.
    public var message: String {
        switch self {
        case .duplicateItem(let id): return "duplicate item id \(id.rawValue)"
        case .duplicateSection(let id): return "duplicate section id \(id.rawValue)"
        case .unknownItem(let id): return "unknown item id \(id.rawValue)"
        case .unknownSection(let id): return "unknown section id \(id.rawValue)"
        case .sectionIndexOutOfRange(let i): return "section index \(i) out of range"
        case .indexPathOutOfRange(let p): return "index path (section \(p.section), item \(p.item)) out of range"
        case .versionCountMismatch(let id): return "section \(id.rawValue) has a different number of versions than items"
        }
    }
}
