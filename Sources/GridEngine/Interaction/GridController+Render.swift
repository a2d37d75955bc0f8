// What to draw: the visible elements of the displayed layout with their transforms, plus
// the floating previews of a drag. Plain records, so a bridge can flatten them to numbers.

extension GridController {
    /// The elements to draw in the viewport (see ``visibleCells(in:)``).
    public func visibleCells() -> [RenderedCell] {
        visibleCells(in: Rect(origin: contentOffset, size: viewportSize))
    }

    /// The elements overlapping `rect` (content coordinates): headers, items,
    /// placeholders, gap cells, and on top the floating preview(s) of a drag. O(log n +
    /// visible + dragged items).
    ///
    /// - Lifted: the preview floats under the pointer at the lift scale (F10); the
    ///   items' own slots are `liftedSource` at `sourceOpacity`.
    /// - Swap mode: the hovered item is at `targetScale` / `targetOpacity` (F4).
    /// - Dropping: the preview flies from the pointer to its final frame (or home, or
    ///   shrinks into the trash, F21), eased; settling shows the items in place.
    public func visibleCells(in rect: Rect) -> [RenderedCell] {
        let snap = _order, lay = layout
        let style = configuration.liftStyle
        var out: [RenderedCell] = []
        var hovered: [IndexPath] = []
        var gapTarget = -1
        var hidesDragged = false
        if let s = session {
            switch s.phase {
            case .lifted, .dragging:
                hidesDragged = s.source == .local
                if s.proposal.operation == .move || s.proposal.operation == .copy {
                    // Swap mode: every item the carried ones would exchange with (F4).
                    if case .item(let p) = s.proposal.target { hovered = _swapPartners(at: p) ?? [p] }
                    if case .gapCell(let g) = s.proposal.target { gapTarget = g }
                }
            case .dropping:
                hidesDragged = true
            default:
                break
            }
        }
        var attributes: [LayoutAttributes] = []
        lay.attributes(in: rect, into: &attributes)
        out.reserveCapacity(attributes.count + 2)
        for a in attributes {
            switch a.kind {
            case .header:
                out.append(RenderedCell(kind: .header, item: ItemID(snap.sectionID(at: a.indexPath.section).rawValue),
                                        indexPath: a.indexPath, frame: a.frame, zIndex: 1))
            case .gapCell:
                out.append(RenderedCell(kind: .gapCell, item: ItemID(snap.sectionID(at: a.indexPath.section).rawValue),
                                        indexPath: a.indexPath, frame: a.frame,
                                        flags: a.indexPath.section == gapTarget ? .dropTarget : []))
            case .item:
                let item = snap.itemID(at: a.indexPath)
                var cell = RenderedCell(kind: isPlaceholder(item) ? .placeholder : .item, item: item, indexPath: a.indexPath, frame: a.frame)
                if item == focusedItem { cell.flags.insert(.focused) }
                if let s = session, s.source == .keyboard, s.isDragging, _isDragged(item) {
                    // Keyboard drags lift the item in its slot: no pointer to follow.
                    cell.scale = style.scale
                    cell.opacity = style.opacity
                    cell.zIndex = 1000
                    cell.flags.insert(.lifted)
                    if style.tint { cell.flags.insert(.tinted) }
                } else if hidesDragged && _isSlot(item) {
                    cell.opacity = style.sourceOpacity
                    cell.flags.insert(.liftedSource)
                }
                if !hovered.isEmpty && hovered.contains(a.indexPath) {
                    cell.scale = style.targetScale
                    cell.opacity = style.targetOpacity
                    cell.zIndex = 2
                    cell.flags.insert(.hoveredTarget)
                }
                out.append(cell)
            }
        }
        guard let s = session else { return out }
        switch s.phase {
        case .lifted, .dragging:
            guard s.source == .local else { break }
            let base = _previewFrame(s)
            let forbidden = s.proposal.operation == .forbidden
            for (k, item) in s.items.enumerated() {
                let d = style.stackOffset * Double(k)
                var flags: RenderedCellFlags = [.lifted]
                if style.tint { flags.insert(.tinted) }
                if forbidden && k == 0 { flags.insert(.forbidden) }
                let ip = snap.indexPath(of: item) ?? IndexPath(item: 0, section: 0)
                out.append(RenderedCell(kind: .preview, item: item, indexPath: ip,
                                        frame: Rect(x: base.minX + d, y: base.minY + d, width: base.width, height: base.height),
                                        scale: style.scale, opacity: style.opacity, zIndex: 1000 - k, flags: flags))
            }
        case .dropping:
            out.append(contentsOf: _flyingPreviews(s, style: style))
        default:
            break
        }
        return out
    }

    /// The previews during the drop animation at the session's animation clock.
    func _flyingPreviews(_ s: DragSession, style: LiftStyle) -> [RenderedCell] {
        let duration = configuration.dropDuration
        let t = duration > 0 ? min(1, max(0, (lastEventTime - s.phaseStartTime) / duration)) : 1
        let e = 1 - (1 - t) * (1 - t) * (1 - t)   // ease-out cubic
        func mix(_ a: Double, _ b: Double) -> Double { a + (b - a) * e }
        let from = s._flyFrom, to = s._flyTo
        let frame = Rect(x: mix(from.minX, to.minX), y: mix(from.minY, to.minY),
                         width: mix(from.width, to.width), height: mix(from.height, to.height))
        let startScale = style.scale
        var out: [RenderedCell] = []
        for (k, item) in s.items.enumerated() {
            var flags: RenderedCellFlags = [.lifted]
            if s._vanishing { flags.insert(.vanishing) }
            let ip = snapshot.indexPath(of: item) ?? IndexPath(item: 0, section: 0)
            out.append(RenderedCell(kind: .preview, item: item, indexPath: ip, frame: frame,
                                    scale: mix(startScale, s._flyToScale), opacity: mix(style.opacity, s._flyToOpacity),
                                    zIndex: 1000 - k, flags: flags))
        }
        return out
    }

    /// How every outside target should look (F21: the trash highlights while local items
    /// hover it; external data shows forbidden).
    public func outsideTargetStates() -> [OutsideTargetState] {
        var out: [OutsideTargetState] = []
        for o in outsideTargets {
            var targeted = false, operation = DropOperation.cancel
            if let s = session, s.isDragging, case .outside(let id) = s.proposal.target, id == o.id {
                targeted = true
                operation = s.proposal.operation
            }
            out.append(OutsideTargetState(id: o.id, isTargeted: targeted, operation: operation))
        }
        return out
    }
}
