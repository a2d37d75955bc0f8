/// Where one item sits: its id, its section's id and index, plus what the layout and a
/// diff need to put it back (aspect and content version).
public struct ItemPlacement: Hashable, Sendable {
    public var id: ItemID
    public var section: SectionID
    public var index: Int
    public var aspect: Double
    public var version: UInt32

    public init(id: ItemID, section: SectionID, index: Int, aspect: Double = 1, version: UInt32 = 0) {
        self.id = id; self.section = section; self.index = index; self.aspect = aspect; self.version = version
    }
}

/// One arrangement change by identity: the items that left (with where they were) and the
/// items that arrived (with where they ended). An id in both lists moved. Every committed
/// operation is one of these — moves, swaps, copies, trash deletes, placeholder inserts
/// and commits — so undo is the same change with the lists exchanged (B4).
///
///     let swap = ArrangementChange(removed: [a@0, b@3], inserted: [a@3, b@0])
///     controller.undo()   // applies swap.inverted
///
/// Applying removes every `removed` id, then inserts every `inserted` placement in
/// ascending (section, index) order; items not named keep their relative order, which is
/// what makes the emitted ``BatchUpdate`` valid (UIKit's "others fill the free slots").
public struct ArrangementChange: Hashable, Sendable {
    public var removed: [ItemPlacement]
    public var inserted: [ItemPlacement]

    public init(removed: [ItemPlacement] = [], inserted: [ItemPlacement] = []) {
        self.removed = removed; self.inserted = inserted
    }

    /// The change that undoes this one.
    public var inverted: ArrangementChange { ArrangementChange(removed: inserted, inserted: removed) }

    public var isEmpty: Bool { removed.isEmpty && inserted.isEmpty }
}
