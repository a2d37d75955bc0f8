// Incremental updates. Frames are kept per slot: a section's item arrays change length
// only at the section's end, and the affected sections are re-laid out from the first
// affected item with the same kernels a full prepare uses, so the result is identical to
// preparing from scratch. Grid and flow cells all have one size, so there a move rewrites
// no frame at all (a cross-section move writes one slot in each section).

extension CollectionLayout {
    /// The data source moved one item; `destination` is its index path afterwards (as in
    /// `UICollectionView.moveItem(at:to:)`). Re-lays out from min(source, destination)
    /// in a same-section move, from each index in a cross-section move. Cost: the
    /// re-laid-out items (none for grid/flow), the section's column index for waterfall,
    /// a memmove of the flat arrays for a cross-section move, and O(sections) tops.
    public mutating func itemMoved(from source: IndexPath, to destination: IndexPath) {
        precondition(_isItem(source), "move from a missing item")
        let aspect = _aspect[_sectionStart[source.section] + source.item]
        _removeItem(at: source)
        precondition(destination.section >= 0 && destination.section < numberOfSections
                     && destination.item >= 0 && destination.item <= numberOfItems(inSection: destination.section),
                     "move to an impossible index path")
        _insertItem(aspect, at: destination)
        if source.section == destination.section {
            let s = source.section
            _relayout(s, fromItem: min(source.item, destination.item))
            _recomputeTops(from: s)
        } else {
            _relayout(source.section, fromItem: source.item)
            _relayout(destination.section, fromItem: destination.item)
            _recomputeTops(from: min(source.section, destination.section))
        }
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
        let slot = _sectionStart[s + 1]
        _x.insert(0, at: slot); _y.insert(0, at: slot); _w.insert(0, at: slot); _h.insert(0, at: slot)
        if case .waterfall = configuration.kind {
            _column.insert(0, at: slot); _columnItems.insert(0, at: slot)
        }
        for t in (s + 1)..<_sectionStart.count { _sectionStart[t] += 1 }
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
