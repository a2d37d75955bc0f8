// Incremental updates. Frames are kept per slot: a section's item arrays change length
// only at the section's end, and the affected sections are re-laid out from the first
// affected item with the same kernels a full prepare uses, so the result is identical to
// preparing from scratch. Grid and flow cells all have one size, so there a move rewrites
// no frame at all (a cross-section move writes one slot in each section).

extension CollectionLayout {
    /// The data source moved one item; `destination` is its index path afterwards (as in
    /// `UICollectionView.moveItem(at:to:)`). Re-lays out from min(source, destination)
    /// in a same-section move, from each index in a cross-section move. Cost: the
    /// re-laid-out items (one slot for grid/flow), the section's column index for
    /// waterfall, shifting the flat arrays between the two positions, O(sections) tops.
    public mutating func itemMoved(from source: IndexPath, to destination: IndexPath) {
        precondition(_isItem(source), "move from a missing item")
        let a = source.section, b = destination.section
        let countAfterRemoval = numberOfItems(inSection: b) - (a == b ? 1 : 0)
        precondition(b >= 0 && b < numberOfSections && destination.item >= 0 && destination.item <= countAfterRemoval,
                     "move to an impossible index path")
        let from = _sectionStart[a] + source.item
        if a == b {
            // Same section: the slots stay; only the aspects between the two indices rotate.
            _moveElement(&_aspect, from: from, to: _sectionStart[a] + destination.item)
            if !_hint.isEmpty { _moveElement(&_hint, from: from, to: _sectionStart[a] + destination.item) }
            _relayout(a, fromItem: min(source.item, destination.item))
            _recomputeTops(from: a)
            return
        }
        // Across sections: the aspect and one frame slot (the source section's last) travel
        // to the destination; everything between shifts by one (a memmove of that span).
        let to = b > a ? _sectionStart[b] - 1 + destination.item : _sectionStart[b] + destination.item
        _moveElement(&_aspect, from: from, to: to)
        if !_hint.isEmpty { _moveElement(&_hint, from: from, to: to) }
        let slotFrom = _sectionStart[a + 1] - 1
        let slotTo = b > a ? _sectionStart[b + 1] - 1 : _sectionStart[b + 1]
        _moveElement(&_x, from: slotFrom, to: slotTo); _moveElement(&_y, from: slotFrom, to: slotTo)
        _moveElement(&_w, from: slotFrom, to: slotTo); _moveElement(&_h, from: slotFrom, to: slotTo)
        if case .waterfall = configuration.kind {
            _moveElement(&_column, from: slotFrom, to: slotTo)
            _moveElement(&_columnItems, from: slotFrom, to: slotTo)
        }
        if b > a { for t in (a + 1)...b { _sectionStart[t] -= 1 } } else { for t in (b + 1)...a { _sectionStart[t] += 1 } }
        _relayout(a, fromItem: source.item)
        _relayout(b, fromItem: destination.item)
        _recomputeTops(from: min(a, b))
    }

    /// An item was inserted at `indexPath` with this aspect. Re-lays out from there.
    public mutating func itemInserted(at indexPath: IndexPath, aspect: Double) {
        precondition(indexPath.section >= 0 && indexPath.section < numberOfSections
                     && indexPath.item >= 0 && indexPath.item <= numberOfItems(inSection: indexPath.section),
                     "insert at an impossible index path")
        _insertItem(aspect, at: indexPath)
        _relayout(indexPath.section, fromItem: indexPath.item)
        _recomputeTops(from: indexPath.section)
    }

    /// The item at `indexPath` was deleted. Re-lays out from there.
    public mutating func itemDeleted(at indexPath: IndexPath) {
        precondition(_isItem(indexPath), "delete of a missing item")
        _removeItem(at: indexPath)
        _relayout(indexPath.section, fromItem: indexPath.item)
        _recomputeTops(from: indexPath.section)
    }

    /// An item's aspect became known or changed (an image finished loading, F19).
    public mutating func setAspect(_ aspect: Double, at indexPath: IndexPath) {
        precondition(_isItem(indexPath), "aspect for a missing item")
        _aspect[_sectionStart[indexPath.section] + indexPath.item] = aspect
        if configuration.kind.hasUniformCells { return }
        _relayout(indexPath.section, fromItem: indexPath.item)
        _recomputeTops(from: indexPath.section)
    }

    // MARK: - Internals

    func _isItem(_ ip: IndexPath) -> Bool {
        ip.section >= 0 && ip.section < numberOfSections && ip.item >= 0 && ip.item < numberOfItems(inSection: ip.section)
    }

    /// Removes the item's aspect and the section's last frame slot.
    mutating func _removeItem(at ip: IndexPath) {
        let s = ip.section
        _aspect.remove(at: _sectionStart[s] + ip.item)
        if !_hint.isEmpty { _hint.remove(at: _sectionStart[s] + ip.item) }
        let slot = _sectionStart[s + 1] - 1
        _x.remove(at: slot); _y.remove(at: slot); _w.remove(at: slot); _h.remove(at: slot)
        if case .waterfall = configuration.kind {
            _column.remove(at: slot); _columnItems.remove(at: slot)
        }
        for t in (s + 1)..<_sectionStart.count { _sectionStart[t] -= 1 }
    }

    /// Inserts the item's aspect and a frame slot at the section's end.
    mutating func _insertItem(_ aspect: Double, at ip: IndexPath) {
        let s = ip.section
        _aspect.insert(aspect, at: _sectionStart[s] + ip.item)
        if !_hint.isEmpty { _hint.insert(-1, at: _sectionStart[s] + ip.item) }
        let slot = _sectionStart[s + 1]
        _x.insert(0, at: slot); _y.insert(0, at: slot); _w.insert(0, at: slot); _h.insert(0, at: slot)
        if case .waterfall = configuration.kind {
            _column.insert(0, at: slot); _columnItems.insert(0, at: slot)
        }
        for t in (s + 1)..<_sectionStart.count { _sectionStart[t] += 1 }
    }

    /// Moves one element, shifting those between by one. O(|from - to|).
    func _moveElement<T>(_ array: inout [T], from i: Int, to j: Int) {
        if i == j { return }
        array.withUnsafeMutableBufferPointer { b in
            let v = b[i]
            if i < j { for k in i..<j { b[k] = b[k + 1] } } else { for k in stride(from: i, to: j, by: -1) { b[k] = b[k - 1] } }
            b[j] = v
        }
    }

    /// Re-lays out section s from item `k` (clamped), then its gap cell and height.
    /// Grid and flow frames depend only on the slot, so only the last slot (which may be
    /// new) is written.
    mutating func _relayout(_ s: Int, fromItem k: Int) {
        let n = numberOfItems(inSection: s)
        let from = configuration.kind.hasUniformCells ? max(0, n - 1) : max(0, min(k, n))
        _layoutSection(s, from: from)
        _finishSection(s)
    }
}

extension CollectionLayout {
    /// Waterfall only: while a drag passes (issue 13), every item keeps the column it has now
    /// where the layout allows — it is placed in its own column instead of the shortest while
    /// that column is at most one column width taller — so a block moving through the grid
    /// does not send the items after it to other columns. Items inserted meanwhile have no
    /// pinned column. A full prepare (a resize, a new configuration) unpins.
    public mutating func pinColumns() {
        guard case .waterfall = configuration.kind else { return }
        _hint = _column
        _hintFirst = [Int](repeating: Int.max, count: numberOfSections)
    }

    /// Back to the canonical waterfall (each item in the shortest column): the sections are
    /// re-laid out from their first item that stayed in its pinned column instead.
    public mutating func unpinColumns() {
        guard !_hint.isEmpty else { return }
        let firsts = _hintFirst
        _hint = []; _hintFirst = []
        var top = Int.max
        for s in 0..<min(firsts.count, numberOfSections) where firsts[s] != Int.max {
            _layoutSection(s, from: firsts[s])
            _finishSection(s)
            top = min(top, s)
        }
        if top != Int.max { _recomputeTops(from: top) }
    }

    /// Whether columns are pinned (a drag passes).
    public var columnsPinned: Bool { !_hint.isEmpty }
}
