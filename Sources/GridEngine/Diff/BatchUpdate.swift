/// One batch of changes a collection view can animate in a single `performBatchUpdates`,
/// with UIKit's index conventions:
/// - deletes and reloads name positions **before** the batch,
/// - inserts name positions **after** it,
/// - moves go from a position before to a position after,
/// - items that are neither deleted nor moved keep their relative order and fill the
///   remaining slots of their section (which itself fills the remaining section slots).
///
///     for stage in changes.stages {            // a StagedChangeset
///         try BatchUpdate.validate(stage, against: shown)
///         shown = try shown.applying(stage)    // what the data source answers now
///     }
///
/// Inserts carry the inserted ids and versions (the data source's answer), and
/// `itemCountsAfter` the item count of every section after the batch, so that the batch
/// can be checked and applied without the target snapshot.
public struct BatchUpdate: Equatable, Sendable {
    /// Section indices before the batch.
    public var sectionDeletes: [Int] = []
    /// Sections after the batch, with their full contents.
    public var sectionInserts: [SectionInsertion] = []
    /// From a section index before to one after.
    public var sectionMoves: [SectionMove] = []
    /// Index paths before the batch.
    public var itemDeletes: [IndexPath] = []
    /// Index paths after the batch, with the new item's id and version.
    public var itemInserts: [ItemInsertion] = []
    /// From an index path before to one after.
    public var itemMoves: [ItemMove] = []
    /// Index paths before the batch whose content changed, with the new version.
    public var itemReloads: [ItemReload] = []
    /// The number of items in each section after the batch (its count is the section count).
    public var itemCountsAfter: [Int] = []

    public init() {}

    /// Whether the batch changes nothing (its counts still have to match).
    public var hasChanges: Bool {
        !(sectionDeletes.isEmpty && sectionInserts.isEmpty && sectionMoves.isEmpty && itemDeletes.isEmpty
            && itemInserts.isEmpty && itemMoves.isEmpty && itemReloads.isEmpty)
    }

    /// The number of individual changes (each delete, insert, move and reload counts once).
    public var changeCount: Int {
        sectionDeletes.count + sectionInserts.count + sectionMoves.count + itemDeletes.count
            + itemInserts.count + itemMoves.count + itemReloads.count
    }
}

/// A section inserted by a ``BatchUpdate``: its index after the batch and its contents.
public struct SectionInsertion: Equatable, Sendable {
    public var index: Int
    public var id: SectionID
    public var items: [ItemID]
    /// Content versions, parallel to `items`.
    public var versions: [UInt32]

    public init(index: Int, id: SectionID, items: [ItemID], versions: [UInt32]) {
        self.index = index; self.id = id; self.items = items; self.versions = versions
    }
}

/// A section moved by a ``BatchUpdate``: from its index before to its index after.
public struct SectionMove: Equatable, Sendable {
    public var from: Int
    public var to: Int

    public init(from: Int, to: Int) { self.from = from; self.to = to }
}

/// An item inserted by a ``BatchUpdate`` at an index path after the batch.
public struct ItemInsertion: Equatable, Sendable {
    public var at: IndexPath
    public var id: ItemID
    public var version: UInt32

    public init(at: IndexPath, id: ItemID, version: UInt32) { self.at = at; self.id = id; self.version = version }
}

/// An item moved by a ``BatchUpdate``: from an index path before to one after.
public struct ItemMove: Equatable, Sendable {
    public var from: IndexPath
    public var to: IndexPath

    public init(from: IndexPath, to: IndexPath) { self.from = from; self.to = to }
}

/// An item reloaded by a ``BatchUpdate`` (index path before), with its new content version.
public struct ItemReload: Equatable, Sendable {
    public var at: IndexPath
    public var version: UInt32

    public init(at: IndexPath, version: UInt32) { self.at = at; self.version = version }
}
