// The live reorder preview (F9, F30). The layout itself is edited in place,
// incrementally, to show the dragged block at its proposed place, and put back when the
// drag ends; the committed snapshot stays as the host knows it, and the order on screen is
// derived from it (``_DisplayOrder``). Places are kept in "rest coordinates": an index
// among the section's items that are not dragged, the same before and after the drop.
//
// A move shows the dragged items themselves at their place. A copy (the proposal's
// operation is copy: Option held, F29) shows the originals where they are and opens slots
// for the copies at the place, carrying the ids the copies will get; both kinds use the
// same rest coordinates, so switching the modifier keeps the place. A copy's slots open
// only once the pointer has placed the block: until the pointer leaves the originals a
// copy shows the collection as it is, as a move does at lift (see `_placedByPointer`), so
// the pointer aims at the cells it sees and the slot follows it exactly as a move does.
// After a reflow the block holds its place until the pointer moves on (`_retarget`), and
// the drop commits exactly the place shown (a copy whose slots never opened: nothing).

extension GridController {
    /// The order on screen.
    var _order: _DisplayOrder { _DisplayOrder(base: snapshot, block: _block) }

    /// Whether the session shows its items as a block that others shift around.
    func _showsBlock(_ s: DragSession) -> Bool {
        (s.source == .local && configuration.reorderMode == .insert) || s.source == .keyboard
    }

    /// A drag starts showing: gap cells appear (F27); an insert-mode block takes its place.
    mutating func _beginDragDisplay() {
        layout.setShowsGapCells(true)
        layout.pinColumns()   // waterfall: the others keep their columns while the block passes
        _reattachBlock()
    }

    /// The drag stops showing: the layout goes back to the committed order, no gap cells.
    mutating func _endDragDisplay() {
        _applyBlock(nil)
        layout.unpinColumns()
        layout.setShowsGapCells(false)
    }

    /// Puts the session's block back at its placement (after an edit of the committed
    /// arrangement, or at lift), clamped; or at the primary item's own place.
    mutating func _reattachBlock() {
        guard var s = session, s.isDragging, _showsBlock(s), !s.items.isEmpty else { return }
        if let p = s._placement, snapshot.indexOfSection(p.section) != nil {
            _placeBlock(p)
        } else if let first = s.items.first, let ip = snapshot.indexPath(of: first) {
            let here = _Placement(section: snapshot.sectionID(at: ip.section), index: _restIndexInBase(ip, s))
            s._placement = here
            session = s
            _placeBlock(here)
        }
    }

    /// The rest index of a committed position, counting the session's items as dragged.
    func _restIndexInBase(_ ip: IndexPath, _ s: DragSession) -> Int {
        var n = ip.item
        for item in s.items { if let q = snapshot.indexPath(of: item), q.section == ip.section, q.item < ip.item { n -= 1 } }
        return n
    }

    /// Whether `item` is carried by a local drag.
    func _isDragged(_ item: ItemID) -> Bool {
        guard let s = session, s.source != .external else { return false }
        for i in s.items where i == item { return true }
        return false
    }

    /// Whether `item` is shown in the dragged block's slots: the dragged items of a move,
    /// the copies' slots of a copy preview (whose originals stay in place); after a copy
    /// was dropped, the copies (their cells wait for the flying preview).
    func _isSlot(_ item: ItemID) -> Bool {
        guard let s = session, s.source != .external else { return false }
        if let b = _block, b.isCopy { return b.copies.contains(item) }
        if s.phase == .dropping && s.outcome == .copy { return s._copyIDs.contains(item) }
        return _isDragged(item)
    }

    /// The rest index of a position on screen: how many items of its section that are
    /// neither dragged nor a copy's slot come before it. O(dragged items²).
    func _restIndex(_ p: IndexPath) -> Int {
        guard let s = session, s.source != .external, !s.items.isEmpty else { return p.item }
        let order = _order
        var n = p.item
        for item in s.items {
            if let q = order.indexPath(of: item), q.section == p.section, q.item < p.item { n -= 1 }
        }
        if let b = _block, b.isCopy {
            for item in b.copies {
                if let q = order.indexPath(of: item), q.section == p.section, q.item < p.item { n -= 1 }
            }
        }
        return n
    }

    /// The number of non-dragged items in a section.
    func _restCount(_ section: Int) -> Int {
        _restIndex(IndexPath(item: _order.itemCount(inSection: section), section: section))
    }

    /// Whether the block (the dragged items, or a copy preview's slots) sits before `p`
    /// on screen.
    func _blockBefore(_ p: IndexPath) -> Bool {
        guard let s = session, s.source != .external else { return false }
        let order = _order
        let shown = _block.map { $0.isCopy ? $0.copies : s.items } ?? s.items
        for item in shown {
            if let q = order.indexPath(of: item), q.section == p.section, q.item < p.item { return true }
        }
        return false
    }

    /// Moves the dragged block to `placement` (clamped) on screen: the layout moves one
    /// item incrementally (k items: removed and re-inserted), the snapshot is untouched.
    mutating func _placeBlock(_ placement: _Placement) {
        guard var s = session, !s.items.isEmpty, let section = snapshot.indexOfSection(placement.section) else { return }
        let probe = _DisplayOrder(base: snapshot, block: _Block(items: s.items, section: placement.section, start: 0))
        var rest = snapshot.itemCount(inSection: section)
        for p in probe.dragged where p.section == section { rest -= 1 }
        let start = min(max(0, placement.index), rest)
        var copies: [ItemID] = []
        if s._copyPreview && s.source == .local {
            while s._copyIDs.count < s.items.count { s._copyIDs.append(_generateID()) }
            copies = Array(s._copyIDs.prefix(s.items.count))
        }
        _applyBlock(_Block(items: s.items, section: placement.section, start: start, copies: copies,
                           slotsOpen: copies.isEmpty || s._placedByPointer))
        s._placement = _Placement(section: placement.section, index: start)
        session = s
    }

    /// Edits the layout from the order of `_block` to the order of `new`. Items outside
    /// both blocks keep their relative order, so only the blocks' items move.
    mutating func _applyBlock(_ new: _Block?) {
        if _block == new { return }
        let old = _order
        let next = _DisplayOrder(base: snapshot, block: new)
        var moving = old.items
        for id in next.items where !moving.contains(id) { moving.append(id) }
        if moving.count == 1, let from = old.indexPath(of: moving[0]), let to = next.indexPath(of: moving[0]) {
            // One item (the usual drag): rotate only the span between its two places.
            if from != to { layout.itemMoved(from: from, to: to) }
            _block = new
            return
        }
        var leaving: [(path: IndexPath, aspect: Double, id: ItemID)] = []
        for id in moving {
            if let p = old.indexPath(of: id) { leaving.append((p, layout.aspect(of: p), id)) }
        }
        // A copy's slot that appears takes its original's aspect (read before any edit).
        var slotAspects: [(id: ItemID, aspect: Double)] = []
        if let b = new, b.isCopy {
            for (k, id) in b.copies.enumerated() where k < b.items.count && old.indexPath(of: id) == nil {
                if let p = old.indexPath(of: b.items[k]) { slotAspects.append((id, layout.aspect(of: p))) }
            }
        }
        leaving.sort { $0.path > $1.path }
        for l in leaving { layout.itemDeleted(at: l.path) }
        var arriving: [(path: IndexPath, aspect: Double)] = []
        for l in leaving { if let p = next.indexPath(of: l.id) { arriving.append((p, l.aspect)) } }
        for a in slotAspects { if let p = next.indexPath(of: a.id) { arriving.append((p, a.aspect)) } }
        arriving.sort { $0.path < $1.path }
        for a in arriving { layout.itemInserted(at: a.path, aspect: a.aspect) }
        _block = new
    }

    /// Whether the pointer at `location` (view coordinates) is on a cell of a dragged item.
    func _overDraggedItem(_ location: Point) -> Bool {
        guard let ip = layout.indexPath(at: _content(location)) else { return false }
        return _isDragged(_order.itemID(at: ip))
    }

    /// Whether the pointer at `location` (view coordinates) is on an item's cell or on the
    /// gap cell `target` names (not in the spacing between cells, nor past the content).
    func _onCell(_ location: Point, _ target: DropTarget) -> Bool {
        if case .gapCell = target { return true }
        return layout.indexPath(at: _content(location)) != nil
    }

    /// Where the dragged block goes for a target (nil: it stays).
    func _placement(for target: DropTarget) -> _Placement? {
        let snap = _order
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
        let lay = layout
        guard let destination = lay.dropDestination(at: c) else { return .none }
        let swap = configuration.reorderMode == .swap && session?.source != .keyboard
        switch destination {
        case .insert(let at):
            if let gap = lay.gapCellFrame(section: at.section), gap.contains(c) { return .gapCell(section: at.section) }
            return .insert(at: IndexPath(item: _restIndex(at), section: at.section))
        case .into(let p):
            let item = _order.itemID(at: p)
            if _isDragged(item) || _isSlot(item) {
                return .insert(at: IndexPath(item: _restIndex(p), section: p.section))
            }
            if swap && !isPlaceholder(item) && session?.source != .external {
                // Several items swap with the hovered one and those after it; when too few
                // follow, the drop inserts them before the hovered item instead.
                if _swapPartners(at: p) != nil { return .item(p) }
                return .insert(at: IndexPath(item: _restIndex(p), section: p.section))
            }
            // Insert mode: the dragged block takes the hovered item's place.
            return .insert(at: IndexPath(item: _restIndex(p) + (_blockBefore(p) ? 1 : 0), section: p.section))
        }
    }
}
