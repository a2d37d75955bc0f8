/// Undo and redo of committed arrangement changes (B4), as `UndoManager` without
/// closures: a bounded stack of ``ArrangementChange`` values, each undone by applying its
/// inverse. Recording a new change clears the redo stack.
///
///     var history = UndoStack(limit: 100)
///     history.record(change, kind: .move)
///     if let entry = history.popUndo() { apply(entry.change.inverted); history.pushRedo(entry) }
public struct UndoStack: Hashable, Sendable {
    /// One undoable step: the change as applied and what kind of operation it was.
    public struct Entry: Hashable, Sendable {
        public var kind: CommitKind
        public var change: ArrangementChange
        /// For items this entry puts back (when applied in its direction) that sat just
        /// before a placeholder still loading: that placeholder. Indices are kept among
        /// model items, which cannot tell the two sides of a placeholder apart; this does.
        public var beforePlaceholder: [ItemID: ItemID]
        public init(kind: CommitKind, change: ArrangementChange, beforePlaceholder: [ItemID: ItemID] = [:]) {
            self.kind = kind; self.change = change; self.beforePlaceholder = beforePlaceholder
        }
    }

    public private(set) var undoEntries: [Entry] = []
    public private(set) var redoEntries: [Entry] = []
    /// The oldest entries are forgotten beyond this many.
    public var limit: Int

    public init(limit: Int = 100) { self.limit = max(1, limit) }

    public var canUndo: Bool { !undoEntries.isEmpty }
    public var canRedo: Bool { !redoEntries.isEmpty }

    /// Records a newly committed change; clears redo.
    public mutating func record(_ change: ArrangementChange, kind: CommitKind, beforePlaceholder: [ItemID: ItemID] = [:]) {
        if change.isEmpty { return }
        undoEntries.append(Entry(kind: kind, change: change, beforePlaceholder: beforePlaceholder))
        if undoEntries.count > limit { undoEntries.removeFirst(undoEntries.count - limit) }
        redoEntries.removeAll()
    }

    public mutating func popUndo() -> Entry? { undoEntries.popLast() }
    public mutating func popRedo() -> Entry? { redoEntries.popLast() }
    /// After an undo: the entry (as re-applied) can be redone.
    public mutating func pushRedo(_ entry: Entry) { redoEntries.append(entry) }
    /// After a redo: the entry (as re-applied) can be undone again; redo is kept.
    public mutating func pushUndo(_ entry: Entry) {
        undoEntries.append(entry)
        if undoEntries.count > limit { undoEntries.removeFirst(undoEntries.count - limit) }
    }

    public mutating func removeAll() { undoEntries.removeAll(); redoEntries.removeAll() }

    /// Replaces both stacks (a history saved before a reload, `GridController.restoreHistory`);
    /// the oldest undo entries beyond the limit are forgotten, empty changes dropped.
    public mutating func restore(undo: [Entry], redo: [Entry]) {
        undoEntries = undo.filter { !$0.change.isEmpty }
        redoEntries = redo.filter { !$0.change.isEmpty }
        if undoEntries.count > limit { undoEntries.removeFirst(undoEntries.count - limit) }
        if redoEntries.count > limit { redoEntries.removeFirst(redoEntries.count - limit) }
    }

    /// A new change began that is not recorded yet (a drop of placeholders): what was
    /// undone can no longer be redone.
    public mutating func clearRedo() { redoEntries.removeAll() }
}
