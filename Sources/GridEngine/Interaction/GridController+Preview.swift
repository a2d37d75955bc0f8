// The live reorder preview (F9, F30): a copy of the committed arrangement in which the
// dragged block sits at its proposed place, with the end-of-section gap cells shown
// (F27). Places are kept in "rest coordinates": an index among the section's items that
// are not dragged, which is the same in the committed snapshot and in the preview.

extension GridController {
    /// Starts a preview from the committed arrangement (O(n) once: the copy).
    mutating func _rebuildPreview() {
        var l = layout
        l.setShowsGapCells(true)
        _preview = _Preview(snapshot: snapshot, layout: l)
        guard var s = session, s.source != .external, configuration.reorderMode == .insert || s.source == .keyboard else { return }
        if let p = s._placement, _preview!.snapshot.indexOfSection(p.section) != nil {
            _placeBlock(p)
        } else if let first = s.items.first, let ip = snapshot.indexPath(of: first) {
            let here = _Placement(section: snapshot.sectionID(at: ip.section), index: _restIndex(ip))
            s._placement = here
            session = s
            _placeBlock(here)
        }
    }

    /// Whether `item` is carried by a local drag.
    func _isDragged(_ item: ItemID) -> Bool {
        guard let s = session, s.source != .external else { return false }
        for i in s.items where i == item { return true }
        return false
    }

    /// The rest index of a position in the displayed arrangement: how many non-dragged
    /// items of its section come before it. O(dragged items).
    func _restIndex(_ p: IndexPath) -> Int {
        guard let s = session, s.source != .external else { return p.item }
        let snap = displayedSnapshot
        var n = p.item
        for item in s.items {
            if let q = snap.indexPath(of: item), q.section == p.section, q.item < p.item { n -= 1 }
        }
        return n
    }

    /// The number of non-dragged items in a displayed section.
    func _restCount(_ section: Int) -> Int {
        _restIndex(IndexPath(item: displayedSnapshot.itemCount(inSection: section), section: section))
    }

    /// Whether a dragged item sits before `p` in the displayed section.
    func _blockBefore(_ p: IndexPath) -> Bool {
        guard let s = session, s.source != .external else { return false }
        let snap = displayedSnapshot
        for item in s.items {
            if let q = snap.indexPath(of: item), q.section == p.section, q.item < p.item { return true }
        }
        return false
    }

    /// Moves the dragged block in the preview to `placement` (clamped). One item costs a
    /// move of the span between its places; k items are removed and re-inserted.
    mutating func _placeBlock(_ placement: _Placement) {
        guard var preview = _preview, var s = session, !s.items.isEmpty,
              let section = preview.snapshot.indexOfSection(placement.section) else { return }
        _preview = nil   // edit the preview uniquely, without a copy
        if s.items.count == 1 {
            let id = s.items[0]
            if let from = preview.snapshot.indexPath(of: id) {
                let limit = preview.snapshot.itemCount(inSection: section) - (from.section == section ? 1 : 0)
                let to = IndexPath(item: min(max(0, placement.index), limit), section: section)
                if to != from {
                    try? preview.snapshot.moveItem(id, to: to)
                    preview.layout.itemMoved(from: from, to: to)
                }
                s._placement = _Placement(section: placement.section, index: to.item)
            }
        } else {
            var carried: [(id: ItemID, path: IndexPath, aspect: Double, version: UInt32)] = []
            for id in s.items {
                if let p = preview.snapshot.indexPath(of: id) {
                    carried.append((id, p, preview.layout.aspect(of: p), preview.snapshot.version(at: p)))
                }
            }
            let descending = carried.sorted { $0.path > $1.path }
            for c in descending { preview.layout.itemDeleted(at: c.path) }
            try? preview.snapshot.deleteItems(carried.map { $0.id })
            let start = min(max(0, placement.index), preview.snapshot.itemCount(inSection: section))
            for (k, c) in carried.enumerated() {
                let at = IndexPath(item: start + k, section: section)
                try? preview.snapshot.insertItems([c.id], at: at)
                try? preview.snapshot.setVersion(c.version, of: c.id)
                preview.layout.itemInserted(at: at, aspect: c.aspect)
            }
            s._placement = _Placement(section: placement.section, index: start)
        }
        _preview = preview
        session = s
    }

    /// Where the dragged block goes for a target (nil: it stays).
    func _placement(for target: DropTarget) -> _Placement? {
        let snap = displayedSnapshot
        switch target {
        case .insert(let at):
            guard at.section >= 0 && at.section < snap.sectionCount else { return nil }
            return _Placement(section: snap.sectionID(at: at.section), index: at.item)
        case .gapCell(let s):
            guard s >= 0 && s < snap.sectionCount else { return nil }
            return _Placement(section: snap.sectionID(at: s), index: _restCount(s))
        case .none:
            guard snap.sectionCount > 0 else { return nil }
            let last = snap.sectionCount - 1
            return _Placement(section: snap.sectionID(at: last), index: _restCount(last))
        case .item, .outside, .offscreen:
            return nil
        }
    }

    /// What is under a pointer at `location` (view coordinates): an outside target, the
    /// gap cell, an item (swap mode) or an insertion point (rest coordinates). O(log n).
    func _target(at location: Point) -> DropTarget {
        for o in outsideTargets where o.frame.contains(location) { return .outside(id: o.id) }
        guard location.x >= 0 && location.y >= 0 && location.x < viewportSize.width && location.y < viewportSize.height else {
            return .offscreen
        }
        let c = Point(x: location.x + contentOffset.x, y: location.y + contentOffset.y)
        let lay = displayedLayout
        guard let destination = lay.dropDestination(at: c) else { return .none }
        let swap = configuration.reorderMode == .swap && session?.source != .keyboard
        switch destination {
        case .insert(let at):
            if let gap = lay.gapCellFrame(section: at.section), gap.contains(c) { return .gapCell(section: at.section) }
            return .insert(at: IndexPath(item: _restIndex(at), section: at.section))
        case .into(let p):
            let item = displayedSnapshot.itemID(at: p)
            if _isDragged(item) {
                return .insert(at: IndexPath(item: _restIndex(p), section: p.section))
            }
            if swap && !isPlaceholder(item) && session?.source != .external { return .item(p) }
            // Insert mode: the dragged block takes the hovered item's place.
            return .insert(at: IndexPath(item: _restIndex(p) + (_blockBefore(p) ? 1 : 0), section: p.section))
        }
    }
}
