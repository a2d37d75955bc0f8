import Testing
@testable import GridEngine

/// Random sessions: any sequence of pointer (with Option: copies, previewed as copies;
/// taps adding items in insert and swap mode), keyboard, scroll, wheel, external-drag,
/// paste, placeholder, live-update and undo events keeps the controller's invariants, keeps every item
/// exactly once (except the operations that mean to add or remove), and emits only batch
/// updates valid against the snapshot they apply to (the ``Hand`` checks all three after
/// every event). Undoing everything returns the first snapshot.
@Suite struct InteractionPropertyTests {
    static func randomGrid(_ rng: inout SeededGenerator) -> GridController {
        var sections: [(id: SectionID, items: [ItemID])] = []
        var aspects: [[Double]] = []
        var next: UInt64 = 1
        for s in 0..<Int.random(in: 1...3, using: &rng) {
            let n = Int.random(in: 0...14, using: &rng)
            sections.append((id: SectionID(UInt64(1000 + s)), items: (0..<n).map { _ in defer { next += 1 }; return ItemID(next) }))
            aspects.append((0..<n).map { _ in 0.5 + 1.5 * rng.nextUnit() })
        }
        let kinds: [LayoutKind] = [.grid(columns: 4), .waterfall(columns: 3), .justified(rowHeight: 90),
                                   .flow(itemSize: Size(width: 90, height: 70))]
        var config = LayoutConfiguration(kind: kinds[Int.random(in: 0..<kinds.count, using: &rng)], containerWidth: 400,
                                         headerHeight: 30, itemSpacing: 4, lineSpacing: 4)
        config.sectionInsets = EdgeInsets(all: 5)
        var interaction = InteractionConfiguration()
        interaction.cadence = [ReorderCadence.immediate, .fast, .slow][Int.random(in: 0..<3, using: &rng)]
        interaction.reorderMode = Bool.random(using: &rng) ? .insert : .swap
        interaction.historyLimit = 100_000
        var grid = try! GridController(snapshot: Snapshot(sections), aspects: aspects, layout: config,
                                       viewport: Size(width: 400, height: 500), interaction: interaction)
        grid.outsideTargets = [OutsideTarget(id: 1, frame: Rect(x: 340, y: 450, width: 60, height: 50))]
        return grid
    }

    static func point(_ rng: inout SeededGenerator) -> Point {
        Point(x: -20 + 440 * rng.nextUnit(), y: -20 + 540 * rng.nextUnit())
    }

    /// One random step. `live`: also live updates from elsewhere.
    static func step(_ hand: inout Hand, _ rng: inout SeededGenerator, live: Bool, nextID: inout UInt64) {
        let roll = Int.random(in: 0..<100, using: &rng)
        hand.kind = [PointerKind.mouse, .touch, .pen][Int.random(in: 0..<3, using: &rng)]
        switch roll {
        case 0..<12:
            // Down on an item most of the time.
            let ids = hand.grid.displayedSnapshot.allItemIDs
            if !ids.isEmpty && roll < 9 {
                let id = ids[Int.random(in: 0..<ids.count, using: &rng)]
                let c = hand.centre(id)
                hand.down(c, id: Int.random(in: 0..<3, using: &rng) == 0 ? 1 : 0)
            } else {
                hand.down(point(&rng))
            }
        case 12..<40:
            // Anywhere, onto an item's centre (swaps, into), or onto the trash.
            var p = point(&rng)
            let ids = hand.grid.displayedSnapshot.allItemIDs
            let aim = Int.random(in: 0..<10, using: &rng)
            if aim < 4 && !ids.isEmpty { p = hand.centre(ids[Int.random(in: 0..<ids.count, using: &rng)]) }
            if aim == 4 { p = Point(x: 370, y: 475) }
            hand.move(p, id: roll < 14 ? 1 : 0, after: 0.01 + 0.2 * rng.nextUnit())
        case 40..<48:
            // Mostly where the pointer already is (a drop on what it hovers).
            let here = hand.grid.session?.location
            hand.up(here != nil && roll >= 43 ? here! : point(&rng), id: roll < 42 ? 1 : 0)
        case 48:
            hand.time += 0.01
            hand.send(.pointerCancel(id: 0, time: hand.time))
        case 49:
            // A tap adds an item to the drag in progress (F17): multi-item moves, copies, swap runs.
            let ids = hand.grid.snapshot.allItemIDs
            if !ids.isEmpty { hand.absorb(hand.grid.addToDrag(ids[Int.random(in: 0..<ids.count, using: &rng)])) }
        case 50..<62:
            hand.tick(0.005 + 0.6 * rng.nextUnit())
        case 62..<70:
            let keys: [Key] = [.space, .enter, .escape, .up, .down, .left, .right, .tab]
            hand.key(keys[Int.random(in: 0..<keys.count, using: &rng)])
        case 70:
            let maxY = max(0, hand.grid.contentSize.height - 500)
            hand.send(.scroll(offset: Point(x: 0, y: maxY * rng.nextUnit()), time: hand.time))
        case 71:
            // A wheel turn, possibly mid-drag (the drag retargets).
            hand.send(.wheel(delta: Point(x: 0, y: -300 + 600 * rng.nextUnit()), time: hand.time))
        case 72..<78:
            let kinds: [DropDataKinds] = [[.url, .image], [.text], [.file], [.image]]
            var items: [DropDataKinds] = []
            for _ in 0..<Int.random(in: 1...3, using: &rng) { items.append(kinds[Int.random(in: 0..<kinds.count, using: &rng)]) }
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: hand.send(.externalDragEnter(items: items, location: point(&rng), time: hand.time))
            case 1: hand.send(.externalDragMove(location: point(&rng), modifiers: [], time: hand.time))
            case 2: hand.send(.externalDrop(location: point(&rng), time: hand.time))
            default: hand.send(.externalDragLeave(time: hand.time))
            }
        case 78:
            // A paste (B6), after the focused item or at the end; refused during a drag.
            let kinds: [DropDataKinds] = [[.image], [.text], [.file]]
            hand.absorb(hand.grid.paste((0..<Int.random(in: 1...2, using: &rng)).map { _ in kinds[Int.random(in: 0..<3, using: &rng)] }))
        case 79..<84:
            if let p = hand.grid.placeholders.randomElement(using: &rng) {
                if Bool.random(using: &rng) {
                    hand.absorb(try! hand.grid.commitInsertion(p.id, item: ItemID(nextID), aspect: 0.5 + rng.nextUnit()))
                    nextID += 1
                } else {
                    hand.absorb(try! hand.grid.deletePlaceholder(p.id))
                }
            }
        case 84..<88:
            hand.absorb(hand.grid.undo())
        case 88..<91:
            hand.absorb(hand.grid.redo())
        case 91:
            hand.modifiers = Int.random(in: 0..<4, using: &rng) == 0 ? [.option] : []
        case 92:
            hand.grid.configuration.reorderMode = hand.grid.configuration.reorderMode == .insert ? .swap : .insert
            hand.absorb([])
        case 93:
            // A pinch or a window resize, possibly in the middle of a drag.
            if Bool.random(using: &rng) {
                var c = hand.grid.layout.configuration
                c.kind = c.kind.withDensity(columns: Int.random(in: 1...6, using: &rng), rowHeight: 40 + 120 * rng.nextUnit())
                hand.grid.setLayoutConfiguration(c)
            } else {
                hand.grid.setViewport(Size(width: 250 + 300 * rng.nextUnit(), height: 300 + 300 * rng.nextUnit()))
            }
            hand.absorb([])
        default:
            guard live else { hand.tick(); return }
            var model = hand.grid.modelSnapshot
            let ids = model.allItemIDs
            var aspects: [ItemID: Double] = [:]
            if !ids.isEmpty && Bool.random(using: &rng) {
                try! model.deleteItems([ids[Int.random(in: 0..<ids.count, using: &rng)]])
            } else if model.sectionCount > 0 {
                let s = Int.random(in: 0..<model.sectionCount, using: &rng)
                try! model.insertItems([ItemID(nextID)], at: IndexPath(item: Int.random(in: 0...model.itemCount(inSection: s), using: &rng), section: s))
                aspects[ItemID(nextID)] = 1.25
                nextID += 1
            }
            if Bool.random(using: &rng) {
                // As a batch against the model, as the server's stream sends it.
                let stages = try! StagedChangeset(from: hand.grid.modelSnapshot, to: model).stages
                for stage in stages { hand.absorb(try! hand.grid.applyLiveUpdate(stage, aspects: aspects)) }
            } else {
                hand.absorb(try! hand.grid.applyLiveSnapshot(model))
            }
            #expect(hand.grid.modelSnapshot == model)
        }
    }

    @Test(arguments: 0..<24)
    func anyRandomSessionKeepsEveryItemOnceAndEveryBatchValid(seed: UInt64) {
        var rng = SeededGenerator(seed: 0xD1A6 &+ seed)
        var hand = Hand(InteractionPropertyTests.randomGrid(&rng))
        var nextID: UInt64 = 10_000
        for _ in 0..<400 { InteractionPropertyTests.step(&hand, &rng, live: true, nextID: &nextID) }
    }

    @Test(arguments: 0..<16)
    func undoingEverythingReturnsTheFirstSnapshotAndRedoingReturnsTheLast(seed: UInt64) {
        var rng = SeededGenerator(seed: 0xB4 &+ seed)
        var hand = Hand(InteractionPropertyTests.randomGrid(&rng))
        let first = hand.grid.snapshot
        var nextID: UInt64 = 10_000
        for _ in 0..<300 { InteractionPropertyTests.step(&hand, &rng, live: false, nextID: &nextID) }
        hand.absorb(hand.grid.cancelDrag(now: hand.time))
        hand.settle()
        for p in hand.grid.placeholders { hand.absorb(try! hand.grid.deletePlaceholder(p.id)) }
        // Redo what can be redone first, so that "everything" is the whole history.
        while hand.grid.canRedo { hand.absorb(hand.grid.redo()) }
        let last = hand.grid.snapshot
        while hand.grid.canUndo { hand.absorb(hand.grid.undo()) }
        #expect(hand.grid.snapshot == first)
        while hand.grid.canRedo { hand.absorb(hand.grid.redo()) }
        #expect(hand.grid.snapshot == last)
    }
}

/// Whole drags between random items of a grid, checked against a plain model of the
/// seeds' rules: in insert mode the item takes the place of the one it is dropped on
/// (the others shift), in swap mode the two exchange places. Insert mode uses one
/// section: across sections the live preview changes section heights under the pointer,
/// so where the drop lands depends on geometry (covered by SectionDropTests).
@Suite struct DragModelTests {
    @Test(arguments: [ReorderMode.insert, .swap], 0..<6)
    func randomDragsMatchThePlainModel(mode: ReorderMode, seed: UInt64) {
        var rng = SeededGenerator(seed: 77 &+ seed)
        var config = Fruit.immediate
        config.reorderMode = mode
        var model: [[ItemID]] = mode == .swap ? [(1...9).map { ItemID(UInt64($0)) }, (10...14).map { ItemID(UInt64($0)) }]
                                              : [(1...14).map { ItemID(UInt64($0)) }]
        let grid = try! GridController(snapshot: Snapshot(model.enumerated().map { (id: SectionID(UInt64($0.offset + 1)), items: $0.element) }),
                                       aspects: model.map { $0.map { _ in 1 } },
                                       layout: LayoutConfiguration(kind: .grid(columns: 4), containerWidth: 400, headerHeight: 20),
                                       viewport: Size(width: 400, height: 900), interaction: config)
        var hand = Hand(grid)
        for _ in 0..<30 {
            let all = model.flatMap { $0 }
            let a = all[Int.random(in: 0..<all.count, using: &rng)]
            let b = all[Int.random(in: 0..<all.count, using: &rng)]
            hand.down(hand.centre(a))
            hand.tick(0.5)
            let target = hand.centre(b)
            hand.move(target)
            hand.up(target)
            hand.settle()
            let pa = model.indices.flatMap { s in model[s].indices.map { (s, $0) } }.first { model[$0.0][$0.1] == a }!
            let pb = model.indices.flatMap { s in model[s].indices.map { (s, $0) } }.first { model[$0.0][$0.1] == b }!
            if mode == .swap {
                model[pa.0][pa.1] = b
                model[pb.0][pb.1] = a
            } else if a != b {
                model[pa.0].remove(at: pa.1)
                model[pb.0].insert(a, at: pb.1)
            }
            #expect((0..<model.count).map { hand.grid.snapshot.items(inSection: $0) } == model)
        }
        while hand.grid.canUndo { hand.absorb(hand.grid.undo()) }
        #expect(hand.grid.snapshot.items(inSection: 0) == (1...(mode == .swap ? 9 : 14)).map { ItemID(UInt64($0)) })
    }
}
