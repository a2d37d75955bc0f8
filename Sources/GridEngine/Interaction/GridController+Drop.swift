// Performing a local drop (F3, F18, F20, F21, F26–F29): the proposal decides; the change
// is committed as one batch; the preview flies to its place (or home, or into the trash).

extension GridController {
    mutating func _drop(now: Double, _ effects: inout [GridEffect]) {
        guard var s = session, s.isDragging, s.source != .external else { return }
        s._pendingPlacement = nil
        let proposal = s.proposal
        let flyFrom = _previewFrame(s)
        // Dropping from here on: a commit below must not treat the session as a live drag.
        s.phase = .dropping
        session = s
        var outcome = proposal.operation
        var flyTo: Rect?
        var scaleTo = 1.0, opacityTo = 1.0, vanishing = false

        switch (proposal.operation, proposal.target) {
        case (.move, .item(let ip)):
            // Swap mode (F3): the carried item and the hovered one exchange places.
            let other = displayedSnapshot.itemID(at: ip)
            if let a = s.items.first, a != other, let pa = snapshot.indexPath(of: a), let pb = snapshot.indexPath(of: other) {
                let change = ArrangementChange(
                    removed: [_placementRecord(a, at: pa), _placementRecord(other, at: pb)],
                    inserted: [_placementRecord(a, at: pb), _placementRecord(other, at: pa)])
                _preview = nil
                effects.append(_commit(change, kind: .swap, record: true))
            }
        case (.move, .insert), (.move, .gapCell), (.move, .none):
            if let placement = _placement(for: proposal.target), let section = snapshot.indexOfSection(placement.section) {
                let sid = placement.section
                var change = ArrangementChange()
                var inPlace = true
                for (k, item) in s.items.enumerated() {
                    guard let p = snapshot.indexPath(of: item) else { continue }
                    change.removed.append(_placementRecord(item, at: p))
                    change.inserted.append(ItemPlacement(id: item, section: sid, index: placement.index + k,
                                                         aspect: layout.aspect(of: p), version: snapshot.version(at: p)))
                    if p.section != section || p.item != placement.index + k { inPlace = false }
                }
                _preview = nil
                if !inPlace { effects.append(_commit(change, kind: .move, record: true)) }
            }
        case (.copy, .insert), (.copy, .gapCell), (.copy, .none), (.copy, .item):
            var placement = _placement(for: proposal.target)
            if case .item(let ip) = proposal.target {
                placement = _Placement(section: displayedSnapshot.sectionID(at: ip.section), index: _restIndex(ip))
            }
            if let placement, let section = snapshot.indexOfSection(placement.section) {
                let start = _baseIndex(rest: placement.index, section: section)
                var change = ArrangementChange()
                var sources: [ItemID] = [], copies: [ItemID] = []
                for (k, item) in s.items.enumerated() {
                    guard let p = snapshot.indexPath(of: item) else { continue }
                    let copy = _generateID()
                    sources.append(item); copies.append(copy)
                    change.inserted.append(ItemPlacement(id: copy, section: placement.section, index: start + k,
                                                         aspect: layout.aspect(of: p), version: snapshot.version(at: p)))
                }
                _preview = nil
                effects.append(_commit(change, kind: .copy, record: true, copiedFrom: sources, copies: copies))
                if let first = copies.first, let p = snapshot.indexPath(of: first) { flyTo = layout.frame(of: p) }
            }
        case (.copy, .outside(let id)), (.move, .outside(let id)):
            var target: OutsideTarget?
            for o in outsideTargets where o.id == id { target = o }
            if let target, target.deletesItems {
                // The trash (F21): the items leave the collection, the preview shrinks into the can.
                var change = ArrangementChange()
                for item in s.items { if let p = snapshot.indexPath(of: item) { change.removed.append(_placementRecord(item, at: p)) } }
                _preview = nil
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

        guard var s = session else { return }   // a commit may have emptied it
        _preview = nil
        _autoScroller.stop()
        if flyTo == nil, let first = s.items.first, let p = snapshot.indexPath(of: first) { flyTo = layout.frame(of: p) }
        s.phase = .dropping
        s.phaseStartTime = now
        s.outcome = outcome
        s._flyFrom = flyFrom
        s._flyTo = flyTo ?? flyFrom
        s._flyToScale = scaleTo
        s._flyToOpacity = opacityTo
        s._vanishing = vanishing
        session = s
    }

    /// The floating preview's frame in content coordinates (unscaled). For keyboard
    /// drags, the block's slot in the preview.
    func _previewFrame(_ s: DragSession) -> Rect {
        if s.source == .keyboard, let first = s.items.first, let p = displayedSnapshot.indexPath(of: first),
           let f = displayedLayout.frame(of: p) { return f }
        let c = _content(s.location)
        return Rect(x: c.x - s.grabOffset.x, y: c.y - s.grabOffset.y, width: s.previewSize.width, height: s.previewSize.height)
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
