extension GridController {
    /// Traps if the controller is inconsistent: the snapshot's and layout's own
    /// invariants; the layout holds exactly the snapshot's sections and items; every
    /// placeholder is in the snapshot once; gap cells show exactly while dragging; the
    /// layout shows exactly the dragged block at the session's placement during a live
    /// reorder and the committed order otherwise; the dragged items are present; the
    /// session's own invariants. O(n).
    public func checkInvariants() {
        snapshot.checkInvariants()
        layout.checkInvariants()
        let order = _order
        precondition(layout.numberOfSections == snapshot.sectionCount, "layout sections")
        for s in 0..<snapshot.sectionCount {
            precondition(layout.numberOfItems(inSection: s) == order.itemCount(inSection: s), "layout items per section")
        }
        let dragging = session?.isDragging ?? false
        precondition(layout.configuration.showsGapCells == dragging, "gap cells exactly while dragging")
        for (k, p) in placeholders.enumerated() {
            precondition(snapshot.contains(p.id.itemID), "a placeholder lost its cell")
            for q in placeholders[(k + 1)...] { precondition(q.id != p.id, "a placeholder twice") }
        }
        if let s = session {
            s.checkInvariants()
            if s.isDragging && s.source != .external {
                for item in s.items { precondition(snapshot.contains(item), "a dragged item vanished") }
            }
            if s.isDragging && _showsBlock(s) {
                precondition(_block?.items == s.items, "the block on screen is not the dragged items")
                precondition(_block?.isCopy == (s._copyPreview && s.source == .local), "a copy preview shows as a move or the reverse")
                if let b = _block, b.isCopy {
                    precondition(b.copies == Array(s._copyIDs.prefix(s.items.count)), "the copies' slots are not the session's copy ids")
                    for c in b.copies { precondition(!snapshot.contains(c), "a copy's slot id is in use") }
                }
                precondition(_block.map { _Placement(section: $0.section, index: $0.start) } == s._placement, "the block is not at its placement")
                if let b = _block, let sec = snapshot.indexOfSection(b.section) {
                    precondition(b.start + b.items.count <= order.itemCount(inSection: sec), "the block overruns its section")
                }
            } else {
                precondition(_block == nil, "a block on screen without a live reorder")
            }
        } else {
            precondition(_block == nil, "a block on screen without a session")
        }
        if let f = focusedItem { precondition(snapshot.contains(f), "focus on a missing item") }
    }
}
