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

    @Test func optionDragBananaOntoDragonKeepsBananaInPlaceAndOpensAGapAfterDragonWhereTheCopyLands() {
        var hand = Hand(Fruit.grid())
        hand.modifiers = [.option]
        hand.longPress("Banana")
        #expect(hand.grid.session?.proposal.operation == .copy)
        hand.drag(to: hand.centre("Dragon"))
        // Banana stays second; the copy's gap took Dragon's place and Dragon shifted back one.
        #expect(CopyPreviewTests.shown(hand.grid) == ["Apple", "Banana", "Cherry", "Date", "Dragon", "copy", "Sheep",
                                                      "V-Malicious", "X-Code", "GreatWall", "TaiTan", "Milk", "🥸"])
        #expect(hand.grid.snapshot == hand.shown && hand.grid.snapshot.itemCount == 12)   // nothing committed yet
        let banana = hand.cell("Banana")!
        #expect(banana.opacity == 1 && !banana.flags.contains(.liftedSource))               // the original is not lifted away
        let slot = hand.grid.visibleCells().first { $0.kind == .item && $0.item.rawValue >= 1 << 48 }!
        #expect(slot.flags.contains(.liftedSource) && slot.opacity == 0 && slot.indexPath.item == 5)
        #expect(slot.frame == Rect(x: 100, y: 100, width: 100, height: 100))                // under the pointer
        #expect(hand.grid.visibleCells().filter { $0.kind == .preview }.map(\.item) == [Fruit.id("Banana")])
        #expect(hand.grid.session?.proposal == DropProposal(operation: .copy, intent: .insertAtDestinationIndexPath,
                                                            target: .insert(at: IndexPath(item: 4, section: 0))))

        let preview = hand.grid.displayedSnapshot
        hand.up(hand.grid.session!.location)
        let copy = hand.commits.last!
        #expect(copy.kind == .copy && copy.copiedFrom == [Fruit.id("Banana")] && copy.copies == [slot.item])
        #expect(hand.grid.snapshot == preview)                                              // exactly where it showed
        #expect(copy.updates[0].itemInserts.map(\.at) == [IndexPath(item: 5, section: 0)] && copy.updates[0].itemMoves.isEmpty)
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
