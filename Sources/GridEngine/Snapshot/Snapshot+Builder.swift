// A snapshot handed over in parts: a host that reads a whole arrangement again (a reload of a
// big gallery) gives it a few thousand items a call, so that no single call is O(n).

extension Snapshot {
    /// Builds a snapshot from its sections in order, each section's items in order, over as many
    /// calls as the host likes (a section may be split between calls). ``snapshot()`` answers
    /// what `Snapshot.init(_:)` would have built from the same sections. Each
    /// ``append(section:items:versions:)`` is O(its items).
    public struct Builder: Sendable {
        var _sections: [_Section] = []
        var _itemTable: _IDTable
        var _sectionTable: _IDTable

        /// `expectedItems` and `expectedSections` size the id tables (no growth on the way).
        public init(expectedItems: Int = 0, expectedSections: Int = 0) {
            _itemTable = _IDTable(minimumCapacity: max(0, expectedItems))
            _sectionTable = _IDTable(minimumCapacity: max(0, expectedSections))
            _sections.reserveCapacity(max(0, expectedSections))
        }

        /// Items appended so far.
        public var itemCount: Int { _itemTable.count }
        /// Sections begun so far.
        public var sectionCount: Int { _sections.count }

        /// Appends `items` (with their content versions) to the section `id`: to the last
        /// section begun when it has this id, else to a new section after it (no items: an empty
        /// section). After a throw the builder holds part of the call: discard it.
        /// - Throws: `.duplicateSection` for a section id begun before, `.duplicateItem` for
        ///   an item appended before, `.versionCountMismatch` when the arrays differ in length.
        public mutating func append(section id: SectionID, items: [ItemID], versions: [UInt32]) throws(SnapshotError) {
            guard items.count == versions.count else { throw .versionCountMismatch(id) }
            if _sections.isEmpty || _sections[_sections.count - 1].id != id {
                let slot = _sections.count
                guard _sectionTable.insertIfAbsent(id.rawValue, Int64(slot)) < 0 else { throw .duplicateSection(id) }
                _sections.append(_Section(id: id, slot: slot, items: [], versions: []))
            }
            let s = _sections.count - 1
            var i = _sections[s].items.count
            for item in items {
                guard _itemTable.insertIfAbsent(item.rawValue, Snapshot._pack(slot: s, item: i)) < 0 else { throw .duplicateItem(item) }
                i += 1
            }
            _sections[s].items.append(contentsOf: items)
            _sections[s].versions.append(contentsOf: versions)
        }

        /// The snapshot of everything appended. O(sections).
        public consuming func snapshot() -> Snapshot {
            var s = Snapshot()
            s._slotIndex = Array(0..<_sections.count)
            s._sections = _sections
            s._itemTable = _itemTable
            s._sectionTable = _sectionTable
            return s
        }
    }
}
