/// A cell that holds the place of dropped external data while it loads (F19), as
/// `UICollectionViewDropPlaceholder`. It is an item of the controller's snapshot (with
/// an id from the controller's own id range), so its index path follows every later
/// change: other drops, moves, deletes, live updates.
///
///     case .loadDroppedData(let placeholder, let index, _) = effect
///     // ... later, when the data arrived:
///     try controller.commitInsertion(placeholder, item: ItemID(42), aspect: 1.5)
///     // or, when it failed:
///     try controller.deletePlaceholder(placeholder)
public struct PlaceholderID: Hashable, Comparable, Sendable {
    /// The id of the placeholder's cell in the snapshot.
    public var itemID: ItemID

    @inlinable public init(itemID: ItemID) { self.itemID = itemID }

    @inlinable public static func < (a: PlaceholderID, b: PlaceholderID) -> Bool { a.itemID < b.itemID }
}

/// One placeholder and the external item it waits for.
public struct Placeholder: Hashable, Sendable {
    public var id: PlaceholderID
    /// The index of the item within the external drop's offered items.
    public var dropItemIndex: Int
    /// The kinds of data the item offered.
    public var kinds: DropDataKinds

    public init(id: PlaceholderID, dropItemIndex: Int, kinds: DropDataKinds) {
        self.id = id; self.dropItemIndex = dropItemIndex; self.kinds = kinds
    }
}
