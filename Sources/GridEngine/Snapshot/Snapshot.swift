/// The arrangement a collection view shows: ordered sections, each an ordered list of
/// item ids, and a content version per item (bumped when the item's content changes, so
/// a diff can emit a reload).
///
///     var snapshot = try Snapshot([(SectionID(0), [ItemID(1), ItemID(2)])])
///     try snapshot.moveItem(ItemID(2), to: IndexPath(item: 0, section: 0))
///     let changes = try StagedChangeset(from: old, to: snapshot)
///
/// Ids are unique: construction and every mutation refuse a duplicate with a
/// ``SnapshotError`` instead of trapping. `indexPath(of:)` and `indexOfSection(_:)` are
/// O(1): an id → (section slot, item) hash table is kept up to date by every edit (a single
/// item move only logs its index shift per section and the table catches up in batches,
/// see `_IndexLog`). Sections are referred to by a stable slot, so section edits cost
/// O(sections) and item edits O(items shifted in the touched sections), not O(n). A plain
/// value: `Sendable`.
public struct Snapshot: Sendable {
    struct _Section: Sendable {
        var id: SectionID
        /// Stable number of this section in `_slotIndex` and in packed item positions.
        var slot: Int
        var items: [ItemID]
        var versions: [UInt32]
        /// Index shifts of moves not yet written into `_itemTable` (see `_IndexLog`).
        var log = _IndexLog()
    }

    var _sections: [_Section]
    /// Item id → `slot << 32 | item`. The slot is always right; the item index is right
    /// once the section's `log` is replayed on it (`_resolve`): read it only through that.
    var _itemTable: _IDTable
    /// Section id → slot.
    var _sectionTable: _IDTable
    /// Slot → section index, -1 for a free slot.
    var _slotIndex: [Int]
    /// How many sections have a non-empty index log: 0 lets a lookup skip the log.
    var _loggedSections = 0

    /// An empty snapshot (no sections).
    public init() {
        _sections = []
        _itemTable = _IDTable(minimumCapacity: 0)
        _sectionTable = _IDTable(minimumCapacity: 0)
        _slotIndex = []
    }

    /// A snapshot of the given sections, all content versions 0.
    /// - Throws: `.duplicateSection` / `.duplicateItem` on a repeated id.
    /// - Complexity: O(n) for n items.
    public init(_ sections: [(id: SectionID, items: [ItemID])]) throws(SnapshotError) {
        var built: [_Section] = []
        built.reserveCapacity(sections.count)
        for s in sections {
            built.append(_Section(id: s.id, slot: built.count, items: s.items, versions: [UInt32](repeating: 0, count: s.items.count)))
        }
        try self.init(_sections: built, checked: true)
    }

    /// A snapshot of the given sections with explicit content versions per item.
    /// - Throws: `.duplicateSection` / `.duplicateItem` on a repeated id,
    ///   `.versionCountMismatch` when a section's arrays differ in length.
    public init(_ sections: [(id: SectionID, items: [ItemID], versions: [UInt32])]) throws(SnapshotError) {
        var built: [_Section] = []
        built.reserveCapacity(sections.count)
        for s in sections {
            guard s.items.count == s.versions.count else { throw .versionCountMismatch(s.id) }
            built.append(_Section(id: s.id, slot: built.count, items: s.items, versions: s.versions))
        }
        try self.init(_sections: built, checked: true)
    }

    /// Builds the tables; slots are renumbered 0..<count. With `checked: false` a repeated
    /// id keeps its first position (only for tests of the diff's own duplicate checks).
    init(_sections sections: [_Section], checked: Bool) throws(SnapshotError) {
        _sections = sections
        var total = 0
        for s in sections { total += s.items.count }
        let bulk = checked && total >= _IDTable.groupedMinimum
        _itemTable = _IDTable(minimumCapacity: bulk ? 0 : total)
        _sectionTable = _IDTable(minimumCapacity: sections.count)
        _slotIndex = Array(0..<sections.count)
        if bulk {
            // A big snapshot's tables in bulk (dense or grouped: `_IDTable.init(bulk:)`); on a
            // repeated id, again one by one below (the error it names).
            var unique = true
            for s in 0..<sections.count where _sectionTable.insertIfAbsent(sections[s].id.rawValue, Int64(s)) >= 0 { unique = false; break }
            if unique, let table = _IDTable(bulk: sections.map { $0.items }, value: { Snapshot._pack(slot: $0, item: $1) }) {
                _itemTable = table
                for s in 0..<sections.count { _sections[s].slot = s; _sections[s].log = _IndexLog() }
                return
            }
            _itemTable = _IDTable(minimumCapacity: total)
            _sectionTable = _IDTable(minimumCapacity: sections.count)
        }
        for s in 0..<sections.count {
            _sections[s].slot = s
            _sections[s].log = _IndexLog()
            let existing = _sectionTable.insertIfAbsent(sections[s].id.rawValue, Int64(s))
            if checked && existing >= 0 { throw .duplicateSection(sections[s].id) }
            let items = sections[s].items
            for i in 0..<items.count {
                let found = _itemTable.insertIfAbsent(items[i].rawValue, Snapshot._pack(slot: s, item: i))
                if checked && found >= 0 { throw .duplicateItem(items[i]) }
            }
        }
    }

    /// Snapshots of at least this many items build their id table in bulk (dense over ids that lie
    /// close together, else in hash order: `_IDTable.init(bulk:)`).
    public static var bulkBuildMinimum: Int { _IDTable.groupedMinimum }

    /// A snapshot that skips the duplicate check: for tests of the diff's own checks.
    init(_unchecked sections: [(id: SectionID, items: [ItemID])]) {
        let built = sections.map { _Section(id: $0.id, slot: 0, items: $0.items, versions: [UInt32](repeating: 0, count: $0.items.count)) }
        self = (try? Snapshot(_sections: built, checked: false)) ?? Snapshot()
    }

    // MARK: Reading

    /// The number of sections.
    public var sectionCount: Int { _sections.count }

    /// The total number of items over all sections. O(1).
    public var itemCount: Int { _itemTable.count }

    /// The section ids in order.
    public var sectionIDs: [SectionID] { _sections.map { $0.id } }

    /// The id of the section at `index` (precondition: in range).
    public func sectionID(at index: Int) -> SectionID { _sections[index].id }

    /// The item ids of the section at `index`, in order.
    public func items(inSection index: Int) -> [ItemID] { _sections[index].items }

    /// The content versions of the section at `index`, parallel to `items(inSection:)`.
    public func versions(inSection index: Int) -> [UInt32] { _sections[index].versions }

    /// The number of items in the section at `index`.
    public func itemCount(inSection index: Int) -> Int { _sections[index].items.count }

    /// The item at `indexPath` (precondition: valid).
    public func itemID(at indexPath: IndexPath) -> ItemID { _sections[indexPath.section].items[indexPath.item] }

    /// The content version of the item at `indexPath` (precondition: valid).
    public func version(at indexPath: IndexPath) -> UInt32 { _sections[indexPath.section].versions[indexPath.item] }

    /// All item ids, section after section.
    public var allItemIDs: [ItemID] {
        var out: [ItemID] = []
        out.reserveCapacity(itemCount)
        for s in _sections { out.append(contentsOf: s.items) }
        return out
    }

    /// Whether `indexPath` names an existing item.
    public func isValid(_ indexPath: IndexPath) -> Bool {
        indexPath.section >= 0 && indexPath.section < _sections.count
            && indexPath.item >= 0 && indexPath.item < _sections[indexPath.section].items.count
    }

    /// Where the item is, or nil. O(1) expected.
    public func indexPath(of id: ItemID) -> IndexPath? {
        let packed = _itemTable.find(id.rawValue)
        if packed < 0 { return nil }
        return _resolve(id.rawValue, packed)
    }

    /// Whether the item is in the snapshot. O(1) expected.
    public func contains(_ id: ItemID) -> Bool { _itemTable.find(id.rawValue) >= 0 }

    /// The content version of an item, or nil when absent.
    public func version(of id: ItemID) -> UInt32? {
        guard let p = indexPath(of: id) else { return nil }
        return _sections[p.section].versions[p.item]
    }

    /// The index of the section with this id, or nil. O(1) expected.
    public func indexOfSection(_ id: SectionID) -> Int? {
        let slot = _sectionTable.find(id.rawValue)
        return slot < 0 ? nil : _slotIndex[Int(slot)]
    }

    /// The indices of the sections whose items or content versions may differ in `other`, when
    /// both hold the same section ids in the same order and no repeated item id; nil otherwise.
    /// A section whose arrays share their storage with `other`'s (copy-on-write: neither was
    /// changed since one snapshot was copied from the other) holds the same items; every other
    /// section is listed, changed or not. O(sections).
    func _sectionsChanged(in other: Snapshot) -> [Int]? {
        guard _isUnique, other._isUnique else { return nil }
        return Snapshot._sectionsChanged(_sections, other._sections)
    }

    /// `_sectionsChanged` on two snapshots' section arrays (their ids unique).
    static func _sectionsChanged(_ a: [_Section], _ b: [_Section]) -> [Int]? {
        guard a.count == b.count else { return nil }
        var changed: [Int] = []
        for s in 0..<a.count {
            guard a[s].id == b[s].id else { return nil }
            if !_sharesArrays(a[s], b[s]) { changed.append(s) }
        }
        return changed
    }

    /// Whether two sections' items and versions share their storage (copy-on-write: neither was
    /// changed since one was copied from the other), so they hold the same. O(1).
    @inline(__always) static func _sharesArrays(_ a: _Section, _ b: _Section) -> Bool {
        @inline(__always) func same<T>(_ x: [T], _ y: [T]) -> Bool {
            x.count == y.count && (x.isEmpty || x.withUnsafeBufferPointer { p in y.withUnsafeBufferPointer { q in p.baseAddress == q.baseAddress } })
        }
        return same(a.items, b.items) && same(a.versions, b.versions)
    }

    /// Whether the id table holds every id of the sections (else one is repeated: only
    /// `_unchecked` test input can). O(sections).
    var _isUnique: Bool {
        var total = 0
        for s in _sections { total += s.items.count }
        return _itemTable.count == total
    }

    /// A snapshot's sections as they were, without its id tables, with where some items were
    /// (``Snapshot/sections(naming:)``): what a diff needs of a snapshot that is then edited in
    /// place (a server batch on a big gallery, issue 15), and what `revert(to:)` goes back to.
    public struct Sections: Sendable {
        let _sections: [_Section]
        let _unique: Bool
        /// Where the named items were: the only ones the edit may take out of their order.
        let _named: [(id: ItemID, at: IndexPath)]

        /// The item at `indexPath` (precondition: valid).
        public func itemID(at indexPath: IndexPath) -> ItemID { _sections[indexPath.section].items[indexPath.item] }

        /// Whether `indexPath` names an item.
        public func isValid(_ indexPath: IndexPath) -> Bool {
            indexPath.section >= 0 && indexPath.section < _sections.count
                && indexPath.item >= 0 && indexPath.item < _sections[indexPath.section].items.count
        }

        /// The whole snapshot again: O(n) (its id tables are built).
        public var snapshot: Snapshot { (try? Snapshot(_sections: _sections, checked: false)) ?? Snapshot() }
    }

    /// The sections as they are now, arrays shared (copy-on-write: O(sections); edits to this
    /// snapshot afterwards copy only the sections they touch), with the promise that an edit
    /// made afterwards moves, deletes or reloads no item but `ids` (it may insert new ones): the
    /// diffs against the edited snapshot then walk the changed sections' arrays without building
    /// their id tables (O(k) to take for k ids). An item that breaks the promise comes out
    /// deleted and inserted instead of moved. Sections may be added, removed or moved; a section
    /// removed and then added again (its items trashed, some restored) takes its items out of
    /// order: name it in `wholeSections` (every item of it named, O(its items)).
    public func sections(naming ids: [ItemID], wholeSections: [SectionID] = []) -> Sections {
        var named: [(id: ItemID, at: IndexPath)] = []
        named.reserveCapacity(ids.count)
        for id in ids { if let p = indexPath(of: id) { named.append((id, p)) } }
        for id in wholeSections {
            guard let s = indexOfSection(id) else { continue }
            for (i, item) in _sections[s].items.enumerated() { named.append((item, IndexPath(item: i, section: s))) }
        }
        return Sections(_sections: _sections, _unique: _isUnique, _named: named)
    }

    /// Back to the arrangement `saved` (taken from this snapshot with ``sections(naming:wholeSections:)``
    /// before it was edited): O(sections + the items of the sections changed, added or removed
    /// since). Without a section change, the staged difference is applied in place; with one, the
    /// sections still shared with `saved` are kept and the others put back whole (`_revertSections`).
    /// Only input with a repeated id gets the snapshot built again, O(n).
    public mutating func revert(to saved: Sections) {
        guard saved._unique, _isUnique else { self = saved.snapshot; return }
        if let changed = Snapshot._sectionsChanged(_sections, saved._sections) {
            if changed.isEmpty { return }
            // Back: the named items (and only they) may have left their order here too.
            let hints = saved._named.compactMap { n in indexPath(of: n.id).map { (id: n.id, at: $0) } }
            var reverted = true
            for stage in StagedChangeset._diff(_sections, saved._sections, hints: hints) ?? [] where reverted {
                do { try applyInPlace(stage) } catch { reverted = false }
            }
            if reverted { return }
        } else if _revertSections(saved._sections) {
            return
        }
        self = saved.snapshot
    }

    /// `revert(to:)` after sections were added, removed or moved: every section whose arrays are
    /// not `saved`'s same section's (changed, or new) deleted with its items, the ones left put in
    /// `saved`'s order (their slots and table entries kept), and `saved`'s others inserted back
    /// with their items and versions. False (partly done) when an edit refuses.
    mutating func _revertSections(_ saved: [_Section]) -> Bool {
        var savedIndex = _IDTable(minimumCapacity: saved.count)
        for k in 0..<saved.count where savedIndex.insertIfAbsent(saved[k].id.rawValue, Int64(k)) >= 0 { return false }
        var kept = [_Section?](repeating: nil, count: saved.count)
        do {
            for s in stride(from: _sections.count - 1, through: 0, by: -1) {
                let k = Int(savedIndex.find(_sections[s].id.rawValue))
                if k >= 0 && Snapshot._sharesArrays(_sections[s], saved[k]) {
                    kept[k] = _sections[s]
                } else {
                    try deleteSection(at: s)
                }
            }
            _sections = kept.compactMap { $0 }
            _renumberSections(from: 0)
            for k in 0..<saved.count where kept[k] == nil {
                try insertSection(saved[k].id, items: saved[k].items, at: k)
                _sections[k].versions = saved[k].versions
            }
        } catch { return false }
        return true
    }

    // MARK: Packed positions

    @inline(__always) static func _pack(slot: Int, item: Int) -> Int64 {
        (Int64(slot) &<< 32) | Int64(item)
    }

    /// The current position of the item `key` whose table entry is `packed` (≥ 0): the
    /// stored index corrected by its section's log of unwritten shifts.
    @inline(__always) func _resolve(_ key: UInt64, _ packed: Int64) -> IndexPath {
        let s = _slotIndex[Int(truncatingIfNeeded: packed &>> 32)]
        let stored = Int(truncatingIfNeeded: packed & 0xFFFF_FFFF)
        if _loggedSections == 0 || _sections[s].log.isEmpty { return IndexPath(item: stored, section: s) }
        return IndexPath(item: _sections[s].log.resolve(key, stored: stored), section: s)
    }

    /// `_itemTable.find(key)` with the item index resolved (`slot << 32 | current item`), or -1.
    @inline(__always) func _findResolved(_ key: UInt64) -> Int64 {
        let packed = _itemTable.find(key)
        if packed < 0 || _loggedSections == 0 { return packed }
        let s = _slotIndex[Int(truncatingIfNeeded: packed &>> 32)]
        if _sections[s].log.isEmpty { return packed }
        let stored = Int(truncatingIfNeeded: packed & 0xFFFF_FFFF)
        return Snapshot._pack(slot: _sections[s].slot, item: _sections[s].log.resolve(key, stored: stored))
    }

    /// Whether some section has index shifts not yet written into `_itemTable`.
    var _hasIndexLog: Bool { _loggedSections > 0 }
}

extension Snapshot: Equatable {
    /// Same sections, items and versions in the same order (slots, tables and index logs
    /// are ignored).
    public static func == (a: Snapshot, b: Snapshot) -> Bool {
        guard a._sections.count == b._sections.count else { return false }
        for s in 0..<a._sections.count {
            let x = a._sections[s], y = b._sections[s]
            if x.id != y.id || x.items != y.items || x.versions != y.versions { return false }
        }
        return true
    }
}
