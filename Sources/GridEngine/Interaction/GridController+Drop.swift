// Performing a local drop (F3, F18, F20, F21, F26–F29): the proposal decides; the change
// is committed as one batch; the preview flies to its place (or home, or into the trash).

extension GridController {
    mutating func _drop(now: Double, _ effects: inout [GridEffect]) {
        guard var s = session, s.isDragging, s.source != .external else { return }
        s._pendingPlacement = nil
        let proposal = s.proposal
        let flyFrom = _previewFrame(s)
        // Resolve the target against the order on screen, then put the layout back in the
        // committed order (no gap cells) before any edit.
        var swapWith: [ItemID] = []
        var placement: _Placement?
        switch (proposal.operation, proposal.target) {
        case (.move, .item(let ip)):
            swapWith = _swapPartners(at: ip)?.map { _order.itemID(at: $0) } ?? []
        case (.copy, .item(let ip)):
            placement = _Placement(section: _order.sectionID(at: ip.section), index: _restIndex(ip))
        case (.move, _), (.copy, _):
            placement = _placement(for: proposal.target)
            // A live preview: the drop lands exactly where the block (or the copies' slots)
            // shows (see `_retarget`: the pointer-up applied any waiting placement).
            if placement != nil && _showsBlock(s), let shown = s._placement { placement = shown }
            // A copy whose slots never opened shows nothing new: nothing is copied (as a
            // move dropped where it was lifted moves nothing); the preview flies home.
            if proposal.operation == .copy, let b = _block, b.isCopy, !b.slotsOpen { placement = nil }
        default:
            break
        }
        let copyStart = placement.flatMap { p in snapshot.indexOfSection(p.section).map { _baseIndex(rest: p.index, section: $0) } }
        // Dropping from here on: a commit below must not treat the session as a live drag.
        s.phase = .dropping
        session = s
        _endDragDisplay()
        _autoScroller.stop()

        var outcome = proposal.operation
        var copiedIDs: [ItemID] = []
        var flyTo: Rect?
        var scaleTo = 1.0, opacityTo = 1.0, vanishing = false
        switch (proposal.operation, proposal.target) {
        case (.move, .item):
            // Swap mode (F3): the carried items and the hovered one with the items after it
            // (see `_swapPartners`) exchange places pairwise, as one undoable swap.
            if swapWith.count == s.items.count {
                var change = ArrangementChange()
                for (a, other) in zip(s.items, swapWith) where a != other {
                    guard let pa = snapshot.indexPath(of: a), let pb = snapshot.indexPath(of: other) else { continue }
                    var aThere = _placementRecord(a, at: pa), otherThere = _placementRecord(other, at: pb)
                    change.removed += [aThere, otherThere]
                    (aThere.section, aThere.index, otherThere.section, otherThere.index) = (otherThere.section, otherThere.index, aThere.section, aThere.index)
                    change.inserted += [aThere, otherThere]
                }
                if !change.isEmpty { effects.append(_commit(change, kind: .swap, record: true)) }
            }
        case (.move, .insert), (.move, .gapCell), (.move, .none):
            if let placement, let section = snapshot.indexOfSection(placement.section) {
                var change = ArrangementChange()
                var inPlace = true
                for (k, item) in s.items.enumerated() {
                    guard let p = snapshot.indexPath(of: item) else { continue }
                    change.removed.append(_placementRecord(item, at: p))
                    var arrival = _placementRecord(item, at: p)
                    arrival.section = placement.section
                    arrival.index = placement.index + k
                    change.inserted.append(arrival)
                    if p.section != section || p.item != placement.index + k { inPlace = false }
                }
                if !inPlace { effects.append(_commit(change, kind: .move, record: true)) }
            }
        case (.copy, .insert), (.copy, .gapCell), (.copy, .none), (.copy, .item):
            if placement == nil { outcome = .cancel }
            if let placement, let start = copyStart {
                var change = ArrangementChange()
                var sources: [ItemID] = [], copies: [ItemID] = []
                // The copies keep the ids their slots had in the preview.
                let previewIDs = s._copyIDs.count >= s.items.count ? s._copyIDs : []
                for (k, item) in s.items.enumerated() {
                    guard let p = snapshot.indexPath(of: item) else { continue }
                    let copy = k < previewIDs.count && !snapshot.contains(previewIDs[k]) ? previewIDs[k] : _generateID()
                    sources.append(item); copies.append(copy)
                    var arrival = _placementRecord(item, at: p)
                    arrival.id = copy
                    arrival.section = placement.section
                    arrival.index = start + k
                    change.inserted.append(arrival)
                }
                effects.append(_commit(change, kind: .copy, record: true, copiedFrom: sources, copies: copies))
                if let first = copies.first, let p = snapshot.indexPath(of: first) { flyTo = layout.frame(of: p) }
                copiedIDs = copies
            }
        case (.copy, .outside(let id)), (.move, .outside(let id)):
            var target: OutsideTarget?
            for o in outsideTargets where o.id == id { target = o }
            if let target, target.deletesItems {
                // The trash (F21): the items leave the collection, the preview shrinks into the can.
                var change = ArrangementChange()
                for item in s.items { if let p = snapshot.indexPath(of: item) { change.removed.append(_placementRecord(item, at: p)) } }
                effects.append(_commit(change, kind: .delete, record: true))
                let c = _content(target.frame.center)
                flyTo = Rect(x: c.x - flyFrom.width / 2, y: c.y - flyFrom.height / 2, width: flyFrom.width, height: flyFrom.height)
                scaleTo = 0; opacityTo = 0; vanishing = true
            }
        case (.forbidden, _):
            outcome = .forbidden
        default:
            outcome = .cancel
        }

        guard var s = session else { return }
        if flyTo == nil, let first = s.items.first, let p = snapshot.indexPath(of: first) { flyTo = layout.frame(of: p) }
        s.phase = .dropping
        s.phaseStartTime = now
        s.outcome = outcome
        s._flyFrom = flyFrom
        s._flyTo = flyTo ?? flyFrom
        s._flyToScale = scaleTo
        s._flyToOpacity = opacityTo
        s._vanishing = vanishing
        s._copyIDs = copiedIDs
        session = s
    }

    /// The floating preview's frame in content coordinates (unscaled). For keyboard
    /// drags, the block's slot on screen.
    func _previewFrame(_ s: DragSession) -> Rect {
        if s.source == .keyboard, let first = s.items.first, let p = _order.indexPath(of: first),
           let f = layout.frame(of: p) { return f }
        let c = _content(s.location)
        return Rect(x: c.x - s.grabOffset.x, y: c.y - s.grabOffset.y, width: s.previewSize.width, height: s.previewSize.height)
    }

    /// Swap mode with k dragged items over the item at `p` (display coordinates): the
    /// hovered item and the k − 1 items that follow it in reading order (across sections),
    /// skipping dragged items and placeholders; the i-th dragged item (in drag order)
    /// exchanges places with the i-th of them. Nil when fewer than k follow: a swap is
    /// then ill-defined and `_target` proposes an insert before the hovered item instead.
    /// O(k + skipped items · log n).
    func _swapPartners(at p: IndexPath) -> [IndexPath]? {
        guard let s = session else { return nil }
        let order = _order
        let k = max(1, s.items.count)
        var out: [IndexPath] = []
        var section = p.section, item = p.item
        while out.count < k && section < order.sectionCount {
            if item >= order.itemCount(inSection: section) { section += 1; item = 0; continue }
            let q = IndexPath(item: item, section: section)
            let id = order.itemID(at: q)
            if !_isDragged(id) && !isPlaceholder(id) { out.append(q) }
            item += 1
        }
        return out.count == k ? out : nil
    }

    func _placementRecord(_ item: ItemID, at p: IndexPath) -> ItemPlacement {
        ItemPlacement(id: item, section: snapshot.sectionID(at: p.section), index: p.item,
                      aspect: layout.aspect(of: p), version: snapshot.version(at: p))
    }

    /// The committed index before which the `rest`-th non-dragged item of a section sits.
    func _baseIndex(rest: Int, section: Int) -> Int {
        guard let s = session else { return rest }
        var dragged: [Int] = []
        for item in s.items { if let p = snapshot.indexPath(of: item), p.section == section { dragged.append(p.item) } }
        dragged.sort()
        var index = rest
        for q in dragged where q <= index { index += 1 }
        return index
    }
}
