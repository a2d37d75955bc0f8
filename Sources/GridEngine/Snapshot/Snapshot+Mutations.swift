// The edits a host makes to a snapshot. Each validates first and changes nothing when it
// throws. Positions shift on most edits, so they drop the item lookup table (rebuilt on
// the next lookup); appends keep it and add the new entries.

extension Snapshot {
    // MARK: Sections

    /// Appends a section with the given items (content version 0).
    public mutating func appendSection(_ id: SectionID, items: [ItemID] = []) throws(SnapshotError) {
        try insertSection(id, items: items, at: _sections.count)
    }

    /// Inserts a section at `index` (`0...sectionCount`).
    /// - Complexity: O(k + sections) for k new items, plus a lazy rebuild when not appending.
    public mutating func insertSection(_ id: SectionID, items: [ItemID] = [], at index: Int) throws(SnapshotError) {
        guard index >= 0 && index <= _sections.count else { throw .sectionIndexOutOfRange(index) }
        if indexOfSection(id) != nil { throw .duplicateSection(id) }
        try _checkNewItems(items)
        let appending = index == _sections.count
        _sections.insert(_Section(id: id, items: items, versions: [UInt32](repeating: 0, count: items.count)), at: index)
        if appending {
            let box = _uniqueIndex()
            _ = box.sections?.insertIfAbsent(id.rawValue, Int64(index))
            if box.items != nil {
                for (i, item) in items.enumerated() {
                    _ = box.items!.insertIfAbsent(item.rawValue, Snapshot._pack(section: index, item: i))
                }
            }
        } else {
            _invalidate(sections: true)
        }
    }

    /// Deletes the section at `index` with all its items.
    public mutating func deleteSection(at index: Int) throws(SnapshotError) {
        guard index >= 0 && index < _sections.count else { throw .sectionIndexOutOfRange(index) }
        _sections.remove(at: index)
        _invalidate(sections: true)
    }

    /// Deletes the section with this id with all its items.
    public mutating func deleteSection(_ id: SectionID) throws(SnapshotError) {
        guard let index = indexOfSection(id) else { throw .unknownSection(id) }
        try deleteSection(at: index)
    }

    /// Moves a section so that it ends at index `to` (both in `0..<sectionCount`).
    public mutating func moveSection(from: Int, to: Int) throws(SnapshotError) {
        guard from >= 0 && from < _sections.count else { throw .sectionIndexOutOfRange(from) }
        guard to >= 0 && to < _sections.count else { throw .sectionIndexOutOfRange(to) }
        if from == to { return }
        let section = _sections.remove(at: from)
        _sections.insert(section, at: to)
        _invalidate(sections: true)
    }

    // MARK: Items

    /// Appends items at the end of the section at `section`.
    public mutating func appendItems(_ ids: [ItemID], toSection section: Int) throws(SnapshotError) {
        guard section >= 0 && section < _sections.count else { throw .sectionIndexOutOfRange(section) }
        try insertItems(ids, at: IndexPath(item: _sections[section].items.count, section: section))
    }

    /// Inserts items so that the first lands at `indexPath` (its item may equal the count).
    public mutating func insertItems(_ ids: [ItemID], at indexPath: IndexPath) throws(SnapshotError) {
        let s = indexPath.section
        guard s >= 0 && s < _sections.count else { throw .sectionIndexOutOfRange(s) }
        let count = _sections[s].items.count
        guard indexPath.item >= 0 && indexPath.item <= count else { throw .indexPathOutOfRange(indexPath) }
        try _checkNewItems(ids)
        _sections[s].items.insert(contentsOf: ids, at: indexPath.item)
        _sections[s].versions.insert(contentsOf: [UInt32](repeating: 0, count: ids.count), at: indexPath.item)
        if indexPath.item == count {
            let box = _uniqueIndex()
            if box.items != nil {
                for (i, id) in ids.enumerated() {
                    _ = box.items!.insertIfAbsent(id.rawValue, Snapshot._pack(section: s, item: count + i))
                }
            }
        } else {
            _invalidate(sections: false)
        }
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
            var keepItems: [ItemID] = []
            var keepVersions: [UInt32] = []
            let section = _sections[s]
            keepItems.reserveCapacity(section.items.count)
            keepVersions.reserveCapacity(section.items.count)
            for i in 0..<section.items.count {
                if k < positions.count && positions[k].section == s && positions[k].item == i {
                    // Skip this item and any repeat of the same position.
                    while k < positions.count && positions[k].section == s && positions[k].item == i { k += 1 }
                    continue
                }
                keepItems.append(section.items[i])
                keepVersions.append(section.versions[i])
            }
            _sections[s].items = keepItems
            _sections[s].versions = keepVersions
        }
        if !positions.isEmpty { _invalidate(sections: false) }
    }

    /// Moves an item so that it ends at `destination` (an index path of the result: its item
    /// is counted after the item left its old place).
    public mutating func moveItem(_ id: ItemID, to destination: IndexPath) throws(SnapshotError) {
        guard let from = indexPath(of: id) else { throw .unknownItem(id) }
        let ds = destination.section
        guard ds >= 0 && ds < _sections.count else { throw .sectionIndexOutOfRange(ds) }
        let limit = _sections[ds].items.count - (ds == from.section ? 1 : 0)
        guard destination.item >= 0 && destination.item <= limit else { throw .indexPathOutOfRange(destination) }
        if from == destination { return }
        let version = _sections[from.section].versions.remove(at: from.item)
        _sections[from.section].items.remove(at: from.item)
        _sections[ds].items.insert(id, at: destination.item)
        _sections[ds].versions.insert(version, at: destination.item)
        _invalidate(sections: false)
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
        let table = _itemTable()
        for id in ids where table.find(id.rawValue) >= 0 { throw .duplicateItem(id) }
        if ids.count > 1 {
            var seen = _IDTable(minimumCapacity: ids.count)
            for id in ids {
                let existing = seen.insertIfAbsent(id.rawValue, 0)
                if existing >= 0 { throw .duplicateItem(id) }
            }
        }
    }

    /// The index box, copied first if another snapshot shares it.
    mutating func _uniqueIndex() -> _SnapshotIndex {
        if !isKnownUniquelyReferenced(&_index) {
            _index = _SnapshotIndex(items: _index.items, sections: _index.sections)
        }
        return _index
    }

    mutating func _invalidate(sections: Bool) {
        if isKnownUniquelyReferenced(&_index) {
            _index.items = nil
            if sections { _index.sections = nil }
        } else {
            _index = _SnapshotIndex(items: nil, sections: sections ? nil : _index.sections)
        }
    }
}
