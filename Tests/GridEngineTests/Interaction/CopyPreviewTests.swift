import Testing
@testable import GridEngine

/// Seed 004's copy proposal (F29) shown as a copy while dragging (issue 3): the dragged
/// originals stay in their places and a gap opens at the destination for the copies; the
/// drop lands exactly in that gap, and a resting pointer never makes the preview flip.
@Suite struct CopyPreviewTests {
    /// Names on screen, a copy's slot as "copy".
    static func shown(_ grid: GridController) -> [String] {
        let s = grid.displayedSnapshot
        return s.items(inSection: 0).map { $0.rawValue >= 1 << 48 ? "copy" : Fruit.name($0) }
    }

    @Test func optionDragBananaOntoDragonKeepsBananaInPlaceAndOpensAGapAtDragonsPlaceWhereTheCopyLands() {
        var hand = Hand(Fruit.grid())
        hand.modifiers = [.option]
        hand.longPress("Banana")
        #expect(hand.grid.session?.proposal.operation == .copy)
        // At lift nothing moves (as for a move): no slot opens beside Banana before the
        // pointer asks for one.
        #expect(hand.grid.displayedSnapshot == hand.grid.snapshot)
        hand.drag(to: hand.centre("Dragon"))
        // Banana stays second; the copy's gap took Dragon's place and Dragon shifted back one.
        #expect(CopyPreviewTests.shown(hand.grid) == ["Apple", "Banana", "Cherry", "Date", "copy", "Dragon", "Sheep",
                                                      "V-Malicious", "X-Code", "GreatWall", "TaiTan", "Milk", "🥸"])
        #expect(hand.grid.snapshot == hand.shown && hand.grid.snapshot.itemCount == 12)   // nothing committed yet
        let banana = hand.cell("Banana")!
        #expect(banana.opacity == 1 && !banana.flags.contains(.liftedSource))               // the original is not lifted away
        let slot = hand.grid.visibleCells().first { $0.kind == .item && $0.item.rawValue >= 1 << 48 }!
        #expect(slot.flags.contains(.liftedSource) && slot.opacity == 0 && slot.indexPath.item == 4)
        #expect(slot.frame == Rect(x: 0, y: 100, width: 100, height: 100))                  // under the pointer
        #expect(slot.frame.contains(hand.grid.session!.location))
        #expect(hand.grid.visibleCells().filter { $0.kind == .preview }.map(\.item) == [Fruit.id("Banana")])
        #expect(hand.grid.session?.proposal == DropProposal(operation: .copy, intent: .insertAtDestinationIndexPath,
                                                            target: .insert(at: IndexPath(item: 3, section: 0))))

        let preview = hand.grid.displayedSnapshot
        hand.up(hand.grid.session!.location)
        let copy = hand.commits.last!
        #expect(copy.kind == .copy && copy.copiedFrom == [Fruit.id("Banana")] && copy.copies == [slot.item])
        #expect(hand.grid.snapshot == preview)                                              // exactly where it showed
        #expect(copy.updates[0].itemInserts.map(\.at) == [IndexPath(item: 4, section: 0)] && copy.updates[0].itemMoves.isEmpty)
        // The preview flies into the copy's slot; Banana stays visible where it was.
        hand.tick(0.1)
        #expect(hand.grid.visibleCells().first { $0.kind == .item && $0.item == slot.item }?.flags.contains(.liftedSource) == true)
        #expect(hand.cell("Banana")?.opacity == 1)
        hand.settle()
        #expect(hand.grid.visibleCells().filter { $0.flags.contains(.liftedSource) }.isEmpty)
    }

    @Test func pressingAndReleasingOptionMidDragSwitchesBetweenCopyAndMoveWithTheGapUnderThePointer() {
        var hand = Hand(Fruit.grid())
        hand.longPress("Banana")
        hand.drag(to: hand.centre("Sheep"))
        let asMove = CopyPreviewTests.shown(hand.grid)
        #expect(asMove.prefix(6) == ["Apple", "Cherry", "Date", "Dragon", "Sheep", "Banana"] && asMove.count == 12)

        hand.modifiers = [.option]
        hand.move(hand.grid.session!.location)
        // Banana is back in its own place, the copy's gap is under the pointer (the sixth cell).
        #expect(CopyPreviewTests.shown(hand.grid).prefix(8) == ["Apple", "Banana", "Cherry", "Date", "Dragon", "copy", "Sheep", "V-Malicious"])
        #expect(hand.grid.session?.proposal.operation == .copy)

        hand.modifiers = []
        hand.move(hand.grid.session!.location)
        #expect(CopyPreviewTests.shown(hand.grid) == asMove)
        hand.up(hand.grid.session!.location)
        #expect(hand.commits.map(\.kind) == [.move] && hand.names[0] == asMove)
    }

    @Test func aThirdItemTappedIntoAnOptionDragGetsItsOwnSlotBesideTheOthers() {
        var hand = Hand(Fruit.grid())
        hand.modifiers = [.option]
        hand.longPress("Banana")
        hand.drag(to: hand.centre("X-Code"))
        hand.down(hand.centre("Apple"), id: 1)
        hand.up(hand.centre("Apple"), id: 1)
        #expect(hand.grid.session?.items == [Fruit.id("Banana"), Fruit.id("Apple")])
        let shown = CopyPreviewTests.shown(hand.grid)
        #expect(shown.count == 14 && shown.filter { $0 == "copy" }.count == 2)
        #expect(shown.prefix(2) == ["Apple", "Banana"])                                      // both originals stay
        let preview = hand.grid.displayedSnapshot
        hand.up(hand.grid.session!.location)
        #expect(hand.grid.snapshot == preview && hand.commits.last?.copiedFrom == [Fruit.id("Banana"), Fruit.id("Apple")])
    }
}

/// Issue 3: the live preview does not chase its own reflow. In a waterfall or justified
/// layout (cells of every size) the preview follows the pointer, a pointer resting
/// anywhere settles it, no proposal flips while it rests, and the drop lands exactly
/// where the preview shows — for moves and for copies, at every cadence.
@Suite struct StableDestinationTests {
    static func grid(_ rng: inout SeededGenerator, kind: LayoutKind, cadence: ReorderCadence) -> GridController {
        let n = 30
        var interaction = InteractionConfiguration()
        interaction.cadence = cadence
        let snapshot = try! Snapshot([(id: SectionID(1), items: (1...n).map { ItemID(UInt64($0)) })])
        let aspects = (0..<n).map { _ in 0.4 + 2.2 * rng.nextUnit() }
        let config = LayoutConfiguration(kind: kind, containerWidth: 400, itemSpacing: 4, lineSpacing: 4)
        return try! GridController(snapshot: snapshot, aspects: [aspects], layout: config,
                                   viewport: Size(width: 400, height: 2000), interaction: interaction)
    }

    @Test(arguments: [LayoutKind.waterfall(columns: 3), .justified(rowHeight: 110)], [false, true])
    func aRestingPointerSettlesThePreviewAndTheDropLandsExactlyWhereItShows(kind: LayoutKind, copy: Bool) {
        var rng = SeededGenerator(seed: copy ? 31 : 13)
        var flips = 0, drops = 0, followed = 0
        for trial in 0..<60 {
            let cadence: ReorderCadence = trial % 2 == 0 ? .immediate : .fast
            var hand = Hand(StableDestinationTests.grid(&rng, kind: kind, cadence: cadence))
            hand.kind = .mouse
            hand.modifiers = copy ? [.option] : []
            let ids = hand.grid.snapshot.allItemIDs
            let from = hand.centre(ids[Int.random(in: 0..<ids.count, using: &rng)])
            let height = hand.grid.contentSize.height
            let to = Point(x: 400 * rng.nextUnit(), y: height * rng.nextUnit())
            hand.down(from)
            hand.move(Point(x: from.x + 6, y: from.y))
            hand.drag(to: to, steps: 3)
            for _ in 0..<6 { hand.tick() }
            // Resting: nothing changes any more.
            let settled = hand.grid.displayedSnapshot
            let effectsBefore = hand.effects.count
            for _ in 0..<20 {
                hand.tick()
                if hand.grid.displayedSnapshot != settled { flips += 1 }
            }
            #expect(!hand.effects[effectsBefore...].contains { if case .proposalChanged = $0 { return true } else { return false } },
                    "the proposal flipped under a resting pointer (trial \(trial))")
            let preview = hand.grid.displayedSnapshot
            let operation = hand.grid.session?.proposal.operation
            // The block followed the pointer: it shows away from where it was lifted.
            if let s = hand.grid.session, let p = s._placement, let first = s.items.first,
               p.index != hand.grid.snapshot.indexPath(of: first)?.item { followed += 1 }
            hand.up(to)
            if operation == .move || operation == .copy {
                drops += 1
                #expect(hand.grid.snapshot == preview, "the drop did not land where the preview showed (trial \(trial))")
            }
        }
        #expect(flips == 0)
        #expect(drops >= 50)
        #expect(followed >= 45, "the preview must follow the pointer, not hold still to be stable")
    }
}

/// The page's Alt-drag in Chromium (Tests/browser/test_copy.py): a mouse drags Apple onto
/// Dragon in the page's configuration (a waterfall of 4 columns, two sections, insert mode,
/// fast cadence), Alt pressed while it moves. The copy's slot follows the pointer as a move
/// does and the drop lands where it shows — it does not open beside Apple at lift and stay
/// there because the pointer only ever crosses the original and the slot.
@Suite struct MouseCopyPreviewTests {
    /// The page's sample gallery: the fruit, then "More pictures" (ids 13–16).
    static func page() -> GridController {
        let aspects: [[Double]] = [[1, 2, 0.6666666666666666, 1.5, 1.4285714285714286, 1, 0.6, 1.5714285714285714,
                                    2.6666666666666665, 0.6666666666666666, 0.8, 1],
                                   [2.142857142857143, 0.45454545454545453, 1.3333333333333333, 1]]
        let snapshot = try! Snapshot([(id: SectionID(1), items: (1...12).map { ItemID(UInt64($0)) }),
                                      (id: SectionID(2), items: (13...16).map { ItemID(UInt64($0)) })])
        let config = LayoutConfiguration(kind: .waterfall(columns: 4), containerWidth: 1200, headerHeight: 44,
                                         sectionInsets: EdgeInsets(all: 8), itemSpacing: 6, lineSpacing: 6)
        var interaction = InteractionConfiguration()
        interaction.cadence = .fast
        return try! GridController(snapshot: snapshot, aspects: aspects, layout: config,
                                   viewport: Size(width: 1200, height: 719), interaction: interaction)
    }

    /// The page's pointer path (recorded in Chromium): down on Apple's centre, a first move
    /// inside the lift distance, the move that lifts, then on to Dragon's centre (as it was
    /// before the drag), the browser's own timing, a tick per frame (60 Hz); then 0.3 s at
    /// rest while the page repeats the pointer's position every 50 ms (HTML5 dragover).
    /// `option`: nil, a move; 0, Alt arrives with the move that lifts (as recorded); 1,
    /// Alt is pressed after the lift.
    static func drag(option: Int?) -> (hand: Hand, to: Point) {
        var hand = Hand(page())
        hand.kind = .mouse
        let from = hand.centre("Apple"), to = hand.centre("Dragon")
        #expect(from == Point(x: 153.75, y: 197.75) && abs(to.x - 451.25) < 1 && abs(to.y - 305.625) < 1)
        let path: [(x: Double, y: Double, t: Double)] = [
            (153, 197.625, 0.0), (178, 206.625, 0.0731), (203, 215.625, 0.0972), (228, 224.625, 0.1261),
            (252, 233.625, 0.1463), (277, 242.625, 0.1656), (352, 269.625, 0.2377), (376, 278.625, 0.2660),
            (401, 287.625, 0.2986), (426, 296.625, 0.3267), (to.x, to.y, 0.3486)]
        hand.down(from)
        var frame = 0.0
        for (k, p) in path.enumerated() {
            while frame + 1.0 / 60 < p.t { frame += 1.0 / 60; hand.tick(frame - hand.time) }
            if k == (option == 1 ? 2 : 1) && option != nil { hand.modifiers = [.option] }
            hand.move(Point(x: p.x, y: p.y), after: p.t - hand.time)
            if k == 1 { #expect(hand.grid.session?.phase == .dragging) }
        }
        var repeated = hand.time
        for _ in 0..<18 {
            frame += 1.0 / 60
            hand.tick(frame - hand.time)
            if hand.time - repeated >= 0.05 { repeated = hand.time; hand.move(to, after: 0) }
        }
        return (hand, to)
    }

    @Test(arguments: [0, 1])
    func anAltMouseDragOfAppleOntoDragonShowsTheCopyUnderThePointerAndCommitsItAtDragonsPlace(option: Int) {
        var (hand, to) = MouseCopyPreviewTests.drag(option: option)
        #expect(hand.grid.session?.proposal == DropProposal(operation: .copy, intent: .insertAtDestinationIndexPath,
                                                            target: .insert(at: IndexPath(item: 3, section: 0))))
        // Apple stays first; the copy's slot took Dragon's place, under the pointer.
        #expect(CopyPreviewTests.shown(hand.grid) == ["Apple", "Banana", "Cherry", "Date", "copy", "Dragon", "Sheep",
                                                      "V-Malicious", "X-Code", "GreatWall", "TaiTan", "Milk", "🥸"])
        let slot = hand.grid.visibleCells().first { $0.kind == .item && $0.item.rawValue >= 1 << 48 }!
        let pointer = Point(x: to.x + hand.grid.contentOffset.x, y: to.y + hand.grid.contentOffset.y)
        #expect(slot.flags.contains(.liftedSource) && slot.frame.contains(pointer))
        #expect(hand.cell("Apple")?.opacity == 1)

        let preview = hand.grid.displayedSnapshot
        hand.up(to)
        let copy = hand.commits.last!
        #expect(copy.kind == .copy && copy.copiedFrom == [Fruit.id("Apple")] && copy.copies == [slot.item])
        #expect(copy.change.inserted.map(\.index) == [4])
        #expect(hand.grid.snapshot == preview)
        hand.settle()

        // A move along the same path lands Apple at the same index: Dragon's place.
        var (moved, _) = MouseCopyPreviewTests.drag(option: nil)
        moved.up(to)
        #expect(moved.commits.last?.kind == .move && moved.commits.last?.change.inserted.map(\.index) == [4])
    }

    @Test func aPointerCrossingTheSpacingBesideTheOriginalDoesNotOpenTheSlotThere() {
        var grid = MouseCopyPreviewTests.page()
        grid.configuration.cadence = .immediate
        var hand = Hand(grid)
        hand.kind = .mouse
        let apple = hand.centre("Apple"), dragon = hand.centre("Dragon")
        hand.down(apple)
        hand.modifiers = [.option]
        hand.move(Point(x: apple.x + 6, y: apple.y))
        hand.move(Point(x: 302.5, y: 250))                  // between Apple's column and Dragon's: no cell
        #expect(hand.grid.displayedSnapshot == hand.grid.snapshot)
        hand.move(dragon)
        for _ in 0..<10 { hand.tick(); hand.move(dragon, after: 0) }
        #expect(CopyPreviewTests.shown(hand.grid).prefix(6) == ["Apple", "Banana", "Cherry", "Date", "copy", "Dragon"])
        hand.up(dragon)
        #expect(hand.commits.last?.kind == .copy && hand.commits.last?.change.inserted.map(\.index) == [4])
    }

    @Test func aimingAtTheItemAfterTheOriginalOpensTheSlotRightAfterItAndTheCopyLandsThere() {
        var hand = Hand(Fruit.grid())
        hand.modifiers = [.option]
        hand.longPress("Banana")
        hand.drag(to: hand.centre("Cherry"))
        // The copy takes Cherry's place, which is right after Banana.
        #expect(CopyPreviewTests.shown(hand.grid).prefix(4) == ["Apple", "Banana", "copy", "Cherry"])
        let preview = hand.grid.displayedSnapshot
        hand.up(hand.grid.session!.location)
        #expect(hand.commits.last?.kind == .copy && hand.commits.last?.change.inserted.map(\.index) == [2])
        #expect(hand.grid.snapshot == preview)
    }

    @Test func anAltDragThatNeverLeavesTheOriginalShowsNoSlotAndCopiesNothing() {
        var hand = Hand(MouseCopyPreviewTests.page())
        hand.kind = .mouse
        let apple = hand.centre("Apple")
        hand.down(apple)
        hand.move(Point(x: apple.x + 6, y: apple.y))
        hand.modifiers = [.option]
        hand.move(Point(x: apple.x + 40, y: apple.y + 30))
        for _ in 0..<10 { hand.tick() }
        #expect(hand.grid.session?.proposal.operation == .copy)
        #expect(hand.grid.displayedSnapshot == hand.grid.snapshot)      // as a move shows at lift: nothing moved
        hand.up(Point(x: apple.x + 40, y: apple.y + 30))
        #expect(hand.commits.isEmpty)
        hand.settle()
        #expect(hand.grid.snapshot.itemCount == 16)
    }
}
