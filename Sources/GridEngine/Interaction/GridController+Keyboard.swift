// Keyboard drag and drop with screen-reader announcements (B3): Space or Enter picks up
// the focused item, arrows move it (across rows and sections), Space or Enter drops it,
// Escape cancels. Without a drag, arrows and Tab move the focus.

extension GridController {
    mutating func _key(_ k: KeyEvent, _ effects: inout [GridEffect]) {
        if let s = session, s.source != .keyboard {
            if k.key == .escape { _cancel(now: k.time, &effects) }
            return
        }
        switch k.key {
        case .space, .enter:
            if let s = session {
                if s.isDragging { _keyboardDrop(k, &effects) }
                return
            }
            _keyboardPickUp(k, &effects)
        case .escape:
            guard let s = session, s.isDragging, let item = s.items.first else {
                if session != nil { _cancel(now: k.time, &effects) }
                return
            }
            _cancel(now: k.time, &effects)
            effects.append(.announce("\(_title(item)) drag cancelled, back at \(_positionText(item, in: _DisplayOrder(base: snapshot, block: nil)))"))
        case .up, .down, .left, .right:
            if let s = session {
                if s.isDragging { _keyboardMove(k, &effects) }
                return
            }
            _moveFocus(k.key, &effects)
        case .tab:
            if session == nil { _moveFocus(.right, &effects) }
        }
    }

    mutating func _keyboardPickUp(_ k: KeyEvent, _ effects: inout [GridEffect]) {
        if isReadOnly, let item = focusedItem, snapshot.contains(item) {
            effects.append(.announce("\(_title(item)) cannot be moved: this gallery is read-only"))
            return
        }
        guard let item = focusedItem, let ip = snapshot.indexPath(of: item), !isPlaceholder(item),
              let f = layout.frame(of: ip) else { return }
        var s = DragSession(source: .keyboard, phase: .lifted, pointerID: -1, pointerKind: .mouse,
                            location: Point(x: f.midX - contentOffset.x, y: f.midY - contentOffset.y), time: k.time)
        s.items = [item]
        s.previewSize = f.size
        s.grabOffset = Point(x: f.width / 2, y: f.height / 2)
        s._placement = _Placement(section: snapshot.sectionID(at: ip.section), index: ip.item)
        s.proposal = _proposal(for: .insert(at: ip), session: s)
        session = s
        _beginDragDisplay()
        effects.append(.dragBegan(items: [item]))
        effects.append(.announce("\(_title(item)) picked up, \(_positionText(item, in: _order))"))
    }

    mutating func _keyboardMove(_ k: KeyEvent, _ effects: inout [GridEffect]) {
        guard var s = session, let item = s.items.first, let here = s._placement,
              let section = _order.indexOfSection(here.section) else { return }
        let snap = _order, lay = layout
        let sections = snap.sectionCount
        var next = here
        switch k.key {
        case .left:
            if here.index > 0 { next.index -= 1 }
            else if section > 0 { next = _Placement(section: snap.sectionID(at: section - 1), index: _restCount(section - 1)) }
        case .right:
            if here.index < _restCount(section) { next.index += 1 }
            else if section + 1 < sections { next = _Placement(section: snap.sectionID(at: section + 1), index: 0) }
        case .up, .down:
            guard let ip = snap.indexPath(of: item), let f = lay.frame(of: ip) else { return }
            let up = k.key == .up
            let gap = lay.configuration.lineSpacing + 1
            let probe = Point(x: f.midX, y: up ? f.minY - gap : f.maxY + gap)
            if let q = lay.indexPath(at: probe), !_isDragged(snap.itemID(at: q)) {
                // Take the place of the item above or below.
                next = _Placement(section: snap.sectionID(at: q.section), index: _restIndex(q) + (_blockBefore(q) ? 1 : 0))
            } else if !up, let g = lay.gapCellFrame(section: ip.section), g.contains(probe), here.index < _restCount(section) {
                next = _Placement(section: here.section, index: _restCount(section))
            } else if up {
                next = section > 0 ? _Placement(section: snap.sectionID(at: section - 1), index: _restCount(section - 1))
                                   : _Placement(section: here.section, index: 0)
            } else {
                next = section + 1 < sections ? _Placement(section: snap.sectionID(at: section + 1), index: 0)
                                              : _Placement(section: here.section, index: _restCount(section))
            }
        default:
            return
        }
        s.phase = .dragging
        session = s
        if next != here { _placeBlock(next) }
        s = session!
        if let placed = s._placement, let t = _order.indexOfSection(placed.section) {
            s.proposal = _proposal(for: .insert(at: IndexPath(item: placed.index, section: t)), session: s)
            session = s
        }
        effects.append(.announce("\(_title(item)), \(_positionText(item, in: _order))"))
    }

    mutating func _keyboardDrop(_ k: KeyEvent, _ effects: inout [GridEffect]) {
        guard let s = session, let item = s.items.first else { return }
        let operation = s.proposal.operation
        _drop(now: k.time, &effects)
        if operation == .move || operation == .copy {
            effects.append(.announce("\(_title(item)) dropped at \(_positionText(item, in: _DisplayOrder(base: snapshot, block: nil)))"))
        } else {
            effects.append(.announce("\(_title(item)) cannot be moved here, back at \(_positionText(item, in: _DisplayOrder(base: snapshot, block: nil)))"))
        }
    }

    /// Without a drag: arrows and Tab move the focus (left/right in order, up/down by row).
    mutating func _moveFocus(_ key: Key, _ effects: inout [GridEffect]) {
        guard snapshot.itemCount > 0 else { return }
        guard let current = focusedItem, let ip = snapshot.indexPath(of: current) else {
            for s in 0..<snapshot.sectionCount where snapshot.itemCount(inSection: s) > 0 {
                focusedItem = snapshot.itemID(at: IndexPath(item: 0, section: s))
                break
            }
            if let f = focusedItem { effects.append(.announce("\(_title(f)), \(_positionText(f, in: _DisplayOrder(base: snapshot, block: nil)))")) }
            return
        }
        var next: IndexPath?
        switch key {
        case .left:
            if ip.item > 0 { next = IndexPath(item: ip.item - 1, section: ip.section) }
            else {
                var s = ip.section - 1
                while s >= 0 && snapshot.itemCount(inSection: s) == 0 { s -= 1 }
                if s >= 0 { next = IndexPath(item: snapshot.itemCount(inSection: s) - 1, section: s) }
            }
        case .right:
            if ip.item + 1 < snapshot.itemCount(inSection: ip.section) { next = IndexPath(item: ip.item + 1, section: ip.section) }
            else {
                var s = ip.section + 1
                while s < snapshot.sectionCount && snapshot.itemCount(inSection: s) == 0 { s += 1 }
                if s < snapshot.sectionCount { next = IndexPath(item: 0, section: s) }
            }
        case .up, .down:
            if let f = layout.frame(of: ip) {
                let gap = layout.configuration.lineSpacing + 1
                next = layout.indexPath(at: Point(x: f.midX, y: key == .up ? f.minY - gap : f.maxY + gap))
                    ?? _itemBeyond(f, up: key == .up)
            }
        default:
            break
        }
        if let next {
            let item = snapshot.itemID(at: next)
            focusedItem = item
            effects.append(.announce("\(_title(item)), \(_positionText(item, in: _DisplayOrder(base: snapshot, block: nil)))"))
        }
    }

    /// The item the focus goes to when nothing lies just above or below `f` (a header, the end
    /// of a waterfall column, a section's gap): the nearest item further on in that direction
    /// under f's middle, else the nearest one at all. Searched in growing bands: O(log n + k).
    func _itemBeyond(_ f: Rect, up: Bool) -> IndexPath? {
        let height = layout.contentSize.height
        var reach = 1000.0
        while true {
            let band = up ? Rect(x: 0, y: max(0, f.minY - reach), width: layout.contentSize.width, height: min(reach, f.minY))
                          : Rect(x: 0, y: f.maxY, width: layout.contentSize.width, height: reach)
            var under: LayoutAttributes?, nearest: LayoutAttributes?
            var nearestScore = Double.infinity
            for a in layout.attributes(in: band) where a.kind == .item {
                if up ? a.frame.maxY > f.minY : a.frame.minY < f.maxY { continue }
                let dy = up ? f.minY - a.frame.maxY : a.frame.minY - f.maxY
                if a.frame.minX <= f.midX && f.midX <= a.frame.maxX {
                    if under == nil || dy < (up ? f.minY - under!.frame.maxY : under!.frame.minY - f.maxY) { under = a }
                } else {
                    let dx = a.frame.midX - f.midX
                    let score = dy * 4 + (dx < 0 ? -dx : dx)
                    if score < nearestScore { nearestScore = score; nearest = a }
                }
            }
            if let under { return under.indexPath }
            let covered = up ? f.minY - reach <= 0 : f.maxY + reach >= height
            if covered { return nearest?.indexPath }
            reach *= 4
        }
    }

    /// "position 2 of 12" (and the section when there are several).
    func _positionText(_ item: ItemID, in snap: _DisplayOrder) -> String {
        guard let ip = snap.indexPath(of: item) else { return "removed" }
        var text = "position \(ip.item + 1) of \(snap.itemCount(inSection: ip.section))"
        if snap.sectionCount > 1 {
            let sid = snap.sectionID(at: ip.section)
            text += ", in \(_sectionTitles[sid] ?? "section \(ip.section + 1)")"
        }
        return text
    }
}
