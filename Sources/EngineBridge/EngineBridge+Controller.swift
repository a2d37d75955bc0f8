import GridEngine

// The interaction controller (drag sessions, proposals, placeholders, undo) over the flat
// call surface. Layouts of every input and answer: docs/engine-bridge.md.

extension EngineBridge {
    func _controller(_ r: inout _BridgeReader) throws(_BridgeFailure) -> Int {
        let h = try r.int()
        guard h < _controllers.count, _controllers[h] != nil else { throw _BridgeFailure(.unknownHandle) }
        return h
    }

    /// [kind, a, b, containerWidth, headerHeight, top, left, bottom, right, itemSpacing,
    ///  lineSpacing, (gap cells: ignored), dropIntoFraction]
    static func _configuration(_ r: inout _BridgeReader) throws(_BridgeFailure) -> LayoutConfiguration {
        let kind = try _kind(&r)
        var v: [Double] = []
        for _ in 0..<10 { v.append(try _finite(&r)) }
        return LayoutConfiguration(kind: kind, containerWidth: v[0], headerHeight: v[1],
                                   sectionInsets: EdgeInsets(top: v[2], left: v[3], bottom: v[4], right: v[5]),
                                   itemSpacing: v[6], lineSpacing: v[7], showsGapCells: false, dropIntoFraction: v[9])
    }

    static func _string(_ r: inout _BridgeReader) throws(_BridgeFailure) -> String {
        let n = try r.count(stride: 1)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(n)
        for _ in 0..<n { bytes.append(UInt8(try r.int(in: 0...255))) }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func _put(_ s: String, into out: inout [Double]) {
        let bytes = Array(s.utf8)
        out.append(Double(bytes.count))
        for b in bytes { out.append(Double(b)) }
    }

    // [snapshot, aspect per item in snapshot order, configuration (13), viewport w, h,
    //  ``BridgeReorderMode``, ``BridgeCadence``, ``BridgeSnapping``] → [handle]
    mutating func _controllerCreate(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let snapshot = try Self._snapshot(&r)
        var aspects: [[Double]] = []
        aspects.reserveCapacity(snapshot.sectionCount)
        for s in 0..<snapshot.sectionCount { aspects.append(try r.doubles(snapshot.itemCount(inSection: s))) }
        let config = try Self._configuration(&r)
        let viewport = Size(width: try Self._finite(&r), height: try Self._finite(&r))
        var interaction = InteractionConfiguration()
        interaction.reorderMode = try r.code(BridgeReorderMode.self).engineValue
        interaction.cadence = try r.code(BridgeCadence.self).engineValue
        let snapping = try r.code(BridgeSnapping.self).engineValue
        do throws(GridControllerError) {
            var c = try GridController(snapshot: snapshot, aspects: aspects, layout: config, viewport: viewport,
                                       interaction: interaction)
            c.snapping = snapping
            _controllers.append(c)
        } catch {
            throw _BridgeFailure(.malformedInput)
        }
        out.append(Double(_controllers.count - 1))
    }

    // [handle, configuration (13), viewport w, h, reorder mode, cadence, snapping, read-only]
    //  → [content width, height]
    mutating func _controllerConfigure(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let h = try _controller(&r)
        let config = try Self._configuration(&r)
        let viewport = Size(width: try Self._finite(&r), height: try Self._finite(&r))
        let mode = try r.code(BridgeReorderMode.self).engineValue
        let cadence = try r.code(BridgeCadence.self).engineValue
        let snapping = try r.code(BridgeSnapping.self).engineValue
        let readOnly = try r.double() != 0
        var c = _controllers[h]!
        _controllers[h] = nil // keep the controller uniquely referenced while it changes
        c.setViewport(viewport)
        if c.layout.configuration != config { c.setLayoutConfiguration(config) }
        c.configuration.reorderMode = mode
        c.configuration.cadence = cadence
        c.snapping = snapping
        c.policy.isReadOnly = readOnly
        let size = c.contentSize
        _controllers[h] = c
        out.append(size.width); out.append(size.height)
    }

    // [handle, kind, a, b, anchor x, y (viewport)] → [new content offset x, y, width, height]:
    // a density change (pinch, F22) that keeps the item under the anchor in place.
    mutating func _controllerPinch(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let h = try _controller(&r)
        let kind = try Self._kind(&r)
        let anchor = Point(x: try Self._finite(&r), y: try Self._finite(&r))
        var c = _controllers[h]!
        _controllers[h] = nil
        let old = c.layout
        var config = old.configuration
        config.kind = kind
        c.setLayoutConfiguration(config)
        let offset = old.anchoredContentOffset(anchor: anchor, contentOffset: c.contentOffset, in: c.layout)
        let size = c.contentSize
        let y = max(0, min(offset.y, size.height - c.viewportSize.height))
        _ = c.handle(.scroll(offset: Point(x: offset.x, y: y), time: c.lastEventTime))
        _controllers[h] = c
        out.append(offset.x); out.append(y); out.append(size.width); out.append(size.height)
    }

    // [handle, count, per target: id, x, y, w, h (viewport coordinates), local operation
    //  (``BridgeDropOperation``), accepts external, deletes items] → []
    mutating func _controllerOutsideTargets(_ r: inout _BridgeReader) throws(_BridgeFailure) {
        let h = try _controller(&r)
        var targets: [OutsideTarget] = []
        for _ in 0..<(try r.count(stride: 8)) {
            let id = try r.int()
            let frame = Rect(x: try Self._finite(&r), y: try Self._finite(&r), width: try Self._finite(&r), height: try Self._finite(&r))
            let op = try r.code(BridgeDropOperation.self).engineValue
            targets.append(OutsideTarget(id: id, frame: frame, localOperation: op,
                                         acceptsExternal: try r.double() != 0, deletesItems: try r.double() != 0))
        }
        _controllers[h]!.outsideTargets = targets
    }

    // [handle, count, per title: ``BridgeTitleKind``, id, UTF-8 length, bytes] → []
    mutating func _controllerTitles(_ r: inout _BridgeReader) throws(_BridgeFailure) {
        let h = try _controller(&r)
        for _ in 0..<(try r.count(stride: 3)) {
            let kind = try r.code(BridgeTitleKind.self), id = try r.id()
            let title = try Self._string(&r)
            if kind == .item { _controllers[h]!.setTitle(title, for: ItemID(id)) }
            else { _controllers[h]!.setTitle(title, forSection: SectionID(id)) }
        }
    }

    // [handle, ``BridgeEventType``, its fields (see there)] → effects
    mutating func _controllerEvent(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let h = try _controller(&r)
        let type = try r.code(BridgeEventType.self)
        let event: InteractionEvent
        func point(_ r: inout _BridgeReader) throws(_BridgeFailure) -> Point {
            Point(x: try Self._finite(&r), y: try Self._finite(&r))
        }
        switch type {
        case .pointerDown, .pointerMove, .pointerUp:
            let id = try r.int(in: -1_000_000...1_000_000)
            let p = try point(&r)
            let time = try Self._finite(&r)
            let kind = try r.code(BridgePointerKind.self).engineValue
            let e = PointerEvent(id: id, location: p, time: time, kind: kind, modifiers: BridgeModifier.modifiers(try r.bits()))
            event = type == .pointerDown ? .pointerDown(e) : type == .pointerMove ? .pointerMove(e) : .pointerUp(e)
        case .pointerCancel:
            let id = try r.int(in: -1_000_000...1_000_000)
            event = .pointerCancel(id: id, time: try Self._finite(&r))
        case .key:
            let key = try r.code(BridgeKey.self).engineValue
            let modifiers = BridgeModifier.modifiers(try r.bits())
            event = .key(KeyEvent(key, modifiers: modifiers, time: try Self._finite(&r)))
        case .scroll:
            let p = try point(&r)
            event = .scroll(offset: p, time: try Self._finite(&r))
        case .externalEnter:
            let p = try point(&r)
            let time = try Self._finite(&r)
            var kinds: [DropDataKinds] = []
            for _ in 0..<(try r.count(stride: 1)) { kinds.append(BridgeDropData.kinds(try r.bits())) }
            event = .externalDragEnter(items: kinds, location: p, time: time)
        case .externalMove:
            let p = try point(&r)
            let modifiers = BridgeModifier.modifiers(try r.bits())
            event = .externalDragMove(location: p, modifiers: modifiers, time: try Self._finite(&r))
        case .externalLeave:
            event = .externalDragLeave(time: try Self._finite(&r))
        case .externalDrop:
            let p = try point(&r)
            event = .externalDrop(location: p, time: try Self._finite(&r))
        case .wheel:
            let delta = try point(&r)
            event = .wheel(delta: delta, time: try Self._finite(&r))
        }
        let effects = _controllers[h]!.handle(event)
        Self._encode(effects, into: &out)
    }

    // [handle, now] → effects
    mutating func _controllerTick(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let h = try _controller(&r)
        let now = try Self._finite(&r)
        Self._encode(_controllers[h]!.tick(now: now), into: &out)
    }

    // [handle, x, y, w, h (content rect)] → [content w, h, offset x, y, phase, can undo, can redo,
    //  cell count, per cell: ``BridgeCellKind``, item id, section, item, x, y, w, h, scale,
    //  opacity, z, ``BridgeCellFlag`` bits; outside target count, per target: id, targeted,
    //  ``BridgeDropOperation``]
    func _controllerRender(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let c = _controllers[try _controller(&r)]!
        let rect = Rect(x: try Self._finite(&r), y: try Self._finite(&r), width: try Self._finite(&r), height: try Self._finite(&r))
        let size = c.contentSize
        out.append(size.width); out.append(size.height)
        out.append(c.contentOffset.x); out.append(c.contentOffset.y)
        out.append(Double(BridgePhase(c.session?.phase ?? .idle).rawValue))
        out.append(c.canUndo ? 1 : 0); out.append(c.canRedo ? 1 : 0)
        let cells = c.visibleCells(in: rect)
        out.append(Double(cells.count))
        for cell in cells {
            out.append(Double(BridgeCellKind(cell.kind).rawValue)); out.append(Double(cell.item.rawValue))
            out.append(Double(cell.indexPath.section)); out.append(Double(cell.indexPath.item))
            out.append(cell.frame.minX); out.append(cell.frame.minY); out.append(cell.frame.width); out.append(cell.frame.height)
            out.append(cell.scale); out.append(cell.opacity); out.append(Double(cell.zIndex)); out.append(Double(BridgeCellFlag.bits(cell.flags)))
        }
        let targets = c.outsideTargetStates()
        out.append(Double(targets.count))
        for t in targets { out.append(Double(t.id)); out.append(t.isTargeted ? 1 : 0); out.append(Double(BridgeDropOperation(t.operation).rawValue)) }
    }

    // [handle, snapshot (the server's arrangement), count, per item: id, aspect] → effects
    mutating func _controllerLiveSnapshot(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let h = try _controller(&r)
        let model = try Self._snapshot(&r)
        var aspects: [ItemID: Double] = [:]
        for _ in 0..<(try r.count(stride: 2)) { let id = ItemID(try r.id()); aspects[id] = try r.double() }
        do throws(GridControllerError) {
            Self._encode(try _controllers[h]!.applyLiveSnapshot(model, aspects: aspects), into: &out)
        } catch {
            throw _BridgeFailure(.invalidBatch)
        }
    }

    // [handle, item count, section count] → []. Starts handing over the server's whole
    // arrangement in parts (a reload): GridController.beginLiveReplacement.
    mutating func _controllerLiveReplaceBegin(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let h = try _controller(&r)
        let items = try r.int(), sections = try r.int()
        _controllers[h]!.beginLiveReplacement(itemCount: items, sectionCount: sections)
    }

    // [handle, group count, per group: section id, item count m, m item ids, m versions, m
    // aspects] → []. The next items of the replacement in arrangement order; a group whose
    // section is the last one begun continues it (a section may be split between calls), else
    // it begins the next section. A repeated id: invalidSnapshot, and the replacement is forgotten.
    mutating func _controllerLiveReplaceAppend(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let h = try _controller(&r)
        for _ in 0..<(try r.count(stride: 2)) {
            let id = SectionID(try r.id())
            let m = try r.count(stride: 3)
            let items = try r.ids(m), versions = try r.versions(m), aspects = try r.doubles(m)
            do throws(GridControllerError) {
                try _controllers[h]!.appendToLiveReplacement(section: id, items: items, versions: versions, aspects: aspects)
            } catch {
                throw _BridgeFailure(.invalidSnapshot)
            }
        }
    }

    // [handle] → effects (a liveUpdate commit naming no stages): the replacement swapped in
    // (GridController.finishLiveReplacement: no diff against the old arrangement, no table of
    // aspects by id; the layout O(n)). None begun, or one naming a placeholder: invalidBatch.
    mutating func _controllerLiveReplaceFinish(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let h = try _controller(&r)
        do throws(GridControllerError) {
            Self._encode(try _controllers[h]!.finishLiveReplacement(), into: &out)
        } catch {
            throw _BridgeFailure(.invalidBatch)
        }
    }

    // [handle, stage count, stages (as diff answers them), count, per item: id, aspect,
    //  count, ids the first stage takes away] → effects (a liveUpdate commit). The server's
    // changes applied where they are (GridController.applyLiveChanges: O(k + touched
    // sections) for one stage of item changes). The ids are those at the first stage's
    // deletes, then its move sources, in the model the page applied them to: when the
    // engine holds other items there (it did not start from the same arrangement), the call
    // is refused with invalidBatch and changes nothing, as when a stage breaks UIKit's rules.
    mutating func _controllerLiveChanges(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let h = try _controller(&r)
        var stages: [BatchUpdate] = []
        for _ in 0..<(try r.count(stride: 8)) { stages.append(try Self._decodeStage(&r)) }
        var aspects: [ItemID: Double] = [:]
        for _ in 0..<(try r.count(stride: 2)) { let id = ItemID(try r.id()); aspects[id] = try r.double() }
        var expected: [ItemID] = []
        for _ in 0..<(try r.count(stride: 1)) { expected.append(ItemID(try r.id())) }
        let sources = stages.first.map { $0.itemDeletes.count + $0.itemMoves.count } ?? 0
        guard expected.count == sources else { throw _BridgeFailure(.malformedInput) }
        var c = _controllers[h]!
        _controllers[h] = nil // keep the controller uniquely referenced while it changes
        defer { _controllers[h] = c }
        // The sources of the first stage are checked against the engine's model; later
        // stages apply to intermediate arrangements the engine validates by UIKit's rules.
        if let first = stages.first {
            var k = 0
            for p in first.itemDeletes + first.itemMoves.map({ $0.from }) {
                guard p.section >= 0, p.section < c.snapshot.sectionCount,
                      c.modelItem(section: c.snapshot.sectionID(at: p.section), index: p.item) == expected[k]
                else { throw _BridgeFailure(.invalidBatch) }
                k += 1
            }
        }
        do throws(GridControllerError) {
            Self._encode(try c.applyLiveChanges(StagedChangeset(stages: stages), aspects: aspects), into: &out)
        } catch {
            throw _BridgeFailure(.invalidBatch)
        }
    }

    // [handle, section count, item count per section, count, per item: id, section, item,
    //  version (section and item −1: the version wherever the item is), count, absent ids] → [1 when the model (without placeholders) has exactly
    //  these counts, these items at these places with these versions and none of the absent
    //  ids; else 0]. O(k) without placeholders.
    func _controllerModelMatches(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let c = _controllers[try _controller(&r)]!
        var counts: [Int] = []
        for _ in 0..<(try r.count(stride: 1)) { counts.append(try r.int()) }
        var placed: [(id: ItemID, at: IndexPath, version: UInt32)] = []
        for _ in 0..<(try r.count(stride: 4)) {
            let id = ItemID(try r.id()), s = try r.int(in: -1...Int(Int32.max)), i = try r.int(in: -1...Int(Int32.max))
            placed.append((id, IndexPath(item: i, section: s), try r.version()))
        }
        var absent: [ItemID] = []
        for _ in 0..<(try r.count(stride: 1)) { absent.append(ItemID(try r.id())) }
        out.append(c.modelMatches(counts: counts, placed: placed, absent: absent) ? 1 : 0)
    }

    // [handle, read-only (0 or 1), now] → effects (a drag in progress is cancelled when the
    // grid becomes read-only). Read-only: pointer and keyboard lifts, external drops,
    // pastes and undo are refused; taps, focus and scrolling still work.
    mutating func _controllerReadOnly(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let h = try _controller(&r)
        let readOnly = try r.int(in: 0...1) == 1
        let now = try Self._finite(&r)
        Self._encode(_controllers[h]!.setReadOnly(readOnly, now: now), into: &out)
    }

    // [handle, section id, count, item ids...] → effects: the section in that order as one
    // committed move (none when nothing changes, during a drag or read-only).
    mutating func _controllerArrange(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let h = try _controller(&r)
        let section = SectionID(try r.id())
        var order: [ItemID] = []
        for _ in 0..<(try r.count(stride: 1)) { order.append(ItemID(try r.id())) }
        Self._encode(_controllers[h]!.arrange(section: section, order: order), into: &out)
    }

    // [handle, section id, count, item ids] → effects: select mode's "move to section"
    mutating func _controllerMoveItems(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let h = try _controller(&r)
        let section = SectionID(try r.id())
        var items: [ItemID] = []
        for _ in 0..<(try r.count(stride: 1)) { items.append(ItemID(try r.id())) }
        Self._encode(_controllers[h]!.moveItems(items, toSection: section), into: &out)
    }

    // [handle, BridgeSectionEdit, section id, index] → effects (issue 13: sections)
    mutating func _controllerSectionEdit(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let h = try _controller(&r)
        let kind = try r.code(BridgeSectionEdit.self)
        let section = try Self._finite(&r)
        let index = try Self._finite(&r)
        guard index > -1e9 && index < 1e9 else { throw _BridgeFailure(.malformedInput) }
        let id = section >= 0 && section < 9007199254740992 ? SectionID(UInt64(section)) : nil
        let effects: [GridEffect]
        switch kind {
        case .add: effects = _controllers[h]!.addSection(at: index < 0 ? nil : Int(index))
        case .move: effects = id.map { _controllers[h]!.moveSection($0, to: Int(index)) } ?? []
        case .delete: effects = id.map { _controllers[h]!.deleteSection($0) } ?? []
        }
        Self._encode(effects, into: &out)
    }

    // [handle, section id, header top y (content)] → [index, or −1]
    func _controllerSectionDropIndex(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let c = _controllers[try _controller(&r)]!
        let section = SectionID(try r.id())
        out.append(Double(c.sectionDropIndex(section, contentY: try Self._finite(&r)) ?? -1))
    }

    // [handle, count, item ids] → effects: select mode's "trash"
    mutating func _controllerTrashItems(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let h = try _controller(&r)
        var items: [ItemID] = []
        for _ in 0..<(try r.count(stride: 1)) { items.append(ItemID(try r.id())) }
        Self._encode(_controllers[h]!.trashItems(items), into: &out)
    }

    // [handle, placeholder id, item id, aspect, version] → effects
    mutating func _controllerCommitInsertion(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let h = try _controller(&r)
        let placeholder = PlaceholderID(itemID: ItemID(try r.id()))
        let item = ItemID(try r.id())
        let aspect = try r.double()
        let version = try r.version()
        do throws(GridControllerError) {
            Self._encode(try _controllers[h]!.commitInsertion(placeholder, item: item, aspect: aspect, version: version), into: &out)
        } catch {
            throw _BridgeFailure(.outOfRange)
        }
    }

    // [handle, placeholder id] → effects
    mutating func _controllerDeletePlaceholder(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let h = try _controller(&r)
        let placeholder = PlaceholderID(itemID: ItemID(try r.id()))
        do throws(GridControllerError) {
            Self._encode(try _controllers[h]!.deletePlaceholder(placeholder), into: &out)
        } catch {
            throw _BridgeFailure(.outOfRange)
        }
    }

    // [handle, ``BridgeHistoryStep``] → effects
    mutating func _controllerHistory(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let h = try _controller(&r)
        let redo = try r.code(BridgeHistoryStep.self) == .redo
        Self._encode(redo ? _controllers[h]!.redo() : _controllers[h]!.undo(), into: &out)
    }

    // [handle] → [undo count, redo count, then per entry (undo oldest first, then redo oldest
    // first): ``BridgeCommitKind``, removed count, per placement: id, section id, index,
    // aspect, version; inserted count, placements; section change count, per change: section
    // id, from index, to index (−1: none)] — the history without placeholders
    // (GridController.savedHistory), for the page to keep across a reload.
    func _controllerHistoryExport(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let saved = _controllers[try _controller(&r)]!.savedHistory
        out.append(Double(saved.undo.count)); out.append(Double(saved.redo.count))
        for entry in saved.undo + saved.redo {
            out.append(Double(BridgeCommitKind(entry.kind).rawValue))
            for list in [entry.change.removed, entry.change.inserted] {
                out.append(Double(list.count))
                for p in list {
                    out.append(Double(p.id.rawValue)); out.append(Double(p.section.rawValue)); out.append(Double(p.index))
                    out.append(p.aspect); out.append(Double(p.version))
                }
            }
            out.append(Double(entry.change.sections.count))
            for c in entry.change.sections {
                out.append(Double(c.id.rawValue)); out.append(Double(c.from ?? -1)); out.append(Double(c.to ?? -1))
            }
        }
    }

    // [handle, what controllerHistoryExport answered] → [] (malformedInput when it does not
    // read as one; outOfRange during a drag): the history given back.
    mutating func _controllerHistoryImport(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let h = try _controller(&r)
        let undoCount = try r.count(stride: 4), redoCount = try r.count(stride: 4)
        var entries: [UndoStack.Entry] = []
        for _ in 0..<(undoCount + redoCount) {
            let kind = try r.code(BridgeCommitKind.self).engineValue
            var lists: [[ItemPlacement]] = []
            for _ in 0..<2 {
                var list: [ItemPlacement] = []
                for _ in 0..<(try r.count(stride: 5)) {
                    let id = ItemID(try r.id()), section = SectionID(try r.id()), index = try r.int()
                    let aspect = try r.double()
                    guard aspect.isFinite, aspect > 0 else { throw _BridgeFailure(.malformedInput) }
                    list.append(ItemPlacement(id: id, section: section, index: index, aspect: aspect, version: try r.version()))
                }
                lists.append(list)
            }
            var sections: [SectionChange] = []
            for _ in 0..<(try r.count(stride: 3)) {
                let id = SectionID(try r.id())
                let from = try r.int(in: -1...Int(Int32.max)), to = try r.int(in: -1...Int(Int32.max))
                sections.append(SectionChange(id: id, from: from < 0 ? nil : from, to: to < 0 ? nil : to))
            }
            entries.append(UndoStack.Entry(kind: kind, change: ArrangementChange(removed: lists[0], inserted: lists[1], sections: sections)))
        }
        guard r.remaining == 0 else { throw _BridgeFailure(.malformedInput) }
        let undo = Array(entries[0..<undoCount]), redo = Array(entries[undoCount...])
        guard _controllers[h]!.restoreHistory(undo: undo, redo: redo) else { throw _BridgeFailure(.outOfRange) }
    }

    // [handle, item id] → effects (F17: a tap adds the item to the drag in progress)
    mutating func _controllerAddToDrag(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let h = try _controller(&r)
        Self._encode(_controllers[h]!.addToDrag(ItemID(try r.id())), into: &out)
    }

    // [handle, now] → effects
    mutating func _controllerCancel(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let h = try _controller(&r)
        Self._encode(_controllers[h]!.cancelDrag(now: try Self._finite(&r)), into: &out)
    }

    // [handle, proposed x, y, velocity x, y] → [x, y]: where a fling comes to rest (F6–F8)
    func _controllerScrollTarget(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let c = _controllers[try _controller(&r)]!
        let proposed = Point(x: try Self._finite(&r), y: try Self._finite(&r))
        let velocity = Point(x: try Self._finite(&r), y: try Self._finite(&r))
        let target = c.scrollTarget(proposed: proposed, velocity: velocity)
        out.append(target.x); out.append(target.y)
    }

    // [handle, from offset y, direction (+1 down, −1 up)] → [x, y]: one page on (issue 13)
    func _controllerPageStep(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let c = _controllers[try _controller(&r)]!
        let from = try Self._finite(&r)
        let direction = try Self._finite(&r)
        out.append(0); out.append(c.pageStep(from: from, direction: direction > 0 ? 1 : direction < 0 ? -1 : 0))
    }

    // [handle, dragging (0: stop), pointer y (viewport), now] → [dy]: edge auto-scroll for a
    // section header the page drags (issue 13), on the engine's curve
    mutating func _controllerEdgeScroll(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let h = try _controller(&r)
        let dragging = try r.double() != 0, y = try Self._finite(&r), now = try Self._finite(&r)
        out.append(_controllers[h]!.edgeScroll(pointerY: dragging ? y : nil, now: now))
    }

    // [handle, item id (−1: none)] → []
    mutating func _controllerFocus(_ r: inout _BridgeReader) throws(_BridgeFailure) {
        let h = try _controller(&r)
        _controllers[h]!.focus(try r.optionalID().map { ItemID($0) })
    }

    // [handle] → the model snapshot (the arrangement without placeholders), as for diff
    func _controllerSnapshot(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        Self._encode(_controllers[try _controller(&r)]!.modelSnapshot, into: &out)
    }

    // [handle, count, ``BridgeDropData`` bits per item] → effects:
    // one placeholder per accepted item after the focused item (or at the end of the last
    // section) and a load-dropped-data effect for each; nothing during a drag or when read-only.
    mutating func _controllerPaste(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let h = try _controller(&r)
        var kinds: [DropDataKinds] = []
        for _ in 0..<(try r.count(stride: 1)) { kinds.append(BridgeDropData.kinds(try r.bits())) }
        Self._encode(_controllers[h]!.paste(kinds), into: &out)
    }

    // [handle] → []
    mutating func _controllerDestroy(_ r: inout _BridgeReader) throws(_BridgeFailure) {
        _controllers[try _controller(&r)] = nil
    }

    /// [``BridgeAnchor``, id]
    static func _encode(_ anchor: ServerAnchor?, into out: inout [Double]) {
        func put(_ kind: BridgeAnchor, _ id: UInt64) { out.append(Double(kind.rawValue)); out.append(Double(id)) }
        switch anchor {
        case .after(let id)?: put(.after, id.rawValue)
        case .before(let id)?: put(.before, id.rawValue)
        case .sectionStart(let s)?: put(.sectionStart, s.rawValue)
        case .sectionEnd(let s)?: put(.sectionEnd, s.rawValue)
        case nil: put(.none, 0)
        }
    }

    // [handle, placeholder id] → [``BridgeAnchor``, id]: where the server must create the item
    // the placeholder waits for (none: no such placeholder).
    func _controllerPlaceholderDestination(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let c = _controllers[try _controller(&r)]!
        Self._encode(c.serverDestination(ofPlaceholder: ItemID(try r.id())), into: &out)
    }

    /// [``BridgeServerEdit``, item count, ids, ``BridgeAnchor``, anchor id]
    static func _encode(_ edit: ServerEdit, into out: inout [Double]) {
        func put(_ code: BridgeServerEdit, _ ids: [ItemID], _ anchor: ServerAnchor?) {
            out.append(Double(code.rawValue)); out.append(Double(ids.count))
            for id in ids { out.append(Double(id.rawValue)) }
            _encode(anchor, into: &out)
        }
        switch edit {
        case .move(let items, let to): put(.move, items, to)
        case .swap(let a, let b): put(.swap, [a, b], nil)
        case .copy(let items, let to): put(.copy, items, to)
        case .trash(let items): put(.trash, items, nil)
        case .restore(let items): put(.restore, items, nil)
        case .createSection(let index):
            out.append(Double(BridgeServerEdit.createSection.rawValue)); out.append(0)
            out.append(Double(BridgeAnchor.none.rawValue)); out.append(Double(index))
        case .moveSection(let section, let index):
            out.append(Double(BridgeServerEdit.moveSection.rawValue)); out.append(1); out.append(Double(section.rawValue))
            out.append(Double(BridgeAnchor.none.rawValue)); out.append(Double(index))
        case .deleteSection(let section):
            out.append(Double(BridgeServerEdit.deleteSection.rawValue)); out.append(1); out.append(Double(section.rawValue))
            out.append(Double(BridgeAnchor.none.rawValue)); out.append(0)
        }
    }

    /// Effects as ``BridgeEffect`` describes them.
    static func _encode(_ effects: [GridEffect], into out: inout [Double]) {
        out.append(Double(effects.count))
        func ids(_ list: [ItemID]) { out.append(Double(list.count)); for id in list { out.append(Double(id.rawValue)) } }
        func placements(_ list: [ItemPlacement]) {
            out.append(Double(list.count))
            for p in list {
                out.append(Double(p.id.rawValue)); out.append(Double(p.section.rawValue)); out.append(Double(p.index))
                out.append(p.aspect); out.append(Double(p.version))
            }
        }
        func code(_ effect: BridgeEffect) { out.append(Double(effect.rawValue)) }
        func target(_ t: BridgeTarget, _ section: Int, _ item: Int, _ outside: Int) {
            out.append(Double(t.rawValue)); out.append(Double(section)); out.append(Double(item)); out.append(Double(outside))
        }
        for effect in effects {
            switch effect {
            case .scrollBy(let dy): code(.scrollBy); out.append(dy)
            case .commit(let c):
                code(.commit); out.append(Double(BridgeCommitKind(c.kind).rawValue))
                placements(c.change.removed); placements(c.change.inserted)
                ids(c.copiedFrom); ids(c.copies)
                out.append(Double(c.updates.count))
                for u in c.updates { _encode(u, into: &out) }
                out.append(Double(c.edits.count))
                for e in c.edits { _encode(e, into: &out) }
            case .loadDroppedData(let p, let index, let kinds):
                code(.loadDroppedData); out.append(Double(p.itemID.rawValue)); out.append(Double(index))
                out.append(Double(BridgeDropData.bits(kinds)))
            case .announce(let text): code(.announce); _put(text, into: &out)
            case .dragBegan(let items): code(.dragBegan); ids(items)
            case .proposalChanged(let p):
                code(.proposalChanged)
                out.append(Double(BridgeDropOperation(p.operation).rawValue)); out.append(Double(BridgeDropIntent(p.intent).rawValue))
                switch p.target {
                case .none: target(.none, -1, -1, -1)
                case .insert(let ip): target(.insert, ip.section, ip.item, -1)
                case .gapCell(let s): target(.gapCell, s, -1, -1)
                case .item(let ip): target(.item, ip.section, ip.item, -1)
                case .outside(let id): target(.outside, -1, -1, id)
                case .offscreen: target(.offscreen, -1, -1, -1)
                }
            case .dragEnded(let op, let items): code(.dragEnded); out.append(Double(BridgeDropOperation(op).rawValue)); ids(items)
            case .itemTapped(let id): code(.itemTapped); out.append(Double(id.rawValue))
            }
        }
    }
}
