import Testing
@testable import GridEngine

/// Seed 000's swap (F3) with several items (F17, issue 3): the k carried items exchange
/// places with the hovered item and the k − 1 items after it in reading order (dragged
/// items skipped), pairwise in drag order, as one undoable swap. When fewer than k items
/// follow, a swap is ill-defined: the proposal is an insert before the hovered item.
@Suite struct SwapRunTests {
    @Test func bananaWithSheepTappedInOntoDateSwapsBananaWithDateAndSheepWithDragonAndUndoesAsOne() {
        var hand = Hand(Fruit.grid(interaction: ReorderTests.swapMode))
        hand.longPress("Banana")
        hand.drag(to: Point(x: 170, y: 60))
        hand.down(hand.centre("Sheep"), id: 1)
        hand.up(hand.centre("Sheep"), id: 1)
        #expect(hand.grid.session?.items == [Fruit.id("Banana"), Fruit.id("Sheep")])
        hand.drag(to: hand.centre("Date"))
        #expect(hand.grid.session?.proposal == DropProposal(operation: .move, intent: .insertIntoDestinationIndexPath,
                                                            target: .item(IndexPath(item: 3, section: 0))))
        // Both partners shrink while hovered (F4); nothing shifts.
        for name in ["Date", "Dragon"] {
            let cell = hand.cell(name)!
            #expect(cell.scale == 0.9 && cell.opacity == 0.5 && cell.flags.contains(.hoveredTarget), "\(name)")
        }
        #expect(hand.cell("Cherry")!.scale == 1 && hand.cell("V-Malicious")!.scale == 1)
        #expect(Fruit.names(hand.grid.displayedSnapshot) == [Fruit.names])

        hand.up(hand.centre("Date"))
        let swapped = ["Apple", "Date", "Cherry", "Banana", "Sheep", "Dragon", "V-Malicious", "X-Code", "GreatWall", "TaiTan", "Milk", "🥸"]
        #expect(hand.names == [swapped])
        #expect(hand.commits.map(\.kind) == [.swap])
        #expect(Set(hand.commits[0].updates[0].itemMoves.map { [$0.from.item, $0.to.item] }) == [[1, 3], [3, 1], [4, 5], [5, 4]])
        hand.settle()
        #expect(hand.effects.last == .dragEnded(operation: .move, items: [Fruit.id("Banana"), Fruit.id("Sheep")]))

        hand.absorb(hand.grid.undo())
        #expect(hand.names == [Fruit.names] && !hand.grid.canUndo)
        hand.absorb(hand.grid.redo())
        #expect(hand.names == [swapped])
    }

    @Test func theRunContinuesIntoTheNextSectionSkippingDraggedItems() {
        var hand = Hand(Fruit.grid([["Apple", "Banana", "Cherry"], ["Date", "Dragon"]], headerHeight: 30, interaction: ReorderTests.swapMode))
        hand.longPress("Apple")
        hand.drag(to: Point(x: 70, y: 90))
        hand.down(hand.centre("Date"), id: 1)
        hand.up(hand.centre("Date"), id: 1)
        hand.drag(to: hand.centre("Cherry"))
        #expect(hand.cell("Cherry")!.flags.contains(.hoveredTarget) && hand.cell("Dragon")!.flags.contains(.hoveredTarget))
        #expect(!hand.cell("Date")!.flags.contains(.hoveredTarget))
        hand.up(hand.centre("Cherry"))
        #expect(hand.names == [["Cherry", "Banana", "Apple"], ["Dragon", "Date"]])
        hand.settle()
        hand.absorb(hand.grid.undo())
        #expect(hand.names == [["Apple", "Banana", "Cherry"], ["Date", "Dragon"]])
    }

    @Test func tooFewItemsAfterTheHoveredOneMakeItAnInsertBeforeIt() {
        var hand = Hand(Fruit.grid(interaction: ReorderTests.swapMode))
        hand.longPress("Banana")
        hand.drag(to: Point(x: 170, y: 60))
        hand.down(hand.centre("Sheep"), id: 1)
        hand.up(hand.centre("Sheep"), id: 1)
        hand.drag(to: hand.centre("🥸"))
        #expect(hand.grid.session?.proposal == DropProposal(operation: .move, intent: .insertAtDestinationIndexPath,
                                                            target: .insert(at: IndexPath(item: 9, section: 0))))
        #expect(hand.cell("🥸")!.scale == 1 && !hand.cell("🥸")!.flags.contains(.hoveredTarget))
        hand.up(hand.centre("🥸"))
        #expect(hand.names == [["Apple", "Cherry", "Date", "Dragon", "V-Malicious", "X-Code", "GreatWall", "TaiTan", "Milk",
                                "Banana", "Sheep", "🥸"]])
        #expect(hand.commits.map(\.kind) == [.move])
        hand.settle()
        hand.absorb(hand.grid.undo())
        #expect(hand.names == [Fruit.names])
    }

    @Test func aReadOnlyItemInTheRunForbidsTheSwap() {
        var grid = Fruit.grid(interaction: ReorderTests.swapMode)
        grid.setReadOnly(true, item: Fruit.id("Dragon"))
        var hand = Hand(grid)
        hand.longPress("Banana")
        hand.drag(to: Point(x: 170, y: 60))
        hand.down(hand.centre("Sheep"), id: 1)
        hand.up(hand.centre("Sheep"), id: 1)
        hand.drag(to: hand.centre("Date"))
        #expect(hand.grid.session?.proposal.operation == .forbidden)
        hand.up(hand.centre("Date"))
        #expect(hand.names == [Fruit.names] && hand.commits.isEmpty)
    }
}
