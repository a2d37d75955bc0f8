// Drops from other apps and pastes (F18, B6) and their placeholders (F19). A drop inserts one
// placeholder per accepted item at the destination and asks the host to load each; the
// placeholders are items of the snapshot, so their index paths follow every later change.

extension GridController {
    mutating func _externalEnter(_ items: [DropDataKinds], _ location: Point, _ time: Double, _ effects: inout [GridEffect]) {
        if isReadOnly { return }
        if let s = session {
            if s.phase == .dropping || s.phase == .settling { _finishSession(&effects) } else { return }
        }
        var s = DragSession(source: .external, phase: .dragging, pointerID: -1, pointerKind: .mouse, location: location, time: time)
        s.externalItems = items
        session = s
        _beginDragDisplay()
        _retarget(now: time, &effects)
        _updateAutoScroll(now: time)
    }

    mutating func _externalMove(_ location: Point, _ modifiers: KeyModifiers, _ time: Double, _ effects: inout [GridEffect]) {
        guard var s = session, s.source == .external, s.isDragging else { return }
        s.location = location
        s.modifiers = modifiers
        session = s
        _retarget(now: time, &effects)
        _updateAutoScroll(now: time)
    }

    mutating func _externalLeave(_ time: Double, _ effects: inout [GridEffect]) {
        guard let s = session, s.source == .external else { return }
        _cancel(now: time, &effects)
    }

    mutating func _externalDrop(_ location: Point, _ time: Double, _ effects: inout [GridEffect]) {
        guard var s = session, s.source == .external, s.isDragging else { return }
        s.location = location
        session = s
        _retarget(now: time, &effects)
        s = session!
        let proposal = s.proposal
        let placement = proposal.operation == .copy ? _placement(for: proposal.target) : nil
        session = nil
        _endDragDisplay()
        _autoScroller.stop()
        guard let placement, snapshot.indexOfSection(placement.section) != nil else {
            effects.append(.dragEnded(operation: proposal.operation == .forbidden ? .forbidden : .cancel, items: []))
            return
        }
        _insertPlaceholders(for: s.externalItems, at: placement, &effects)
        effects.append(.dragEnded(operation: .copy, items: []))
    }

    /// Pasted data (B6: a pasted image, copied files): like a drop, one placeholder per
    /// accepted item and a `.loadDroppedData` for each, placed after the focused item, or
    /// at the end of the last section when nothing has the focus (F28). Refused during a
    /// drag and by a read-only collection.
    public mutating func paste(_ items: [DropDataKinds]) -> [GridEffect] {
        guard session == nil, !policy.isReadOnly, !isReadOnly, snapshot.sectionCount > 0 else { return [] }
        var placement: _Placement
        if let f = focusedItem, let ip = snapshot.indexPath(of: f) {
            placement = _Placement(section: snapshot.sectionID(at: ip.section), index: ip.item + 1)
        } else {
            let last = snapshot.sectionCount - 1
            placement = _Placement(section: snapshot.sectionID(at: last), index: snapshot.itemCount(inSection: last))
        }
        var effects: [GridEffect] = []
        _insertPlaceholders(for: items, at: placement, &effects)
        return effects
    }

    /// Inserts one placeholder per accepted item at `placement` and asks for the data.
    mutating func _insertPlaceholders(for items: [DropDataKinds], at placement: _Placement, _ effects: inout [GridEffect]) {
        var change = ArrangementChange()
        var waiting: [Placeholder] = []
        for (k, kinds) in items.enumerated() where policy.accepts(kinds) {
            let id = _generateID()
            waiting.append(Placeholder(id: PlaceholderID(itemID: id), dropItemIndex: k, kinds: kinds))
            change.inserted.append(ItemPlacement(id: id, section: placement.section, index: placement.index + waiting.count - 1))
        }
        if waiting.isEmpty { return }
        placeholders.append(contentsOf: waiting)
        effects.append(_commit(change, kind: .insertPlaceholders, record: false))
        // A new change has begun (its commits are recorded as they arrive): nothing undone
        // before it can be redone over it. A failed load (`deletePlaceholder`) leaves the
        // history alone: the model never saw the placeholder.
        history.clearRedo()
        for p in waiting { effects.append(.loadDroppedData(placeholder: p.id, dropItemIndex: p.dropItemIndex, kinds: p.kinds)) }
    }

    // MARK: - Placeholders

    /// Where a placeholder is now, or nil when it is not waiting.
    public func indexPath(of placeholder: PlaceholderID) -> IndexPath? {
        guard isPlaceholder(placeholder.itemID) else { return nil }
        return snapshot.indexPath(of: placeholder.itemID)
    }

    /// The data for a placeholder arrived: the real item replaces it at the placeholder's
    /// *current* index path (F19). Undoable (undo removes the item).
    /// - Throws: `.unknownPlaceholder`, or `.duplicateItem` when `item` is already shown.
    public mutating func commitInsertion(_ placeholder: PlaceholderID, item: ItemID, aspect: Double,
                                         version: UInt32 = 0) throws(GridControllerError) -> [GridEffect] {
        guard let p = indexPath(of: placeholder) else { throw .unknownPlaceholder(placeholder) }
        guard !snapshot.contains(item) else { throw .duplicateItem(item) }
        let sid = snapshot.sectionID(at: p.section)
        let change = ArrangementChange(removed: [ItemPlacement(id: placeholder.itemID, section: sid, index: p.item)],
                                       inserted: [ItemPlacement(id: item, section: sid, index: p.item, aspect: aspect, version: version)])
        let effect = _commit(change, kind: .commitPlaceholder, record: true)
        placeholders.removeAll { $0.id == placeholder }
        return [effect]
    }

    /// The data for a placeholder failed to load: the placeholder goes away (F19).
    /// - Throws: `.unknownPlaceholder`.
    public mutating func deletePlaceholder(_ placeholder: PlaceholderID) throws(GridControllerError) -> [GridEffect] {
        guard let p = indexPath(of: placeholder) else { throw .unknownPlaceholder(placeholder) }
        let change = ArrangementChange(removed: [ItemPlacement(id: placeholder.itemID, section: snapshot.sectionID(at: p.section), index: p.item)])
        let effect = _commit(change, kind: .deletePlaceholder, record: false)
        placeholders.removeAll { $0.id == placeholder }
        return [effect]
    }
}
