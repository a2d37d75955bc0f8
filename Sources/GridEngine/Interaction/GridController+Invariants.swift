extension GridController {
    /// Traps if the controller is inconsistent: the snapshot's and layout's own
    /// invariants; the layout holds exactly the snapshot's sections and items; every
    /// placeholder is in the snapshot once; the preview holds the same items as the
    /// committed arrangement (the drag moves them, never adds or loses one); the dragged
    /// items are present; the session's own invariants. O(n).
    public func checkInvariants() {
        snapshot.checkInvariants()
        layout.checkInvariants()
        precondition(layout.numberOfSections == snapshot.sectionCount, "layout sections")
        for s in 0..<snapshot.sectionCount {
            precondition(layout.numberOfItems(inSection: s) == snapshot.itemCount(inSection: s), "layout items per section")
        }
        precondition(!layout.configuration.showsGapCells, "gap cells on the committed layout")
        for (k, p) in placeholders.enumerated() {
            precondition(snapshot.contains(p.id.itemID), "a placeholder lost its cell")
            for q in placeholders[(k + 1)...] { precondition(q.id != p.id, "a placeholder twice") }
        }
        if let preview = _preview {
            preview.snapshot.checkInvariants()
            preview.layout.checkInvariants()
            precondition(preview.snapshot.itemCount == snapshot.itemCount, "the preview gained or lost items")
            precondition(preview.snapshot.sectionIDs == snapshot.sectionIDs, "the preview's sections")
            for id in snapshot.allItemIDs { precondition(preview.snapshot.contains(id), "an item missing from the preview") }
            for s in 0..<preview.snapshot.sectionCount {
                precondition(preview.layout.numberOfItems(inSection: s) == preview.snapshot.itemCount(inSection: s), "preview layout items")
            }
            precondition(preview.layout.configuration.showsGapCells, "no gap cells during a drag")
            precondition(session != nil, "a preview without a session")
        }
        if let s = session {
            s.checkInvariants()
            if s.isDragging && s.source != .external {
                for item in s.items { precondition(snapshot.contains(item), "a dragged item vanished") }
                precondition(_preview != nil, "a drag without a preview")
            }
        }
        if let f = focusedItem { precondition(snapshot.contains(f), "focus on a missing item") }
    }
}
