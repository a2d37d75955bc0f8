/// Why a ``GridController`` refused a call. Nothing changed.
public enum GridControllerError: Error, Equatable, Sendable {
    /// The aspects given do not match the snapshot's sections and items.
    case aspectsMismatch
    /// No placeholder with this id is waiting (already committed, deleted, or unknown).
    case unknownPlaceholder(PlaceholderID)
    /// The item id is already in the collection.
    case duplicateItem(ItemID)
    /// A live update did not apply to the collection's model (see ``BatchUpdateError``).
    case invalidUpdate(BatchUpdateError)
    /// A live snapshot holds an id twice or uses an id of a waiting placeholder.
    case invalidSnapshot

    public var message: String {
        switch self {
        case .aspectsMismatch: return "aspects do not match the snapshot"
        case .unknownPlaceholder(let p): return "unknown placeholder \(p.itemID.rawValue)"
        case .duplicateItem(let id): return "item \(id.rawValue) is already in the collection"
        case .invalidUpdate: return "the live update does not apply to the collection"
        case .invalidSnapshot: return "the live snapshot is not valid here"
        }
    }
}
