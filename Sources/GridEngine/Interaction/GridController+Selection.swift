// Select mode's bottom bar (issue 13): the selected items to another section, or to the
// trash, as one committed change each — one batch, one gallery version, one step of undo.
// The page only says which items; the engine decides where they land and what the server
// is sent.

extension GridController {
    /// The given items that can be edited, in arrangement order, with their places.
    func _editable(_ items: [ItemID]) -> [(id: ItemID, path: IndexPath)] {
        var seen = Set<ItemID>()
        var out: [(id: ItemID, path: IndexPath)] = []
        for id in items where !seen.contains(id) && !isPlaceholder(id) && !isReadOnly(id) {
            seen.insert(id)
            if let p = snapshot.indexPath(of: id) { out.append((id, p)) }
        }
        out.sort { $0.path < $1.path }
        return out
    }

    /// Moves `items` (in arrangement order) to the end of `section` as one undoable move.
    /// Items already last there in that order stay. No effects during a drag, when
    /// read-only, for an unknown section or when nothing would change.
    ///
    ///     grid.moveItems([b, d], toSection: s2)   // one .commit(.move): [move b, d to the end of s2]
    public mutating func moveItems(_ items: [ItemID], toSection section: SectionID) -> [GridEffect] {
        guard session == nil, !isReadOnly, let t = snapshot.indexOfSection(section) else { return [] }
        let moving = _editable(items)
        guard !moving.isEmpty else { return [] }
        let staying = snapshot.itemCount(inSection: t) - moving.filter { $0.path.section == t }.count
        // Already the section's last items, in this order: nothing to do.
        if moving.enumerated().allSatisfy({ $0.element.path == IndexPath(item: staying + $0.offset, section: t) }) { return [] }
        var change = ArrangementChange()
        for m in moving { change.removed.append(_placementRecord(m.id, at: m.path)) }
        for (k, m) in moving.enumerated() {
            var p = _placementRecord(m.id, at: m.path)
            p.section = section
            p.index = staying + k
            change.inserted.append(p)
        }
        return [_commit(change, kind: .move, record: true)]
    }

    /// Puts `items` in the trash as one undoable delete (as a drop on the trash can does, F21).
    /// No effects during a drag, when read-only, or for no known item.
    public mutating func trashItems(_ items: [ItemID]) -> [GridEffect] {
        guard session == nil, !isReadOnly else { return [] }
        let gone = _editable(items)
        guard !gone.isEmpty else { return [] }
        var change = ArrangementChange()
        for g in gone { change.removed.append(_placementRecord(g.id, at: g.path)) }
        return [_commit(change, kind: .delete, record: true)]
    }
}
