extension Snapshot {
    /// Traps if the snapshot breaks an invariant: parallel item/version arrays, unique
    /// section and item ids, and lookup tables that agree with every position once the
    /// sections' index logs are replayed (and, without the log, outside the log's hull:
    /// see `_IndexLog`), with each log within its bounds.
    /// Called by tests after every edit (swift-collections style). O(n).
    public func checkInvariants() {
        var seenSections = _IDTable(minimumCapacity: _sections.count)
        var seenItems = _IDTable(minimumCapacity: itemCount)
        var total = 0
        var liveSlots = 0
        for slot in _slotIndex where slot >= 0 { liveSlots += 1 }
        precondition(liveSlots == _sections.count, "slot table has stale entries")
        precondition(_sectionTable.count == _sections.count, "section table has stale entries")
        var logged = 0
        for section in _sections where !section.log.isEmpty { logged += 1 }
        precondition(_loggedSections == logged, "count of sections with an index log is stale")
        for (s, section) in _sections.enumerated() {
            precondition(section.items.count == section.versions.count, "items and versions differ in length")
            precondition(seenSections.insertIfAbsent(section.id.rawValue, 0) < 0, "duplicate section id")
            precondition(_slotIndex[section.slot] == s, "slot points at the wrong section")
            precondition(_sectionTable.find(section.id.rawValue) == Int64(section.slot), "section table is stale")
            let log = section.log
            precondition(log.edits.count <= _IndexLog.capacity, "index log over capacity")
            let hullLo = log.isEmpty ? 0 : log.lo
            let hullHi = log.isEmpty ? 0 : min(log.hi, section.items.count)
            if !log.isEmpty {
                precondition(hullHi - hullLo <= _IndexLog.slack * log.maxSpan + _IndexLog.slackConstant, "index log hull too wide")
            }
            for (i, id) in section.items.enumerated() {
                precondition(seenItems.insertIfAbsent(id.rawValue, 0) < 0, "duplicate item id")
                let packed = _itemTable.find(id.rawValue)
                precondition(packed >= 0 && packed &>> 32 == Int64(section.slot), "item table has the wrong slot")
                precondition(_findResolved(id.rawValue) == Snapshot._pack(slot: section.slot, item: i), "item table is stale")
                if i < hullLo || i >= hullHi {
                    precondition(packed == Snapshot._pack(slot: section.slot, item: i), "item table is stale outside the index log's hull")
                }
            }
            total += section.items.count
        }
        precondition(_itemTable.count == total, "item table has stale entries")
    }
}
