// A starting order for one section (issue 12): "sort this section by capture date / by
// name". The page works out the order (names it knows, capture dates the server reads);
// the engine makes it one committed move, so it is one batch and one gallery version on
// the server, streamed to other windows, and one step of undo here.

extension GridController {
    /// Puts `section`'s items in `order` as one undoable move.
    ///
    /// Ids not in the section are ignored; items of the section missing from `order` keep
    /// their relative order after those named. Placeholders still loading keep their
    /// slots. No effects when nothing changes, while a drag is in progress, or read-only.
    ///
    ///     let effects = grid.arrange(section: s, order: byName)   // one .commit(.move)
    ///     grid.undo()                                              // the order before
    public mutating func arrange(section: SectionID, order: [ItemID]) -> [GridEffect] {
        guard session == nil, !isReadOnly, let s = snapshot.indexOfSection(section) else { return [] }
        var slots: [Int] = []
        var current: [ItemID] = []
        for i in 0..<snapshot.itemCount(inSection: s) {
            let id = snapshot.itemID(at: IndexPath(item: i, section: s))
            if isPlaceholder(id) { continue }
            slots.append(i)
            current.append(id)
        }
        let present = Set(current)
        var named = Set<ItemID>()
        var wanted: [ItemID] = []
        for id in order where present.contains(id) && !named.contains(id) {
            named.insert(id)
            wanted.append(id)
        }
        for id in current where !named.contains(id) { wanted.append(id) }
        if wanted == current { return [] }

        // Every item of the section is named, so the server gets one move of the whole
        // section in the new order (one block when no placeholder sits in between).
        var change = ArrangementChange()
        for (k, id) in current.enumerated() {
            change.removed.append(ItemPlacement(id: id, section: section, index: slots[k]))
        }
        for (k, id) in wanted.enumerated() {
            change.inserted.append(ItemPlacement(id: id, section: section, index: slots[k]))
        }
        return [_commit(change, kind: .move, record: true)]
    }
}
