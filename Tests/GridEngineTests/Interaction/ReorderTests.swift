import Testing
@testable import GridEngine

/// Seeds 000 and 002: lifting, swapping, live reordering, multi-item drags, the session's
/// phases and cancel from every phase.
@Suite struct ReorderTests {
    static var swapMode: InteractionConfiguration {
        var c = Fruit.immediate
        c.reorderMode = .swap
        return c
    }

    @Test func longPressBananaDragOntoDateInSwapModeExchangesThemAndDateShrankWhileHovered() {
        var hand = Hand(Fruit.grid(interaction: ReorderTests.swapMode))
        hand.longPress("Banana")
        #expect(hand.grid.session?.phase == .lifted)
        hand.drag(to: hand.centre("Date"))
        let date = hand.cell("Date")!
        #expect(date.scale == 0.9 && date.opacity == 0.5 && date.flags.contains(.hoveredTarget))
        #expect(hand.grid.session?.proposal == DropProposal(operation: .move, intent: .insertIntoDestinationIndexPath,
                                                            target: .item(IndexPath(item: 3, section: 0))))
        // Nothing shifts in swap mode while dragging.
        #expect(Fruit.names(hand.grid.displayedSnapshot) == [Fruit.names])
        let preview = hand.grid.visibleCells().first { $0.kind == .preview }!
        #expect(preview.item == Fruit.id("Banana") && preview.scale == 1.2 && preview.flags.contains(.lifted))

        // Leaving Date restores it (F4: it recovers).
        hand.drag(to: Point(x: 200, y: 250))
        #expect(hand.cell("Date")!.scale == 1 && hand.cell("Date")!.opacity == 1)

        hand.drag(to: hand.centre("Date"))
        hand.up(hand.centre("Date"))
        #expect(hand.names[0].prefix(4) == ["Apple", "Date", "Cherry", "Banana"])
        #expect(hand.commits.map(\.kind) == [.swap])
        let update = hand.commits[0].updates[0]
        #expect(Set(update.itemMoves.map { [$0.from.item, $0.to.item] }) == [[1, 3], [3, 1]])
        hand.settle()
        #expect(hand.grid.session == nil)
        #expect(hand.cell("Date")!.scale == 1 && hand.cell("Banana")!.opacity == 1)
    }

    @Test func longPressBananaOverDragonShiftsTheOthersLiveAndTheDropIsOneMove() {
        var hand = Hand(Fruit.grid())
        hand.longPress("Banana")
        hand.drag(to: hand.centre("Dragon"))
        // The preview: Banana took Dragon's place, Cherry, Date and Dragon shifted back one.
        #expect(Fruit.names(hand.grid.displayedSnapshot)[0].prefix(6) == ["Apple", "Cherry", "Date", "Dragon", "Banana", "Sheep"])
        #expect(hand.grid.snapshot == hand.shown && hand.names[0][1] == "Banana")   // nothing committed yet
        #expect(hand.cell("Cherry")!.frame.minX == 100)                               // shifted aside
        let slot = hand.cell("Banana")!
        #expect(slot.flags.contains(.liftedSource) && slot.opacity == 0)
        #expect(hand.grid.session?.proposal.intent == .insertAtDestinationIndexPath)

        hand.up(hand.centre("Banana"))
        #expect(hand.names[0].prefix(6) == ["Apple", "Cherry", "Date", "Dragon", "Banana", "Sheep"])
        #expect(hand.commits.count == 1 && hand.commits[0].kind == .move)
        #expect(hand.commits[0].updates == [{
            var u = BatchUpdate()
            u.itemMoves = [ItemMove(from: IndexPath(item: 1, section: 0), to: IndexPath(item: 4, section: 0))]
            u.itemCountsAfter = [12]
            return u
        }()])
        #expect(hand.grid.session?.phase == .dropping)
        hand.settle()
        #expect(hand.effects.last == .dragEnded(operation: .move, items: [Fruit.id("Banana")]))
    }

    @Test func aMouseLiftsAfterFourPointsATouchThatMovesEarlyScrollsAndATapOpensTheItem() {
        var hand = Hand(Fruit.grid())
        hand.kind = .mouse
        let banana = hand.centre("Banana")
        hand.down(banana)
        hand.move(Point(x: banana.x + 2, y: banana.y))
        #expect(hand.grid.session?.phase == .pending)
        hand.move(Point(x: banana.x + 5, y: banana.y))
        #expect(hand.grid.session?.phase == .dragging)
        #expect(hand.effects.contains(.dragBegan(items: [Fruit.id("Banana")])))
        hand.send(.pointerCancel(id: 0, time: hand.time))
        hand.settle()

        var touch = Hand(Fruit.grid())
        touch.down(touch.centre("Cherry"))
        touch.move(Point(x: 250, y: 80), after: 0.1)       // 30 pt within 0.1 s: a scroll
        #expect(touch.grid.session == nil)
        touch.tick(0.6)
        #expect(touch.grid.session == nil)

        var tap = Hand(Fruit.grid())
        tap.kind = .mouse
        tap.down(tap.centre("Milk"))
        tap.up(tap.centre("Milk"))
        #expect(tap.effects == [.itemTapped(Fruit.id("Milk"))])
        #expect(tap.grid.focusedItem == Fruit.id("Milk"))
    }

    @Test func aTouchLiftsOnlyAfterHalfASecondWithoutMoving() {
        var hand = Hand(Fruit.grid())
        hand.down(hand.centre("Sheep"))
        hand.tick(0.3)
        hand.move(Point(x: hand.centre("Sheep").x + 3, y: hand.centre("Sheep").y), after: 0.1)   // within the slop
        #expect(hand.grid.session?.phase == .pending)
        hand.tick(0.1)
        #expect(hand.grid.session?.phase == .lifted)
    }

    @Test func tappingMilkAndSheepDuringTheDragAddsThemAndTheDropInsertsAllInOrder() {
        var hand = Hand(Fruit.grid())
        hand.longPress("Banana")
        hand.drag(to: Point(x: 170, y: 60))
        hand.down(hand.centre("Sheep"), id: 1)
        hand.up(hand.centre("Sheep"), id: 1)
        let milk = hand.centre("Milk")
        hand.down(milk, id: 2)
        hand.move(Point(x: milk.x + 30, y: milk.y), id: 2)     // moved: not a tap
        hand.up(Point(x: milk.x + 30, y: milk.y), id: 2)
        hand.down(hand.centre("Milk"), id: 3)
        hand.up(hand.centre("Milk"), id: 3)
        #expect(hand.grid.session?.items == ["Banana", "Sheep", "Milk"].map(Fruit.id))
        #expect(hand.grid.visibleCells().filter { $0.kind == .preview }.count == 3)
        hand.drag(to: hand.centre("Apple"))
        hand.up(hand.centre("Banana"))
        #expect(hand.names == [["Banana", "Sheep", "Milk", "Apple", "Cherry", "Date", "Dragon", "V-Malicious", "X-Code",
                                "GreatWall", "TaiTan", "🥸"]])
        #expect(hand.commits.count == 1)
        #expect(hand.commits[0].updates[0].itemMoves.count == 3)
    }

    @Test func slowCadenceWaitsForThePointerToRestBeforeShifting() {
        var config = Fruit.immediate
        config.cadence = .slow
        var hand = Hand(Fruit.grid(interaction: config))
        hand.longPress("Banana")
        hand.drag(to: hand.centre("Dragon"))
        #expect(Fruit.names(hand.grid.displayedSnapshot) == [Fruit.names])
        hand.tick(0.1)
        #expect(Fruit.names(hand.grid.displayedSnapshot) == [Fruit.names])
        hand.tick(0.25)
        #expect(Fruit.names(hand.grid.displayedSnapshot)[0][4] == "Banana")
        // A drop commits where the proposal points even when the preview has not caught up.
        hand.move(hand.centre("Apple"))
        hand.up(hand.centre("Apple"))
        #expect(hand.names[0].prefix(2) == ["Banana", "Apple"])
    }

    @Test func theLiftedLookIsConfigurable() {
        var config = Fruit.immediate
        config.liftStyle.scale = 1.1
        config.liftStyle.sourceOpacity = 0.3
        var hand = Hand(Fruit.grid(interaction: config))
        hand.longPress("Date")
        hand.drag(to: Point(x: 200, y: 260))
        let preview = hand.grid.visibleCells().first { $0.kind == .preview }!
        #expect(preview.scale == 1.1 && preview.flags.contains(.tinted))
        // The preview follows the pointer, keeping where the finger grabbed the cell.
        #expect(preview.frame == Rect(x: 150, y: 210, width: 100, height: 100))
        #expect(hand.cell("Date")!.opacity == 0.3)
    }

    @Test func phasesRunIdlePendingLiftedDraggingDroppingSettlingIdle() {
        var hand = Hand(Fruit.grid())
        var phases: [DragPhase] = []
        func note(_ h: Hand) { let p = h.grid.session?.phase ?? .idle; if phases.last != p { phases.append(p) } }
        note(hand)
        hand.down(hand.centre("Apple")); note(hand)
        hand.tick(0.5); note(hand)
        hand.move(hand.centre("Cherry")); note(hand)
        hand.up(hand.centre("Cherry")); note(hand)
        for _ in 0..<40 { hand.tick(); note(hand) }
        #expect(phases == [.idle, .pending, .lifted, .dragging, .dropping, .settling, .idle])
    }

    @Test func cancelFromEveryPhaseLeavesTheArrangementAsItWas() {
        for stop in 0..<5 {
            var hand = Hand(Fruit.grid())
            hand.down(hand.centre("Apple"))
            if stop >= 1 { hand.tick(0.5) }                            // lifted
            if stop >= 2 { hand.move(hand.centre("Date")) }            // dragging
            if stop >= 3 { hand.up(hand.centre("Date")); hand.tick(0.01) }  // dropping (a real move)
            if stop >= 4 { hand.tick(0.3) }                            // settling
            let before = hand.grid.snapshot
            let phase = hand.grid.session?.phase
            hand.absorb(hand.grid.cancelDrag(now: hand.time))
            #expect(hand.grid.snapshot == before, "cancel in \(String(describing: phase)) changed the arrangement")
            if phase == .lifted || phase == .dragging {
                #expect(hand.grid.session?.phase == .dropping && hand.grid.session?.outcome == .cancel)
            }
            hand.settle()
            #expect(hand.grid.session == nil)
            #expect(hand.grid.visibleCells().allSatisfy { $0.kind != .gapCell && $0.kind != .preview })
        }
    }

    @Test func theDropAnimationFliesThePreviewIntoItsSlot() {
        var hand = Hand(Fruit.grid())
        hand.longPress("Apple")
        hand.drag(to: Point(x: 380, y: 390))      // right of X-Code's centre, row 1
        hand.up(Point(x: 380, y: 390))
        let start = hand.grid.visibleCells().first { $0.kind == .preview }!
        hand.tick(0.25)
        #expect(hand.grid.session?.phase == .settling)
        let ip = hand.grid.snapshot.indexPath(of: Fruit.id("Apple"))!
        #expect(start.scale == 1.2)
        #expect(hand.grid.visibleCells().first { $0.kind == .preview } == nil)
        #expect(hand.cell("Apple")!.frame == hand.grid.layout.frame(of: ip)! && hand.cell("Apple")!.opacity == 1)
    }
}

extension ReorderTests {
    @Test func swappedItemsKeepTheirOwnAspectsInAWaterfall() {
        let snapshot = try! Snapshot([(id: SectionID(1), items: [1, 2, 3, 4].map { ItemID(UInt64($0)) })])
        let grid = try! GridController(snapshot: snapshot, aspects: [[1, 2, 0.5, 1]],
                                       layout: LayoutConfiguration(kind: .waterfall(columns: 2), containerWidth: 200),
                                       viewport: Size(width: 200, height: 600), interaction: ReorderTests.swapMode)
        var hand = Hand(grid)
        let wide = hand.grid.layout.frame(of: IndexPath(item: 1, section: 0))!       // item 2: aspect 2, 100 × 50
        hand.down(hand.centre(ItemID(2)))
        hand.tick(0.5)
        hand.move(hand.centre(ItemID(3)))
        hand.up(hand.centre(ItemID(3)))
        #expect(hand.grid.snapshot.items(inSection: 0) == [1, 3, 2, 4].map { ItemID(UInt64($0)) })
        let moved = hand.grid.layout.frame(of: IndexPath(item: 2, section: 0))!
        #expect(moved.size == wide.size)
        #expect(hand.grid.layout.aspect(of: IndexPath(item: 1, section: 0)) == 0.5)
    }
}

extension ReorderTests {
    @Test func aPenLiftsLikeAMouseAndACancelledPressOrALeavingExternalDragChangesNothing() {
        var hand = Hand(Fruit.grid())
        hand.kind = .pen
        hand.down(hand.centre("Cherry"))
        hand.move(Point(x: hand.centre("Cherry").x + 6, y: hand.centre("Cherry").y))
        #expect(hand.grid.session?.phase == .dragging)
        hand.send(.pointerCancel(id: 0, time: hand.time))
        hand.settle()

        hand.kind = .touch
        hand.down(hand.centre("Date"))
        hand.send(.pointerCancel(id: 0, time: hand.time + 0.1))
        #expect(hand.grid.session == nil)

        hand.send(.externalDragEnter(items: [[.url, .image]], location: hand.centre("Apple"), time: 5))
        #expect(hand.grid.visibleCells().contains { $0.kind == .gapCell })
        hand.send(.externalDragLeave(time: 5.2))
        #expect(hand.grid.session == nil && hand.commits.isEmpty && hand.names == [Fruit.names])
        #expect(hand.effects.last == .dragEnded(operation: .cancel, items: []))
        #expect(!hand.grid.visibleCells().contains { $0.kind == .gapCell })
    }
}
