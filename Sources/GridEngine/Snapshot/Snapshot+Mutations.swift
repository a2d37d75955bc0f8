// The edits a host makes to a snapshot. Each validates first and changes nothing when it
// throws. The lookup tables are updated in place: only entries whose position shifted are
// rewritten (the tail of a touched section); section edits only renumber slots. A single
// item move writes at most its own entry and logs the shift per section (`_IndexLog`);
// every other item edit first writes a touched section's log into the table.

extension Snapshot {
    // MARK: Sections

    /// Appends a section with the given items (content version 0).
    public mutating func appendSection(_ id: SectionID, items: [ItemID] = []) throws(SnapshotError) {
        try insertSection(id, items: items, at: _sections.count)
    }

    /// Inserts a section at `index` (`0...sectionCount`).
    /// - Complexity: O(k + sections) for k new items.
    public mutating func insertSection(_ id: SectionID, items: [ItemID] = [], at index: Int) throws(SnapshotError) {
        guard index >= 0 && index <= _sections.count else { throw .sectionIndexOutOfRange(index) }
        if _sectionTable.find(id.rawValue) >= 0 { throw .duplicateSection(id) }
        try _checkNewItems(items)
        var slot = 0
        while slot < _slotIndex.count && _slotIndex[slot] >= 0 { slot += 1 }
        if slot == _slotIndex.count { _slotIndex.append(-1) }
        _ = _sectionTable.insertIfAbsent(id.rawValue, Int64(slot))
        for i in 0..<items.count { _ = _itemTable.insertIfAbsent(items[i].rawValue, Snapshot._pack(slot: slot, item: i)) }
        _sections.insert(_Section(id: id, slot: slot, items: items, versions: [UInt32](repeating: 0, count: items.count)), at: index)
        _renumberSections(from: index)
    }

    /// Deletes the section at `index` with all its items.
    /// - Complexity: O(k + sections) for k items in the section.
    public mutating func deleteSection(at index: Int) throws(SnapshotError) {
        guard index >= 0 && index < _sections.count else { throw .sectionIndexOutOfRange(index) }
        let section = _sections.remove(at: index)
        if !section.log.isEmpty { _loggedSections -= 1 }
        for id in section.items { _itemTable.remove(id.rawValue) }
        _sectionTable.remove(section.id.rawValue)
        _slotIndex[section.slot] = -1
        _renumberSections(from: index)
    }

    /// Deletes the section with this id with all its items.
    public mutating func deleteSection(_ id: SectionID) throws(SnapshotError) {
        guard let index = indexOfSection(id) else { throw .unknownSection(id) }
        try deleteSection(at: index)
    }

    /// Moves a section so that it ends at index `to` (both in `0..<sectionCount`). O(sections).
    public mutating func moveSection(from: Int, to: Int) throws(SnapshotError) {
        guard from >= 0 && from < _sections.count else { throw .sectionIndexOutOfRange(from) }
        guard to >= 0 && to < _sections.count else { throw .sectionIndexOutOfRange(to) }
        if from == to { return }
        let section = _sections.remove(at: from)
        _sections.insert(section, at: to)
        _renumberSections(from: min(from, to))
    }

    // MARK: Items

    /// Appends items at the end of the section at `section`.
    public mutating func appendItems(_ ids: [ItemID], toSection section: Int) throws(SnapshotError) {
        guard section >= 0 && section < _sections.count else { throw .sectionIndexOutOfRange(section) }
        try insertItems(ids, at: IndexPath(item: _sections[section].items.count, section: section))
    }

    /// Inserts items so that the first lands at `indexPath` (its item may equal the count).
    /// - Complexity: O(k + items after the insertion point in that section).
    public mutating func insertItems(_ ids: [ItemID], at indexPath: IndexPath) throws(SnapshotError) {
        let s = indexPath.section
        guard s >= 0 && s < _sections.count else { throw .sectionIndexOutOfRange(s) }
        guard indexPath.item >= 0 && indexPath.item <= _sections[s].items.count else { throw .indexPathOutOfRange(indexPath) }
        try _checkNewItems(ids)
        _flushIndexLog(section: s)
        _sections[s].items.insert(contentsOf: ids, at: indexPath.item)
        _sections[s].versions.insert(contentsOf: [UInt32](repeating: 0, count: ids.count), at: indexPath.item)
        let slot = _sections[s].slot
        for (k, id) in ids.enumerated() {
            _ = _itemTable.insertIfAbsent(id.rawValue, Snapshot._pack(slot: slot, item: indexPath.item + k))
        }
        _renumberItems(section: s, from: indexPath.item + ids.count, to: _sections[s].items.count)
    }

    /// Inserts items at several places of one section in one pass: `ids[k]` (content version
    /// `versions[k]`) lands just before the item that is at index `positions[k]` now, or at the
    /// end for the section's count. `positions` must not decrease; items given the same
    /// position keep their order in `ids`. The same as inserting each run with
    /// `insertItems(_:at:)` and setting its versions, but the section's tail is renumbered
    /// once, from the first position, instead of once per run.
    /// - Complexity: O(k + items after the first position in that section).
    public mutating func insertItems(_ ids: [ItemID], versions: [UInt32], before positions: [Int], inSection s: Int) throws(SnapshotError) {
        guard s >= 0 && s < _sections.count else { throw .sectionIndexOutOfRange(s) }
        guard ids.count == versions.count else { throw .versionCountMismatch(_sections[s].id) }
        guard ids.count == positions.count else { throw .indexPathOutOfRange(IndexPath(item: positions.count, section: s)) }
        if ids.isEmpty { return }
        let count = _sections[s].items.count
        var previous = 0
        for p in positions {
            guard p >= previous && p <= count else { throw .indexPathOutOfRange(IndexPath(item: p, section: s)) }
            previous = p
        }
        try _checkNewItems(ids)
        _flushIndexLog(section: s)
        let k = ids.count
        // Taken out of the section so that each is uniquely referenced while it is rewritten.
        var items = _sections[s].items, vs = _sections[s].versions
        _sections[s].items = []
        _sections[s].versions = []
        items.append(contentsOf: ids) // room for k more, filled from the back below
        vs.append(contentsOf: versions)
        items.withUnsafeMutableBufferPointer { items in
            vs.withUnsafeMutableBufferPointer { vs in
                // Back to front: an old item moves up by the number of new items before it.
                var w = count + k - 1, i = count - 1, j = k - 1
                while j >= 0 {
                    while i >= positions[j] {
                        items[w] = items[i]; vs[w] = vs[i]
                        w -= 1; i -= 1
                    }
                    items[w] = ids[j]; vs[w] = versions[j]
                    w -= 1; j -= 1
                }
            }
        }
        _sections[s].items = items
        _sections[s].versions = vs
        let slot = _sections[s].slot
        for j in 0..<k { _ = _itemTable.insertIfAbsent(ids[j].rawValue, Snapshot._pack(slot: slot, item: positions[j] + j)) }
        _renumberItems(section: s, from: positions[0], to: count + k)
    }

    /// Deletes the items with these ids (repeats in `ids` are ignored).
    /// - Complexity: O(k log k + length of the affected sections).
    public mutating func deleteItems(_ ids: [ItemID]) throws(SnapshotError) {
        var positions: [IndexPath] = []
        positions.reserveCapacity(ids.count)
        for id in ids {
            guard let p = indexPath(of: id) else { throw .unknownItem(id) }
            positions.append(p)
        }
        positions.sort()
        var k = 0
        while k < positions.count {
            let s = positions[k].section
            let first = positions[k].item
            _flushIndexLog(section: s)
            let section = _sections[s]
            var keepItems = Array(section.items[0..<first])
            var keepVersions = Array(section.versions[0..<first])
            keepItems.reserveCapacity(section.items.count)
            keepVersions.reserveCapacity(section.items.count)
            for i in first..<section.items.count {
                if k < positions.count && positions[k].section == s && positions[k].item == i {
                    // Skip this item and any repeat of the same position.
                    while k < positions.count && positions[k].section == s && positions[k].item == i { k += 1 }
                    _itemTable.remove(section.items[i].rawValue)
                    continue
                }
                keepItems.append(section.items[i])
                keepVersions.append(section.versions[i])
            }
            _sections[s].items = keepItems
            _sections[s].versions = keepVersions
            _renumberItems(section: s, from: first, to: keepItems.count)
        }
    }

    /// Moves an item so that it ends at `destination` (an index path of the result: its item
    /// is counted after the item left its old place).
    /// - Complexity: O(items shifted) array moves: between the two places in one section, or
    ///   the tails of both sections. The id table is not renumbered here: the shift is logged
    ///   (`_IndexLog`) and written in batches, each at most about twice the largest
    ///   renumbering one of the logged moves would have done.
    public mutating func moveItem(_ id: ItemID, to destination: IndexPath) throws(SnapshotError) {
        guard let from = indexPath(of: id) else { throw .unknownItem(id) }
        let ds = destination.section
        guard ds >= 0 && ds < _sections.count else { throw .sectionIndexOutOfRange(ds) }
        let limit = _sections[ds].items.count - (ds == from.section ? 1 : 0)
        guard destination.item >= 0 && destination.item <= limit else { throw .indexPathOutOfRange(destination) }
        if from == destination { return }
        let a = from.item, b = destination.item
        if ds == from.section {
            // Rotate only the span between the two places: a drag that reorders a few
            // places costs a few writes even in a 100k-item section. The moved item's entry
            // keeps its slot; the edit pins its index.
            let lo = min(a, b), hi = max(a, b) + 1
            // A flush writes positions as of the log's end, so it must run before the arrays change.
            if _sections[ds].log.mustFlushBefore(editLo: lo, editHi: hi, editSpan: hi - lo, count: _sections[ds].items.count) {
                _flushIndexLog(section: ds)
            }
            _sections[ds].items._rotateOne(from: a, to: b)
            _sections[ds].versions._rotateOne(from: a, to: b)
            _appendIndexEdit(section: ds, .rotate(from: a, to: b, id: id.rawValue), lo: lo, hi: hi, span: hi - lo)
        } else {
            let fs = from.section
            let sourceCount = _sections[fs].items.count - 1
            let destinationCount = _sections[ds].items.count + 1
            if _sections[fs].log.mustFlushBefore(editLo: a, editHi: Int.max, editSpan: sourceCount - a, count: sourceCount) {
                _flushIndexLog(section: fs)
            }
            if _sections[ds].log.mustFlushBefore(editLo: b, editHi: Int.max, editSpan: destinationCount - b, count: destinationCount) {
                _flushIndexLog(section: ds)
            }
            let version = _sections[fs].versions.remove(at: a)
            _sections[fs].items.remove(at: a)
            _sections[ds].items.insert(id, at: b)
            _sections[ds].versions.insert(version, at: b)
            _appendIndexEdit(section: fs, .remove(at: a), lo: a, hi: Int.max, span: sourceCount - a)
            _appendIndexEdit(section: ds, .insert(at: b, id: id.rawValue), lo: b, hi: Int.max, span: destinationCount - b)
            // The slot in the table is always right; the index is pinned by the edit.
            _itemTable.update(id.rawValue, Snapshot._pack(slot: _sections[ds].slot, item: b))
        }
    }

    /// Marks items as changed: their content version goes up by one (wrapping).
    public mutating func reloadItems(_ ids: [ItemID]) throws(SnapshotError) {
        var positions: [IndexPath] = []
        positions.reserveCapacity(ids.count)
        for id in ids {
            guard let p = indexPath(of: id) else { throw .unknownItem(id) }
            positions.append(p)
        }
        for p in positions { _sections[p.section].versions[p.item] &+= 1 }
    }

    /// Sets an item's content version (e.g. the server's revision of the image).
    public mutating func setVersion(_ version: UInt32, of id: ItemID) throws(SnapshotError) {
        guard let p = indexPath(of: id) else { throw .unknownItem(id) }
        _sections[p.section].versions[p.item] = version
    }

    // MARK: Helpers

    /// Throws if any id is already present or repeats within `ids`.
    func _checkNewItems(_ ids: [ItemID]) throws(SnapshotError) {
        if ids.isEmpty { return }
        for id in ids where _itemTable.find(id.rawValue) >= 0 { throw .duplicateItem(id) }
        if ids.count > 1 {
            var seen = _IDTable(minimumCapacity: ids.count)
            for id in ids {
                let existing = seen.insertIfAbsent(id.rawValue, 0)
                if existing >= 0 { throw .duplicateItem(id) }
            }
        }
    }

    /// Writes the logged index shifts of section `s` into the table (the entries of the
    /// log's hull, see `_IndexLog`) and empties the log. Call before changing the section's
    /// arrays by anything but a logged move.
    mutating func _flushIndexLog(section s: Int) {
        if _sections[s].log.isEmpty { return }
        let lo = _sections[s].log.lo
        let hi = min(_sections[s].log.hi, _sections[s].items.count)
        _sections[s].log.removeAll()
        _loggedSections -= 1
        _renumberItems(section: s, from: lo, to: hi)
    }

    /// Logs a move's index shift in section `s` (see `_IndexLog.append`).
    mutating func _appendIndexEdit(section s: Int, _ edit: _IndexLog.Edit, lo: Int, hi: Int, span: Int) {
        if _sections[s].log.isEmpty { _loggedSections += 1 }
        _sections[s].log.append(edit, lo: lo, hi: hi, span: span)
    }

    /// Rewrites the table entries of items `lo..<hi` of section `s` (their index changed).
    mutating func _renumberItems(section s: Int, from lo: Int, to hi: Int) {
        if lo >= hi { return }
        let slot = _sections[s].slot
        let items = _sections[s].items
        items.withUnsafeBufferPointer { ids in
            _itemTable.updateRun(ids, from: lo, to: hi) { Snapshot._pack(slot: slot, item: $0) }
        }
    }

    /// Points the slots of sections `from...` at their current indices.
    mutating func _renumberSections(from index: Int) {
        for s in index..<_sections.count { _slotIndex[_sections[s].slot] = s }
    }
}

extension Array {
    /// Moves the element at `from` to `to`, shifting only the elements between. O(|to − from|).
    mutating func _rotateOne(from: Int, to: Int) {
        if from == to { return }
        withUnsafeMutableBufferPointer { b in
            let moving = b[from]
            if from < to {
                for k in from..<to { b[k] = b[k + 1] }
            } else {
                var k = from
                while k > to { b[k] = b[k - 1]; k -= 1 }
            }
            b[to] = moving
        }
    }
}
