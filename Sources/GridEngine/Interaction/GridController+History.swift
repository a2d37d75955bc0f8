// Undo and redo (B4). History entries are kept by id with indices among model items
// (placeholders not counted), so placeholders that come and go in between do not shift
// an undo; ids that vanished since (a live delete) are skipped, indices are clamped.

extension GridController {
    public var canUndo: Bool { history.canUndo && session == nil && !isReadOnly }
    public var canRedo: Bool { history.canRedo && session == nil && !isReadOnly }

    /// Undoes the last committed change. Refused (no effects) while a drag is in progress.
    public mutating func undo() -> [GridEffect] {
        guard session == nil, !isReadOnly, let entry = history.popUndo() else { return [] }
        let anchors = _placeholderAnchors(entry.change.inserted)   // what a redo puts back
        let effect = _replay(entry.change.inverted, kind: .undo, beforePlaceholder: entry.beforePlaceholder)
        if case .commit(let c) = effect {
            history.pushRedo(UndoStack.Entry(kind: entry.kind, change: c.change.inverted, beforePlaceholder: anchors))
        }
        return [effect]
    }

    /// Redoes the last undone change.
    public mutating func redo() -> [GridEffect] {
        guard session == nil, !isReadOnly, let entry = history.popRedo() else { return [] }
        let anchors = _placeholderAnchors(entry.change.removed)    // what an undo puts back
        let effect = _replay(entry.change, kind: .redo, beforePlaceholder: entry.beforePlaceholder)
        if case .commit(let c) = effect {
            history.pushUndo(UndoStack.Entry(kind: entry.kind, change: c.change, beforePlaceholder: anchors))
        }
        return [effect]
    }

    /// The undo and redo stacks (each oldest first) without placeholders, which do not outlive
    /// the page: what a page keeps to give the history back after a reload (`restoreHistory`).
    /// Entries are by id, so they stay valid against the server's arrangement read again.
    public var savedHistory: (undo: [UndoStack.Entry], redo: [UndoStack.Entry]) {
        func clean(_ entries: [UndoStack.Entry]) -> [UndoStack.Entry] {
            var out: [UndoStack.Entry] = []
            for e in entries {
                let change = ArrangementChange(removed: e.change.removed.filter { !isPlaceholder($0.id) },
                                               inserted: e.change.inserted.filter { !isPlaceholder($0.id) },
                                               sections: e.change.sections)
                if !change.isEmpty { out.append(UndoStack.Entry(kind: e.kind, change: change)) }
            }
            return out
        }
        return (clean(history.undoEntries), clean(history.redoEntries))
    }

    /// Gives back a history `savedHistory` answered (after a reload: the same gallery loaded
    /// again). Ids gone since are skipped when an entry is applied, as after a live delete.
    /// Refused (false) during a drag.
    @discardableResult
    public mutating func restoreHistory(undo: [UndoStack.Entry], redo: [UndoStack.Entry]) -> Bool {
        guard session == nil else { return false }
        history.restore(undo: undo, redo: redo)
        return true
    }

    /// For the items of `list` shown just before a placeholder: that placeholder (see
    /// `UndoStack.Entry.beforePlaceholder`). O(list) lookups.
    func _placeholderAnchors(_ list: [ItemPlacement]) -> [ItemID: ItemID] {
        var out: [ItemID: ItemID] = [:]
        if placeholders.isEmpty { return out }
        for p in list {
            guard let ip = snapshot.indexPath(of: p.id), ip.item + 1 < snapshot.itemCount(inSection: ip.section) else { continue }
            let next = snapshot.itemID(at: IndexPath(item: ip.item + 1, section: ip.section))
            if isPlaceholder(next) && !isPlaceholder(p.id) { out[p.id] = next }
        }
        return out
    }

    mutating func _replay(_ change: ArrangementChange, kind: CommitKind, beforePlaceholder: [ItemID: ItemID] = [:]) -> GridEffect {
        if !change.sections.isEmpty {
            return _commitSections(change, kind: kind, record: false, modelCoordinates: true, beforePlaceholder: beforePlaceholder)
        }
        _applyBlock(nil)
        let placeholdersBefore = _placeholderPaths()
        let (applied, update) = _apply(change, modelCoordinates: true, beforePlaceholder: beforePlaceholder)
        let model = _modelChange(applied, placeholdersBefore: placeholdersBefore)
        let edits = _serverEdits(kind: kind, change: model, copiedFrom: [])   // before a drag's block goes back
        _afterBaseChange()
        return .commit(CommittedChange(kind: kind, change: model, updates: [update], edits: edits))
    }
}
