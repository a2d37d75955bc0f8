// The one path every committed change takes: moves, swaps, copies, trash deletes,
// placeholder inserts and commits, undo and redo. It edits the snapshot and keeps the
// layout in step incrementally, and builds the batch update from the positions before
// and after. The batch is valid because items the change does not name keep their
// relative order: exactly UIKit's rule that unmoved items fill the free slots.

extension GridController {
    /// Applies `change` to the committed snapshot and layout.
    /// - Parameter modelCoordinates: inserted indices count only non-placeholder items
    ///   (history entries are kept that way, so placeholders that came and went since do
    ///   not shift an undo).
    /// - Returns: the change as applied (display coordinates, real positions, aspects and
    ///   versions) and the batch update that turns the old snapshot into the new one.
    ///   Missing ids are skipped, indices clamped, an id inserted while present moves.
    ///   `beforePlaceholder`: items to put just before a placeholder when it still sits at
    ///   their model index (the side of a loading placeholder they were on).
    mutating func _apply(_ change: ArrangementChange, modelCoordinates: Bool,
                         beforePlaceholder: [ItemID: ItemID] = [:]) -> (applied: ArrangementChange, update: BatchUpdate) {
        // No copy of the old snapshot is kept: holding one would make every edit below copy
        // the whole arrangement (copy-on-write). The old paths of the leaving items suffice.
        var leaving: [ItemPlacement] = []
        var leavingPaths: [ItemID: IndexPath] = [:]
        for id in change.removed.map({ $0.id }) + change.inserted.map({ $0.id }) {
            guard leavingPaths[id] == nil, let p = snapshot.indexPath(of: id) else { continue }
            leavingPaths[id] = p
            leaving.append(ItemPlacement(id: id, section: snapshot.sectionID(at: p.section), index: p.item,
                                         aspect: layout.aspect(of: p), version: snapshot.version(at: p)))
        }

        // An id in both lists moves: if it vanished meanwhile (deleted elsewhere), it stays gone.
        var movingSet = Set<ItemID>()
        for r in change.removed { movingSet.insert(r.id) }
        var arriving: [(placement: ItemPlacement, section: Int, order: Int)] = []
        var arrivingSet = Set<ItemID>()
        if snapshot.sectionCount > 0 {
            let last = snapshot.sectionCount - 1
            for (k, a) in change.inserted.enumerated() where !arrivingSet.contains(a.id) {
                if movingSet.contains(a.id) && leavingPaths[a.id] == nil { continue }
                arrivingSet.insert(a.id)
                arriving.append((a, snapshot.indexOfSection(a.section) ?? last, k))
            }
        }
        // A moving item keeps its own aspect and version, whatever the change says.
        for k in 0..<arriving.count {
            if let l = leaving.first(where: { $0.id == arriving[k].placement.id }) {
                arriving[k].placement.aspect = l.aspect
                arriving[k].placement.version = l.version
            }
        }
        arriving.sort { x, y in
            if x.section != y.section { return x.section < y.section }
            if x.placement.index != y.placement.index { return x.placement.index < y.placement.index }
            return x.order < y.order
        }

        if leaving.count == 1 && arriving.count == 1 && leaving[0].id == arriving[0].placement.id {
            // One item moving: rotate only the span between its two places.
            let id = leaving[0].id
            let from = leavingPaths[id]!
            let s = arriving[0].section
            let wanted = modelCoordinates ? _displayIndex(model: arriving[0].placement.index, section: s, excluding: id,
                                                          before: beforePlaceholder[id]) : arriving[0].placement.index
            let limit = snapshot.itemCount(inSection: s) - (s == from.section ? 1 : 0)
            let to = IndexPath(item: min(max(0, wanted), limit), section: s)
            if to != from {
                try? snapshot.moveItem(id, to: to)
                layout.itemMoved(from: from, to: to)
            }
        } else {
            var paths: [IndexPath] = []
            paths.reserveCapacity(leaving.count)
            for l in leaving { paths.append(leavingPaths[l.id]!) }
            paths.sort(by: >)
            for p in paths { layout.itemDeleted(at: p) }
            var ids: [ItemID] = []
            for l in leaving { ids.append(l.id) }
            try? snapshot.deleteItems(ids)
            for a in arriving {
                let s = a.section
                let wanted = modelCoordinates ? _displayIndex(model: a.placement.index, section: s, excluding: nil,
                                                              before: beforePlaceholder[a.placement.id]) : a.placement.index
                let at = IndexPath(item: min(max(0, wanted), snapshot.itemCount(inSection: s)), section: s)
                try? snapshot.insertItems([a.placement.id], at: at)
                try? snapshot.setVersion(a.placement.version, of: a.placement.id)
                layout.itemInserted(at: at, aspect: a.placement.aspect)
            }
        }

        var applied = ArrangementChange(removed: leaving, inserted: [])
        var update = BatchUpdate()
        for a in arriving {
            guard let p = snapshot.indexPath(of: a.placement.id) else { continue }
            var placed = a.placement
            placed.section = snapshot.sectionID(at: p.section)
            placed.index = p.item
            applied.inserted.append(placed)
            if let from = leavingPaths[placed.id] {
                update.itemMoves.append(ItemMove(from: from, to: p))
            } else {
                update.itemInserts.append(ItemInsertion(at: p, id: placed.id, version: placed.version))
            }
        }
        for l in leaving where !arrivingSet.contains(l.id) { update.itemDeletes.append(leavingPaths[l.id]!) }
        update.itemCountsAfter = GridController._counts(snapshot)
        return (applied, update)
    }

    /// The display index in section `s` before which exactly `model` non-placeholder items
    /// come (placeholders at the boundary stay before it). `excluding` is an item to skip
    /// (the one being moved). `before`: a placeholder of that boundary to stay before
    /// (the item was on that side of it). O(placeholders).
    func _displayIndex(model: Int, section s: Int, excluding: ItemID?, before anchor: ItemID? = nil) -> Int {
        if placeholders.isEmpty { return model }
        let after = _displayIndex(model: model, section: s, excluding: excluding)
        guard let anchor, isPlaceholder(anchor), let q = snapshot.indexPath(of: anchor), q.section == s else { return after }
        // The anchor's index and the model items before it, as if `excluding` were gone.
        var skip = 0
        if let excluding, let e = snapshot.indexPath(of: excluding), e.section == s, e.item < q.item { skip = 1 }
        var placeholdersBefore = 0
        for p in placeholders {
            if let ip = snapshot.indexPath(of: p.id.itemID), ip.section == s, ip.item < q.item { placeholdersBefore += 1 }
        }
        let modelBefore = q.item - placeholdersBefore - skip
        return modelBefore == model && q.item - skip < after ? q.item - skip : after
    }

    /// The display index in section `s` after every placeholder at the model boundary.
    func _displayIndex(model: Int, section s: Int, excluding: ItemID?) -> Int {
        if placeholders.isEmpty { return model }
        var positions: [Int] = []
        for p in placeholders {
            if let ip = snapshot.indexPath(of: p.id.itemID), ip.section == s { positions.append(ip.item) }
        }
        if positions.isEmpty { return model }
        positions.sort()
        var skipAt = -1
        if let excluding, let e = snapshot.indexPath(of: excluding), e.section == s { skipAt = e.item }
        // Walk display indices: count model items until `model` of them are behind us.
        var index = 0, seenModel = 0, k = 0
        let count = snapshot.itemCount(inSection: s)
        while index < count {
            if index == skipAt { index += 1; continue }
            let isPlaceholder = k < positions.count && positions[k] == index
            if isPlaceholder { k += 1; index += 1; continue }
            if seenModel == model { break }
            seenModel += 1
            index += 1
        }
        // The result counts positions as if `excluding` were already gone.
        return skipAt >= 0 && skipAt < index ? index - 1 : index
    }

    /// Where the placeholders are now (display index paths), for `_modelChange`.
    func _placeholderPaths() -> [IndexPath] {
        var out: [IndexPath] = []
        for p in placeholders { if let ip = snapshot.indexPath(of: p.id.itemID) { out.append(ip) } }
        return out
    }

    /// `change` with placeholders dropped and indices counted among model items only:
    /// `removed` against the placeholders as they were before, `inserted` as they are now.
    func _modelChange(_ change: ArrangementChange, placeholdersBefore: [IndexPath]) -> ArrangementChange {
        func convert(_ list: [ItemPlacement], _ paths: [IndexPath]) -> [ItemPlacement] {
            var out: [ItemPlacement] = []
            for var p in list where !isPlaceholder(p.id) {
                if !paths.isEmpty, let s = snapshot.indexOfSection(p.section) {
                    var n = 0
                    for q in paths where q.section == s && q.item < p.index { n += 1 }
                    p.index -= n
                }
                out.append(p)
            }
            return out
        }
        return ArrangementChange(removed: convert(change.removed, placeholdersBefore), inserted: convert(change.inserted, _placeholderPaths()))
    }

    /// Applies a change, records it for undo when asked, keeps a drag's block in step,
    /// and returns the commit effect.
    mutating func _commit(_ change: ArrangementChange, kind: CommitKind, record: Bool,
                          copiedFrom: [ItemID] = [], copies: [ItemID] = []) -> GridEffect {
        _applyBlock(nil)   // edits are made in the committed order; the block returns after
        let placeholdersBefore = _placeholderPaths()
        let anchors = record ? _placeholderAnchors(change.removed) : [:]   // what an undo puts back
        let (applied, update) = _apply(change, modelCoordinates: false)
        let model = _modelChange(applied, placeholdersBefore: placeholdersBefore)
        if record { history.record(model, kind: kind, beforePlaceholder: anchors) }
        // Anchors are read before a drag's block goes back into the arrangement.
        let edits = _serverEdits(kind: kind, change: model, copiedFrom: copiedFrom)
        _afterBaseChange()
        return .commit(CommittedChange(kind: kind, change: model, updates: [update], copiedFrom: copiedFrom, copies: copies, edits: edits))
    }

    /// After the committed arrangement changed under a drag (the block was taken out
    /// first): forget vanished items, put the block back.
    mutating func _afterBaseChange() {
        if let f = focusedItem, !snapshot.contains(f) { focusedItem = nil }
        guard var s = session else { return }
        if s.phase == .dropping || s.phase == .settling { return }
        var keptCopies: [ItemID] = []
        for (k, item) in s.items.enumerated() where k < s._copyIDs.count && snapshot.contains(item) { keptCopies.append(s._copyIDs[k]) }
        s._copyIDs = keptCopies
        s.items.removeAll { !snapshot.contains($0) }
        session = s
        if (s.source == .local || s.source == .keyboard) && s.items.isEmpty {
            session = nil
            _endDragDisplay()
            _autoScroller.stop()
            return
        }
        _reattachBlock()
    }
}
