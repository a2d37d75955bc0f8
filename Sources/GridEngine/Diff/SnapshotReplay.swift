/// A snapshot for replaying a long history of stages and comparing where it arrives: the
/// same results and the same errors as ``Snapshot/applying(_:)`` stage after stage, but
/// without the id → position table a ``Snapshot`` keeps up to date.
///
/// Why (issue 15, session 16): after a restart the server checks the catch-up history it
/// rebuilt from its database by replaying thousands of versions of a gallery from one
/// checkpoint to the next (`LiveGallery.verifyHistory`). On a ``Snapshot`` even the in-place
/// apply rewrote the table entry of every item whose index a stage shifted — a move between
/// two sections of a 1M-item gallery (10,000 items a section) shifts ~10,000 items, each a
/// random write into a table of tens of megabytes: ~0.8 ms a version. A replay only needs the
/// arrangement (to compare with the next checkpoint), the items at the positions a stage names
/// (to check them), and, for inserts, whether an id is already elsewhere. So this keeps the
/// sections' arrays and an id → section table (right whatever the index), updated per change:
/// a stage of one move costs O(sections) for the counts it declares plus two array shifts
/// (`memmove`s of at most one section each); any other stage of item edits rebuilds only the
/// sections it touches (``Snapshot/applyInPlace(_:)`` without the table writes). A stage with
/// section edits goes through ``Snapshot/applying(_:)`` on a whole snapshot (O(n), rare).
public struct SnapshotReplay: Sendable {
    /// The sections, in order (their `slot`s as in `_slotIndex`; index logs always empty).
    var _sections: [Snapshot._Section]
    /// Item id → `slot << 32 | (anything)`: which section the item is in (the item index part
    /// is not kept up to date and never read).
    var _sectionOf: _IDTable
    /// Slot → section index, -1 for a free slot.
    var _slotIndex: [Int]

    /// The replay of `snapshot`'s arrangement. O(sections) (the table is shared with the snapshot
    /// until the first change copies it).
    public init(_ snapshot: Snapshot) {
        _sections = snapshot._sections
        _sectionOf = snapshot._itemTable
        _slotIndex = snapshot._slotIndex
        // A section's index log only corrects item indices, which are not read here; the slot
        // of every entry is always right (see `Snapshot._itemTable`).
        for s in 0..<_sections.count where !_sections[s].log.isEmpty { _sections[s].log = _IndexLog() }
    }

    /// The arrangement as a ``Snapshot`` (its tables built: O(n)).
    public var snapshot: Snapshot {
        (try? Snapshot(_sections: _sections, checked: false)) ?? Snapshot()
    }

    public var sectionCount: Int { _sections.count }
    public var itemCount: Int { _sectionOf.count }
    public func sectionID(at index: Int) -> SectionID { _sections[index].id }
    public func items(inSection index: Int) -> [ItemID] { _sections[index].items }
    public func versions(inSection index: Int) -> [UInt32] { _sections[index].versions }

    /// Whether `indexPath` names an existing item.
    public func isValid(_ indexPath: IndexPath) -> Bool {
        indexPath.section >= 0 && indexPath.section < _sections.count
            && indexPath.item >= 0 && indexPath.item < _sections[indexPath.section].items.count
    }

    /// The item at `indexPath` (precondition: valid).
    public func itemID(at indexPath: IndexPath) -> ItemID { _sections[indexPath.section].items[indexPath.item] }

    /// Whether the arrangement is exactly these sections, items and versions, in this order
    /// (what a checkpoint read from storage holds), without building a snapshot of them. O(n).
    public func hasSections(_ sections: [(id: SectionID, items: [ItemID], versions: [UInt32])]) -> Bool {
        guard sections.count == _sections.count else { return false }
        for s in 0..<sections.count {
            let x = _sections[s], y = sections[s]
            if x.id != y.id || x.items != y.items || x.versions != y.versions { return false }
        }
        return true
    }

    /// Same sections, items and versions in the same order as `snapshot`. O(n).
    public static func == (replay: SnapshotReplay, snapshot: Snapshot) -> Bool {
        guard replay._sections.count == snapshot._sections.count else { return false }
        for s in 0..<replay._sections.count {
            let x = replay._sections[s], y = snapshot._sections[s]
            if x.id != y.id || x.items != y.items || x.versions != y.versions { return false }
        }
        return true
    }

    /// Applies `stage` with the same result and the same errors as ``Snapshot/applying(_:)``;
    /// on a throw nothing changed.
    public mutating func apply(_ stage: BatchUpdate) throws(BatchUpdateError) {
        let ns = _sections.count
        guard stage.sectionDeletes.isEmpty, stage.sectionInserts.isEmpty, stage.sectionMoves.isEmpty,
              stage.itemCountsAfter.count == ns else {
            try _applyWhole(stage)
            return
        }
        if stage.itemMoves.count == 1, stage.itemDeletes.isEmpty, stage.itemInserts.isEmpty, stage.itemReloads.isEmpty,
           _moveOne(stage) {
            return
        }
        guard let (touched, after) = Snapshot._appliedToTouched(stage, _sections, sectionOf: { id in
            let packed = _sectionOf.find(id.rawValue)
            return packed >= 0 ? _slotIndex[Int(truncatingIfNeeded: packed &>> 32)] : nil
        }) else {
            try _applyWhole(stage)
            return
        }
        if touched.isEmpty { return } // nothing changes (itemCountsAfter matched every section)
        // The table: deleted ids leave (unless inserted again), inserted ids and ids moved to
        // another section get their section.
        var reinserted = _IDTable(minimumCapacity: stage.itemInserts.count)
        for ins in stage.itemInserts { _ = reinserted.insertIfAbsent(ins.id.rawValue, 0) }
        for p in stage.itemDeletes {
            let key = _sections[p.section].items[p.item].rawValue
            if reinserted.find(key) < 0 { _ = _sectionOf.remove(key) }
        }
        for m in stage.itemMoves where m.from.section != m.to.section {
            _sectionOf.update(_sections[m.from.section].items[m.from.item].rawValue, Snapshot._pack(slot: _sections[m.to.section].slot, item: 0))
        }
        for ins in stage.itemInserts {
            let packed = Snapshot._pack(slot: _sections[ins.at.section].slot, item: 0)
            if _sectionOf.insertIfAbsent(ins.id.rawValue, packed) >= 0 { _sectionOf.update(ins.id.rawValue, packed) }
        }
        for (k, s) in touched.enumerated() {
            _sections[s].items = after[k].items
            _sections[s].versions = after[k].versions
        }
    }

    /// A stage of exactly one item move and no section edits: applied as a removal and an
    /// insertion when `applying` would accept it (the source exists, the destination is inside
    /// the declared count of its section, every section's declared count is its count after the
    /// move — nothing else can be wrong with a lone move); false (nothing changed) otherwise.
    mutating func _moveOne(_ stage: BatchUpdate) -> Bool {
        let m = stage.itemMoves[0]
        let ns = _sections.count
        let f = m.from, t = m.to
        guard f.section >= 0 && f.section < ns && f.item >= 0 && f.item < _sections[f.section].items.count,
              t.section >= 0 && t.section < ns && t.item >= 0 && t.item < stage.itemCountsAfter[t.section] else { return false }
        for s in 0..<ns {
            var expected = _sections[s].items.count
            if s == f.section { expected -= 1 }
            if s == t.section { expected += 1 }
            if stage.itemCountsAfter[s] != expected { return false }
        }
        let id = _sections[f.section].items.remove(at: f.item)
        let version = _sections[f.section].versions.remove(at: f.item)
        _sections[t.section].items.insert(id, at: t.item)
        _sections[t.section].versions.insert(version, at: t.item)
        if f.section != t.section {
            _sectionOf.update(id.rawValue, Snapshot._pack(slot: _sections[t.section].slot, item: 0))
        }
        return true
    }

    /// `applying` on the whole arrangement (a snapshot built for it: O(n)): a stage with section
    /// edits, or one rejected, which throws `applying`'s own error and changes nothing.
    mutating func _applyWhole(_ stage: BatchUpdate) throws(BatchUpdateError) {
        let after = try snapshot.applying(stage)
        _sections = after._sections
        _sectionOf = after._itemTable
        _slotIndex = after._slotIndex
    }
}
