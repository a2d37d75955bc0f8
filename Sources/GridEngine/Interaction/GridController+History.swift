// Undo and redo (B4). History entries are kept by id with indices among model items
// (placeholders not counted), so placeholders that come and go in between do not shift
// an undo; ids that vanished since (a live delete) are skipped, indices are clamped.

extension GridController {
    public var canUndo: Bool { history.canUndo && session == nil }
    public var canRedo: Bool { history.canRedo && session == nil }

    /// Undoes the last committed change. Refused (no effects) while a drag is in progress.
    public mutating func undo() -> [GridEffect] {
        guard session == nil, let entry = history.popUndo() else { return [] }
        let effect = _replay(entry.change.inverted, kind: .undo)
        if case .commit(let c) = effect { history.pushRedo(UndoStack.Entry(kind: entry.kind, change: c.change.inverted)) }
        return [effect]
    }

    /// Redoes the last undone change.
    public mutating func redo() -> [GridEffect] {
        guard session == nil, let entry = history.popRedo() else { return [] }
        let effect = _replay(entry.change, kind: .redo)
        if case .commit(let c) = effect { history.pushUndo(UndoStack.Entry(kind: entry.kind, change: c.change)) }
        return [effect]
    }

    mutating func _replay(_ change: ArrangementChange, kind: CommitKind) -> GridEffect {
        _applyBlock(nil)
        let placeholdersBefore = _placeholderPaths()
        let (applied, update) = _apply(change, modelCoordinates: true)
        let model = _modelChange(applied, placeholdersBefore: placeholdersBefore)
        _afterBaseChange()
        return .commit(CommittedChange(kind: kind, change: model, updates: [update]))
    }
}
