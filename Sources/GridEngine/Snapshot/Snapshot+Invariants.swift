extension Snapshot {
    /// Traps if the snapshot breaks an invariant: parallel item/version arrays, unique
    /// section and item ids, and built lookup tables that agree with the positions.
    /// Called by tests after every edit (swift-collections style). O(n).
    public func checkInvariants() {
        var sectionIDs = _IDTable(minimumCapacity: _sections.count)
        var itemIDs = _IDTable(minimumCapacity: itemCount)
        for (s, section) in _sections.enumerated() {
            precondition(section.items.count == section.versions.count, "items and versions differ in length")
            precondition(sectionIDs.insertIfAbsent(section.id.rawValue, Int64(s)) < 0, "duplicate section id")
            for (i, id) in section.items.enumerated() {
                precondition(itemIDs.insertIfAbsent(id.rawValue, Snapshot._pack(section: s, item: i)) < 0, "duplicate item id")
            }
        }
        if let table = _index.items {
            precondition(table.count == itemIDs.count, "item table has stale entries")
            for (s, section) in _sections.enumerated() {
                for (i, id) in section.items.enumerated() {
                    precondition(table.find(id.rawValue) == Snapshot._pack(section: s, item: i), "item table is stale")
                }
            }
        }
        if let table = _index.sections {
            precondition(table.count == _sections.count, "section table has stale entries")
            for (s, section) in _sections.enumerated() {
                precondition(table.find(section.id.rawValue) == Int64(s), "section table is stale")
            }
        }
    }
}
