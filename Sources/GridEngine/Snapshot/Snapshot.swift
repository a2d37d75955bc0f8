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
/// O(1): an id → position hash table is built lazily (O(n)) on the first lookup after a
/// mutation that shifts positions, so a burst of edits pays for one rebuild.
/// Not `Sendable`: the lazy table is filled on first use without a lock.
public struct Snapshot {
    struct _Section: Equatable {
        var id: SectionID
        var items: [ItemID]
        var versions: [UInt32]
    }

    var _sections: [_Section]
    /// Lazily built lookup tables; replaced (not mutated) when shared, so copies stay valid.
    var _index: _SnapshotIndex

    /// An empty snapshot (no sections).
    public init() {
        _sections = []
        _index = _SnapshotIndex(items: _IDTable(minimumCapacity: 0), sections: _IDTable(minimumCapacity: 0))
    }

    /// A snapshot of the given sections, all content versions 0.
    /// - Throws: `.duplicateSection` / `.duplicateItem` on a repeated id.
    /// - Complexity: O(n) for n items.
    public init(_ sections: [(id: SectionID, items: [ItemID])]) throws(SnapshotError) {
        var built: [_Section] = []
        built.reserveCapacity(sections.count)
        for s in sections {
            built.append(_Section(id: s.id, items: s.items, versions: [UInt32](repeating: 0, count: s.items.count)))
        }
        try self.init(_validating: built)
    }

    /// A snapshot of the given sections with explicit content versions per item.
    /// - Throws: `.duplicateSection` / `.duplicateItem` on a repeated id,
    ///   `.versionCountMismatch` when a section's arrays differ in length.
    public init(_ sections: [(id: SectionID, items: [ItemID], versions: [UInt32])]) throws(SnapshotError) {
        var built: [_Section] = []
        built.reserveCapacity(sections.count)
        for s in sections {
            guard s.items.count == s.versions.count else { throw .versionCountMismatch(s.id) }
            built.append(_Section(id: s.id, items: s.items, versions: s.versions))
        }
        try self.init(_validating: built)
    }

    init(_validating sections: [_Section]) throws(SnapshotError) {
        _sections = sections
        _index = _SnapshotIndex()
        // Building the tables is the duplicate check; keep them, they are valid.
        let sectionTable = try _buildSectionTable()
        let itemTable = try _buildItemTable()
        _index = _SnapshotIndex(items: itemTable, sections: sectionTable)
    }

    /// A snapshot that skips the duplicate check: for tests of the diff's own checks.
    init(_unchecked sections: [(id: SectionID, items: [ItemID])]) {
        _sections = sections.map { _Section(id: $0.id, items: $0.items, versions: [UInt32](repeating: 0, count: $0.items.count)) }
        _index = _SnapshotIndex()
    }

    // MARK: Reading

    /// The number of sections.
    @inlinable public var sectionCount: Int { _sectionCount }
    @usableFromInline var _sectionCount: Int { _sections.count }

    /// The total number of items over all sections. O(sections).
    public var itemCount: Int {
        var n = 0
        for s in _sections { n += s.items.count }
        return n
    }

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

    /// Where the item is, or nil. O(1) expected (after an O(n) rebuild following a shifting edit).
    public func indexPath(of id: ItemID) -> IndexPath? {
        let packed = _itemTable().find(id.rawValue)
        if packed < 0 { return nil }
        return _unpack(packed)
    }

    /// Whether the item is in the snapshot. O(1) expected.
    public func contains(_ id: ItemID) -> Bool { _itemTable().find(id.rawValue) >= 0 }

    /// The content version of an item, or nil when absent.
    public func version(of id: ItemID) -> UInt32? {
        guard let p = indexPath(of: id) else { return nil }
        return _sections[p.section].versions[p.item]
    }

    /// The index of the section with this id, or nil. O(1) expected.
    public func indexOfSection(_ id: SectionID) -> Int? {
        let i = _sectionTable().find(id.rawValue)
        return i < 0 ? nil : Int(i)
    }

    // MARK: Lookup tables

    @inline(__always) static func _pack(section: Int, item: Int) -> Int64 {
        (Int64(section) &<< 32) | Int64(item)
    }

    @inline(__always) func _unpack(_ packed: Int64) -> IndexPath {
        IndexPath(item: Int(truncatingIfNeeded: packed & 0xFFFF_FFFF), section: Int(truncatingIfNeeded: packed &>> 32))
    }

    func _itemTable() -> _IDTable {
        if let t = _index.items { return t }
        // Duplicates are impossible here (construction and mutations refuse them), so the
        // rebuild cannot fail; `_buildItemTable` still reports them for `_unchecked` input.
        let t = (try? _buildItemTable()) ?? _IDTable(minimumCapacity: 0)
        _index.items = t
        return t
    }

    func _sectionTable() -> _IDTable {
        if let t = _index.sections { return t }
        let t = (try? _buildSectionTable()) ?? _IDTable(minimumCapacity: 0)
        _index.sections = t
        return t
    }

    func _buildItemTable() throws(SnapshotError) -> _IDTable {
        var table = _IDTable(minimumCapacity: itemCount)
        for (s, section) in _sections.enumerated() {
            for (i, id) in section.items.enumerated() {
                let existing = table.insertIfAbsent(id.rawValue, Snapshot._pack(section: s, item: i))
                if existing >= 0 { throw .duplicateItem(id) }
            }
        }
        return table
    }

    func _buildSectionTable() throws(SnapshotError) -> _IDTable {
        var table = _IDTable(minimumCapacity: _sections.count)
        for (s, section) in _sections.enumerated() {
            let existing = table.insertIfAbsent(section.id.rawValue, Int64(s))
            if existing >= 0 { throw .duplicateSection(section.id) }
        }
        return table
    }
}

/// The lazily built lookup tables of a ``Snapshot``; `nil` means "rebuild on next lookup".
final class _SnapshotIndex {
    var items: _IDTable?
    var sections: _IDTable?

    init(items: _IDTable? = nil, sections: _IDTable? = nil) {
        self.items = items
        self.sections = sections
    }
}

extension Snapshot: Equatable {
    /// Same sections, items and versions in the same order (lookup tables are ignored).
    public static func == (a: Snapshot, b: Snapshot) -> Bool { a._sections == b._sections }
}
