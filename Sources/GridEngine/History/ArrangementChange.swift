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
    /// Sections that arrive, leave or move (issue 13: sections deleted with their items,
    /// reordered by their headers). Applied around the items: arrivals and moves before the
    /// items arrive, departures after they left.
    public var sections: [SectionChange]

    public init(removed: [ItemPlacement] = [], inserted: [ItemPlacement] = [], sections: [SectionChange] = []) {
        self.removed = removed; self.inserted = inserted; self.sections = sections
    }

    /// The change that undoes this one.
    public var inverted: ArrangementChange {
        ArrangementChange(removed: inserted, inserted: removed, sections: sections.reversed().map { $0.inverted })
    }

    public var isEmpty: Bool { removed.isEmpty && inserted.isEmpty && sections.isEmpty }
}

/// One section arriving (`from` nil), leaving (`to` nil) or moving, by id and section index.
public struct SectionChange: Hashable, Sendable {
    public var id: SectionID
    public var from: Int?
    public var to: Int?

    public init(id: SectionID, from: Int?, to: Int?) { self.id = id; self.from = from; self.to = to }

    public var inverted: SectionChange { SectionChange(id: id, from: to, to: from) }
}
