// Sections (issue 13): added, reordered by dragging their headers, deleted with their items
// (to the trash, undoable). The engine decides the indices and the server edits and keeps
// the layout in step; the host sends the edits (adding the title of a new section).
// Section changes are rare: the layout is laid out again in full (O(n)) and the batch update
// is the staged changeset between the arrangements before and after.

extension GridController {
    /// A new section at `index` (clamped; nil: at the end). The server names it, so nothing
    /// changes here until its answer arrives (as another window's change would). Not undoable.
    public mutating func addSection(at index: Int?) -> [GridEffect] {
        guard session == nil, !isReadOnly else { return [] }
        let n = snapshot.sectionCount
        let i = min(max(0, index ?? n), n)
        let edits: [ServerEdit] = [.createSection(index: i)]
        return [.commit(CommittedChange(kind: .addSection, change: ArrangementChange(), updates: [], edits: edits))]
    }

    /// Where a section dragged by its header would go with the header's top at `contentY`:
    /// the index it would take, counted among the sections after it left its place. A header
    /// takes the place of the section whose middle it passed.
    public func sectionDropIndex(_ section: SectionID, contentY y: Double) -> Int? {
        guard let from = snapshot.indexOfSection(section) else { return nil }
        var index = 0
        for s in 0..<snapshot.sectionCount where s != from {
            let f = layout.sectionFrame(s)
            // Moving down, the header must pass the middle of the section below; moving up, the
            // middle of the section above.
            if y > f.minY + f.height / 2 { index += 1 }
        }
        return index
    }

    /// Moves a section to `index` (in the result) as one undoable change.
    public mutating func moveSection(_ section: SectionID, to index: Int) -> [GridEffect] {
        guard session == nil, !isReadOnly, let from = snapshot.indexOfSection(section) else { return [] }
        let to = min(max(0, index), snapshot.sectionCount - 1)
        if to == from { return [] }
        let change = ArrangementChange(sections: [SectionChange(id: section, from: from, to: to)])
        return [_commitSections(change, kind: .moveSection, record: true, modelCoordinates: false)]
    }

    /// Deletes a section: its items go to the trash; one undo brings the section and its items
    /// back where they were (the server's restore brings the section back with them). An empty
    /// section goes too, but no undo brings it back (nothing in the trash would). A section with
    /// uploads still loading in it is not deleted.
    public mutating func deleteSection(_ section: SectionID) -> [GridEffect] {
        guard session == nil, !isReadOnly, let s = snapshot.indexOfSection(section) else { return [] }
        let ids = snapshot.items(inSection: s)
        guard !ids.contains(where: { isPlaceholder($0) || isReadOnly($0) }) else { return [] }
        var change = ArrangementChange(sections: [SectionChange(id: section, from: s, to: nil)])
        for (k, id) in ids.enumerated() { change.removed.append(_placementRecord(id, at: IndexPath(item: k, section: s))) }
        return [_commitSections(change, kind: .deleteSection, record: !ids.isEmpty, modelCoordinates: false)]
    }

    /// Applies a change with section arrivals, departures or moves: arrivals and moves, then
    /// the items, then departures. Answers the commit effect (the change as applied, in model
    /// coordinates).
    mutating func _commitSections(_ change: ArrangementChange, kind: CommitKind, record: Bool, modelCoordinates: Bool,
                                  beforePlaceholder: [ItemID: ItemID] = [:]) -> GridEffect {
        _applyBlock(nil)
        let old = snapshot
        let placeholdersBefore = _placeholderPaths()
        // Sections arriving or moving, in order.
        var applied: [SectionChange] = []
        for c in change.sections where c.to != nil {
            guard let to = c.to else { continue }
            if let at = snapshot.indexOfSection(c.id) {
                let target = min(max(0, to), snapshot.sectionCount - 1)
                if at != target { _relayingOut { try? $0.moveSection(from: at, to: target) }; applied.append(SectionChange(id: c.id, from: at, to: target)) }
            } else if c.from == nil {
                let target = min(max(0, to), snapshot.sectionCount)
                _relayingOut { try? $0.insertSection(c.id, at: target) }
                applied.append(SectionChange(id: c.id, from: nil, to: target))
            }
        }
        var items = ArrangementChange(removed: change.removed, inserted: change.inserted)
        if !items.removed.isEmpty || !items.inserted.isEmpty {
            items = _apply(items, modelCoordinates: modelCoordinates, beforePlaceholder: beforePlaceholder).applied
        }
        // Sections leaving (their items left above).
        for c in change.sections where c.to == nil {
            guard let at = snapshot.indexOfSection(c.id), snapshot.itemCount(inSection: at) == 0 else { continue }
            _relayingOut { try? $0.deleteSection(at: at) }
            applied.append(SectionChange(id: c.id, from: at, to: nil))
        }
        var model = _modelChange(items, placeholdersBefore: placeholdersBefore)
        model.sections = applied
        if record { history.record(model, kind: kind) }
        let edits = _serverEdits(kind: kind, change: model, copiedFrom: [])
        let updates = (try? StagedChangeset(from: old, to: snapshot).stages) ?? []
        _afterBaseChange()
        return .commit(CommittedChange(kind: kind, change: model, updates: updates, edits: edits))
    }

    /// Edits the snapshot's sections and lays the whole layout out again from the aspects it
    /// held (by id). O(n).
    mutating func _relayingOut(_ body: (inout Snapshot) -> Void) {
        var aspects: [ItemID: Double] = [:]
        for s in 0..<snapshot.sectionCount {
            let items = snapshot.items(inSection: s)
            for i in 0..<items.count { aspects[items[i]] = layout.aspect(of: IndexPath(item: i, section: s)) }
        }
        body(&snapshot)
        var flat: [Double] = []
        var counts: [Int] = []
        for s in 0..<snapshot.sectionCount {
            for id in snapshot.items(inSection: s) { flat.append(aspects[id] ?? 1) }
            counts.append(snapshot.itemCount(inSection: s))
        }
        layout.prepare(aspects: flat, sectionCounts: counts)
    }
}
