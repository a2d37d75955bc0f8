// Pointer events and the clock: the session state machine (F9, F17).
//
//     idle ──down on item──▶ pending ──mouse moves ≥ 4 pt / touch rests 0.5 s──▶ lifted
//     lifted ──move──▶ dragging ──up──▶ dropping ──dropDuration──▶ settling ──▶ idle
//     any phase ──cancel / Escape──▶ (animating home) ──▶ idle

extension GridController {
    /// Feeds one event; returns the effects for the host, in order.
    public mutating func handle(_ event: InteractionEvent) -> [GridEffect] {
        var effects: [GridEffect] = []
        lastEventTime = max(lastEventTime, event.time)
        switch event {
        case .pointerDown(let e): _pointerDown(e, &effects)
        case .pointerMove(let e): _pointerMove(e, &effects)
        case .pointerUp(let e): _pointerUp(e, &effects)
        case .pointerCancel(let id, let time):
            if let s = session, s.pointerID == id || s.phase == .pending { _cancel(now: time, &effects) }
            else if var s = session { s._taps.removeAll { $0.pointerID == id }; session = s }
        case .key(let k): _key(k, &effects)
        case .scroll(let offset, let time):
            contentOffset = offset
            if let s = session, s.isDragging, s.source != .keyboard { _retarget(now: time, &effects) }
        case .wheel(let delta, let time):
            let dy = _scroll(by: delta.y)
            if dy != 0 { effects.append(.scrollBy(dy: dy)) }
            if dy != 0, let s = session, s.isDragging, s.source != .keyboard { _retarget(now: time, &effects) }
        case .externalDragEnter(let items, let location, let time): _externalEnter(items, location, time, &effects)
        case .externalDragMove(let location, let modifiers, let time): _externalMove(location, modifiers, time, &effects)
        case .externalDragLeave(let time): _externalLeave(time, &effects)
        case .externalDrop(let location, let time): _externalDrop(location, time, &effects)
        }
        return effects
    }

    /// Advances time: completes long presses, auto-scrolls (F11), applies a waiting
    /// reorder (cadence), runs the drop and settle animations to their end.
    public mutating func tick(now: Double) -> [GridEffect] {
        var effects: [GridEffect] = []
        lastEventTime = max(lastEventTime, now)
        guard let s = session else { return effects }
        switch s.phase {
        case .idle:
            break
        case .pending:
            if s.pointerKind == .touch && now - s.startTime >= configuration.longPressDuration {
                _lift(time: now, &effects)
            }
        case .lifted, .dragging:
            let dy = _scroll(by: _autoScroller.step(now: now))
            if dy != 0 { effects.append(.scrollBy(dy: dy)) }
            // The content moved under a resting pointer, or a waiting reorder is due.
            if s.source != .keyboard { _retarget(now: now, &effects) }
        case .dropping, .settling:
            _advanceAnimation(now: now, &effects)
        }
        return effects
    }

    /// Adds an item to the drag in progress (F17: tapping further items). In insert mode
    /// the item joins the block after the items already carried; in swap mode the items
    /// swap with the hovered item and those after it (see `_swapPartners`).
    public mutating func addToDrag(_ item: ItemID) -> [GridEffect] {
        var effects: [GridEffect] = []
        _addToDrag(item, &effects)
        return effects
    }

    /// Cancels the drag in whatever phase it is (the preview flies home, nothing changes).
    public mutating func cancelDrag(now: Double) -> [GridEffect] {
        var effects: [GridEffect] = []
        _cancel(now: now, &effects)
        return effects
    }

    /// Scrolls by `dy` within the content; returns how far it really moved.
    /// Edge auto-scroll (F11) for a drag the host carries itself — a section header dragged to
    /// reorder the sections (issue 13) — on the same curve as the engine's own drags. A header
    /// is much shorter than a photo: it is carried as a band `rampDistance` tall centred on the
    /// pointer, so the pointer at the edge already scrolls at a quarter of the cap and half the
    /// ramp past it reaches the cap (a photo's own frame does the same for a photo drag).
    /// `pointerY` is in viewport coordinates; nil: the drag ended, the scrolling stops. Call it
    /// every frame while the drag lasts; answers the points scrolled for the frame ending at
    /// `now` (0 at rest, or while the engine's own drag runs).
    public mutating func edgeScroll(pointerY: Double?, now: Double) -> Double {
        guard session == nil else { return 0 }
        guard let y = pointerY else { _autoScroller.stop(); return 0 }
        lastEventTime = max(lastEventTime, now)
        let band = max(1, _autoScroller.configuration.rampDistance)
        _autoScroller.update(dragFrame: Rect(x: 0, y: y - band / 2, width: viewportSize.width, height: band), viewport: viewportSize, now: now)
        return _scroll(by: _autoScroller.step(now: now))
    }

    mutating func _scroll(by dy: Double) -> Double {
        guard dy != 0 && dy.isFinite else { return 0 }
        let maxY = max(0, contentSize.height - viewportSize.height)
        let y = min(maxY, max(0, contentOffset.y + dy))
        let moved = y - contentOffset.y
        contentOffset.y = y
        return moved
    }

    // MARK: - Pointer

    func _content(_ p: Point) -> Point { Point(x: p.x + contentOffset.x, y: p.y + contentOffset.y) }

    /// Whether two points are farther apart than `limit` (squared: no libm).
    static func _farther(_ a: Point, _ b: Point, than limit: Double) -> Bool {
        let dx = a.x - b.x, dy = a.y - b.y
        return dx * dx + dy * dy > limit * limit
    }

    /// Whether two points are at least `distance` apart.
    static func _reaches(_ a: Point, _ b: Point, _ distance: Double) -> Bool {
        let dx = a.x - b.x, dy = a.y - b.y
        return dx * dx + dy * dy >= distance * distance
    }

    mutating func _pointerDown(_ e: PointerEvent, _ effects: inout [GridEffect]) {
        if var s = session {
            if s.isDragging && s.source == .local && e.id != s.pointerID {
                // A second finger: if it lifts without moving, its item joins the drag (F17).
                if let ip = layout.indexPath(at: _content(e.location)) {
                    let item = _order.itemID(at: ip)
                    if !_isDragged(item) && !isPlaceholder(item) {
                        s._taps.append(_Tap(pointerID: e.id, location: e.location, item: item))
                        session = s
                    }
                }
                return
            }
            switch s.phase {
            case .dropping, .settling: _finishSession(&effects)   // a new gesture ends the animation
            case .pending: session = nil
            default: return                                         // one drag at a time
            }
        }
        guard let ip = layout.indexPath(at: _content(e.location)) else { return }
        let item = snapshot.itemID(at: ip)
        if isPlaceholder(item) { return }
        focusedItem = item
        var s = DragSession(source: .local, phase: .pending, pointerID: e.id, pointerKind: e.kind, location: e.location, time: e.time)
        s.items = [item]
        s.modifiers = e.modifiers
        session = s
    }

    mutating func _pointerMove(_ e: PointerEvent, _ effects: inout [GridEffect]) {
        guard var s = session, s.source == .local else { return }
        if e.id != s.pointerID {
            if let k = s._taps.firstIndex(where: { $0.pointerID == e.id }),
               GridController._farther(s._taps[k].location, e.location, than: configuration.tapSlop) {
                s._taps.remove(at: k)
                session = s
            }
            return
        }
        switch s.phase {
        case .pending:
            let moved = s.startLocation != e.location
            s.location = e.location
            s.modifiers = e.modifiers
            session = s
            if s.pointerKind == .touch {
                if GridController._farther(s.startLocation, e.location, than: configuration.touchSlop) {
                    // Moved before the long press completed: a scroll, not a drag.
                    if e.time - s.startTime < configuration.longPressDuration { session = nil; return }
                }
                if e.time - s.startTime >= configuration.longPressDuration {
                    _lift(time: e.time, &effects)
                    if moved { _dragMove(e, &effects) }
                }
            } else if GridController._reaches(s.startLocation, e.location, configuration.mouseLiftDistance) {
                _lift(time: e.time, &effects)
                _dragMove(e, &effects)
            }
        case .lifted, .dragging:
            _dragMove(e, &effects)
        default:
            break
        }
    }

    mutating func _pointerUp(_ e: PointerEvent, _ effects: inout [GridEffect]) {
        guard var s = session, s.source == .local else { return }
        if e.id != s.pointerID {
            if let k = s._taps.firstIndex(where: { $0.pointerID == e.id }) {
                let tap = s._taps.remove(at: k)
                session = s
                if !GridController._farther(tap.location, e.location, than: configuration.tapSlop) { _addToDrag(tap.item, &effects) }
            }
            return
        }
        switch s.phase {
        case .pending:
            session = nil
            if let item = s.items.first { effects.append(.itemTapped(item)) }
        case .lifted, .dragging:
            s.location = e.location
            s.modifiers = e.modifiers
            session = s
            _retarget(now: e.time, flush: true, &effects)
            _drop(now: e.time, &effects)
        default:
            break
        }
    }

    /// Lifts the pending item: the preview floats at the lift scale (F10), the gap cells
    /// appear (F27), the hook at drag begin runs.
    mutating func _lift(time: Double, _ effects: inout [GridEffect]) {
        guard !isReadOnly, var s = session, let item = s.items.first, let ip = snapshot.indexPath(of: item),
              let f = layout.frame(of: ip) else { session = nil; return }
        let grab = _content(s.startLocation)
        s.grabOffset = Point(x: grab.x - f.minX, y: grab.y - f.minY)
        s.previewSize = f.size
        s.phase = .lifted
        s.phaseStartTime = time
        s._placement = _Placement(section: snapshot.sectionID(at: ip.section), index: ip.item)
        session = s
        _beginDragDisplay()
        effects.append(.dragBegan(items: s.items))
        _retarget(now: time, &effects)
    }

    mutating func _dragMove(_ e: PointerEvent, _ effects: inout [GridEffect]) {
        guard var s = session else { return }
        s.location = e.location
        s.modifiers = e.modifiers
        s.phase = .dragging
        session = s
        _retarget(now: e.time, &effects)
        _updateAutoScroll(now: e.time)
    }

    /// Half the height of the box that stands for external data in auto-scroll.
    static let _externalScrollBand = 30.0

    mutating func _updateAutoScroll(now: Double) {
        guard let s = session, s.isDragging, s.source != .keyboard else { _autoScroller.stop(); return }
        // Over an outside target (the trash sits in the bottom edge zone on a phone) the user aims
        // at it: the grid holds still under the pointer.
        if outsideTargets.contains(where: { $0.frame.contains(s.location) }) { _autoScroller.stop(); return }
        var frame = Rect(x: s.location.x - s.grabOffset.x, y: s.location.y - s.grabOffset.y,
                         width: s.previewSize.width, height: s.previewSize.height)
        if s.source == .external {
            // No cell to measure: external data scrolls within an edge band around the pointer.
            let band = GridController._externalScrollBand
            frame = Rect(x: s.location.x - band, y: s.location.y - band, width: 2 * band, height: 2 * band)
        }
        _autoScroller.update(dragFrame: frame, viewport: viewportSize, now: now)
    }

    /// Recomputes the proposal under the pointer and moves the live preview (cadence).
    /// `flush`: the drop is about to happen, a waiting placement is applied now.
    ///
    /// The preview is stable (issue 3): after it reflowed, the block holds its place until
    /// the pointer has moved `_holdDistance` in the content (a pointer at rest while the
    /// view auto-scrolls moves in the content, so reordering goes on); meanwhile the
    /// proposal points where the block shows. The reflow itself moves other cells under
    /// a resting pointer — in a waterfall or justified layout often onto another
    /// destination — and without the hold the block would chase its own reflow and flip
    /// back and forth. The drop lands exactly where the block shows.
    mutating func _retarget(now: Double, flush: Bool = false, _ effects: inout [GridEffect]) {
        guard var s = session, s.isDragging, s.source != .keyboard else { return }
        var target = _target(at: s.location)
        var proposal = _proposal(for: target, session: s)
        let reorders = s.source == .local && configuration.reorderMode == .insert
            && (proposal.operation == .move || proposal.operation == .copy)
        if reorders && s._copyPreview != (proposal.operation == .copy) {
            // A copy shows as a copy: the originals stay and the copies' slots open at the
            // destination; a move shows the items themselves there. Same placement.
            s._copyPreview = proposal.operation == .copy
            s._reflowedAt = nil   // a new look: the place may follow the pointer once more
            session = s
            _applyBlock(nil)
            if let p = s._placement { _placeBlock(p) }
            s = session!
            target = _target(at: s.location)
            proposal = _proposal(for: target, session: s)
        }
        defer {
            if let s = session, proposal != s.proposal {
                session!.proposal = proposal
                effects.append(.proposalChanged(proposal))
            }
        }
        guard reorders, let placement = _placement(for: target) else {
            s._pendingPlacement = nil
            session = s
            return
        }
        // A copy whose slots have not opened yet shows the collection as it is (as a move
        // does at lift): they open where the pointer first aims off the dragged items —
        // at the originals' own place only when it is on a cell that puts them there (the
        // item after the original), not while it crosses the spacing beside the original —
        // never beside the original on their own.
        let closed = s._copyPreview && !s._placedByPointer
        if closed && (_overDraggedItem(s.location)
                      || placement == s._placement && !_onCell(s.location, target)) {
            s._pendingPlacement = nil
            session = s
            proposal = _proposalAtShownPlacement(proposal)
            return
        }
        if placement == s._placement && !closed {
            s._pendingPlacement = nil
            session = s
            return
        }
        let here = _content(s.location)
        if let at = s._reflowedAt, !GridController._farther(at, here, than: GridController._holdDistance) {
            // Just reflowed and the pointer has not moved on: the block holds its place.
            s._pendingPlacement = nil
            session = s
            proposal = _proposalAtShownPlacement(proposal)
            return
        }
        let delay = flush ? 0 : configuration.cadence.delay
        if delay > 0 && s._pendingPlacement != placement {
            s._pendingPlacement = placement
            s._pendingSince = now
            session = s
            return
        }
        if delay > 0 && now - s._pendingSince < delay { session = s; return }
        s._pendingPlacement = nil
        s._reflowedAt = here
        s._placedByPointer = true
        session = s
        _placeBlock(placement)
    }

    /// How far (points, in the content) the pointer must move after a reflow before the
    /// block may move again.
    static let _holdDistance = 8.0

    /// `proposal` pointing where the live preview shows the block (rest coordinates).
    func _proposalAtShownPlacement(_ proposal: DropProposal) -> DropProposal {
        guard let p = session?._placement, let section = snapshot.indexOfSection(p.section) else { return proposal }
        var out = proposal
        out.target = .insert(at: IndexPath(item: p.index, section: section))
        out.intent = .insertAtDestinationIndexPath
        return out
    }

    func _proposal(for target: DropTarget, session s: DragSession) -> DropProposal {
        var targetReadOnly = false
        if case .item(let p) = target {
            // Every item of a swap run must be movable.
            let order = _order
            for q in _swapPartners(at: p) ?? [p] where isReadOnly(order.itemID(at: q)) { targetReadOnly = true }
        }
        var carriesReadOnly = false
        for i in s.items where isReadOnly(i) { carriesReadOnly = true }
        var outside: OutsideTarget?
        if case .outside(let id) = target { for o in outsideTargets where o.id == id { outside = o; break } }
        var accepted = 0
        for k in s.externalItems where policy.accepts(k) { accepted += 1 }
        return policy.proposal(for: target, isLocal: s.source != .external, carriesReadOnly: carriesReadOnly,
                               targetIsReadOnly: targetReadOnly, acceptedExternalCount: accepted,
                               modifiers: s.modifiers, outside: outside)
    }

    mutating func _addToDrag(_ item: ItemID, _ effects: inout [GridEffect]) {
        guard var s = session, s.isDragging, s.source == .local,
              snapshot.contains(item), !_isDragged(item), !isPlaceholder(item) else { return }
        s.items.append(item)
        session = s
        guard _showsBlock(s) else {
            // Swap mode: no live block; the carried items swap as a run on the drop.
            effects.append(.dragBegan(items: [item]))
            _retarget(now: lastEventTime, &effects)
            return
        }
        // The new item leaves the rest: re-express the block's place without it (a copy
        // preview keeps its slots before the same neighbour; a move follows the primary).
        let anchor = _block.flatMap { $0.isCopy && $0.slotsOpen ? $0.copies.first : nil } ?? s.items.first
        if let anchor, let ip = _order.indexPath(of: anchor) {
            s._placement = _Placement(section: _order.sectionID(at: ip.section), index: _restIndex(ip))
            session = s
            if let p = s._placement { _placeBlock(p) }
        }
        effects.append(.dragBegan(items: [item]))
    }

    // MARK: - Ending

    /// Cancels from any phase: pending ends at once; lifted or dragging fly home; an
    /// animation in progress finishes at once.
    mutating func _cancel(now: Double, _ effects: inout [GridEffect]) {
        guard var s = session else { return }
        switch s.phase {
        case .idle, .pending:
            session = nil
        case .lifted, .dragging:
            if s.source == .external {
                session = nil
                _endDragDisplay()
                _autoScroller.stop()
                effects.append(.dragEnded(operation: .cancel, items: []))
                return
            }
            s.proposal = DropProposal(operation: .cancel, intent: .unspecified, target: .offscreen)
            session = s
            _drop(now: now, &effects)
        case .dropping, .settling:
            _finishSession(&effects)
        }
    }

    mutating func _advanceAnimation(now: Double, _ effects: inout [GridEffect]) {
        guard var s = session else { return }
        if s.phase == .dropping && now - s.phaseStartTime >= configuration.dropDuration {
            s.phase = .settling
            s.phaseStartTime += configuration.dropDuration
            session = s
        }
        if s.phase == .settling && now - s.phaseStartTime >= configuration.settleDuration {
            _finishSession(&effects)
        }
    }

    /// Ends the session: the hook after the drop runs (F10), the gap cells are gone.
    mutating func _finishSession(_ effects: inout [GridEffect]) {
        guard let s = session else { return }
        session = nil
        _endDragDisplay()
        _autoScroller.stop()
        effects.append(.dragEnded(operation: s.outcome, items: s.items))
    }
}
