import Testing
@testable import GridEngine

/// Seed 004: sections, end-of-section gap cells, drops without a destination, copies.
@Suite struct SectionDropTests {
    static let two = [["Apple", "Banana", "Cherry"], ["Date", "Dragon"]]

    @Test func duringADragEverySectionShowsAGapCellAndADropThereGoesLastInThatSection() {
        var hand = Hand(Fruit.grid(SectionDropTests.two, headerHeight: 40))
        #expect(hand.grid.visibleCells().filter { $0.kind == .gapCell }.isEmpty)
        hand.longPress("Apple")
        let gaps = hand.grid.visibleCells().filter { $0.kind == .gapCell }
        #expect(gaps.map(\.indexPath.section) == [0, 1])
        let gap1 = hand.grid.displayedLayout.gapCellFrame(section: 1)!
        let onGap = Point(x: gap1.midX - hand.grid.contentOffset.x, y: gap1.midY - hand.grid.contentOffset.y)
        hand.drag(to: onGap, steps: 1)   // straight onto the gap, before the block shifts into section 1
        #expect(hand.effects.contains(.proposalChanged(DropProposal(operation: .move, intent: .insertIntoDestinationIndexPath,
                                                                    target: .gapCell(section: 1)))))
        hand.up(onGap)
        #expect(hand.names == [["Banana", "Cherry"], ["Date", "Dragon", "Apple"]])
        hand.settle()
        #expect(hand.grid.visibleCells().filter { $0.kind == .gapCell }.isEmpty)
        #expect(hand.grid.contentSize == hand.grid.layout.contentSize)
    }

    @Test func theTargetedGapCellIsHighlighted() {
        var hand = Hand(Fruit.grid(SectionDropTests.two, headerHeight: 40, interaction: ReorderTests.swapMode))
        hand.longPress("Dragon")
        let gap0 = hand.grid.displayedLayout.gapCellFrame(section: 0)!
        hand.drag(to: Point(x: gap0.midX, y: gap0.midY))
        let lit = hand.grid.visibleCells().filter { $0.flags.contains(.dropTarget) }
        #expect(lit.count == 1 && lit[0].kind == .gapCell && lit[0].indexPath.section == 0)
        hand.up(Point(x: gap0.midX, y: gap0.midY))
        #expect(hand.names == [["Apple", "Banana", "Cherry", "Dragon"], ["Date"]])
    }

    @Test func itemsMoveBetweenSectionsWithTheOthersShiftingInBoth() {
        var hand = Hand(Fruit.grid(SectionDropTests.two, headerHeight: 40))
        hand.longPress("Dragon")
        hand.drag(to: hand.centre("Banana"))
        #expect(Fruit.names(hand.grid.displayedSnapshot) == [["Apple", "Dragon", "Banana", "Cherry"], ["Date"]])
        hand.up(hand.centre("Dragon"))
        #expect(hand.names == [["Apple", "Dragon", "Banana", "Cherry"], ["Date"]])
        let move = hand.commits[0].updates[0].itemMoves
        #expect(move == [ItemMove(from: IndexPath(item: 1, section: 1), to: IndexPath(item: 1, section: 0))])
    }

    @Test func aDropWithNoDestinationGoesToTheEndOfTheLastSection() {
        var hand = Hand(Fruit.grid(SectionDropTests.two, headerHeight: 40))
        hand.longPress("Apple")
        let below = Point(x: 200, y: hand.grid.contentSize.height + 150)   // inside the view, past all sections
        hand.drag(to: below)
        #expect(hand.grid.session?.proposal == DropProposal(operation: .move, intent: .unspecified, target: .none))
        hand.up(below)
        #expect(hand.names == [["Banana", "Cherry"], ["Date", "Dragon", "Apple"]])
    }

    @Test func aDropOutsideTheViewCancels() {
        var hand = Hand(Fruit.grid(SectionDropTests.two, headerHeight: 40))
        hand.longPress("Apple")
        hand.drag(to: Point(x: 500, y: 100))
        #expect(hand.grid.session?.proposal.operation == .cancel)
        hand.up(Point(x: 500, y: 100))
        #expect(hand.names == SectionDropTests.two && hand.commits.isEmpty)
        hand.settle()
        #expect(hand.effects.last == .dragEnded(operation: .cancel, items: [Fruit.id("Apple")]))
    }

    @Test func optionDragOfBananaAndDateCopiesBothInOrderAndKeepsTheOriginals() {
        var hand = Hand(Fruit.grid())
        hand.modifiers = [.option]
        hand.longPress("Banana")
        hand.drag(to: Point(x: 170, y: 60))
        hand.down(hand.centre("Date"), id: 1)
        hand.up(hand.centre("Date"), id: 1)
        hand.drag(to: hand.centre("Apple"))
        #expect(hand.grid.session?.proposal.operation == .copy)
        hand.up(hand.grid.session!.location)
        let copy = hand.commits.last!
        #expect(copy.kind == .copy && copy.copiedFrom == [Fruit.id("Banana"), Fruit.id("Date")])
        #expect(copy.copies.count == 2 && copy.copies.allSatisfy { $0.rawValue >= 1 << 48 })
        let s = hand.grid.snapshot
        #expect(s.itemCount == 14)
        #expect(Array(s.items(inSection: 0).prefix(3)) == [copy.copies[0], copy.copies[1], Fruit.id("Apple")])
        #expect(s.contains(Fruit.id("Banana")) && s.contains(Fruit.id("Date")))
        #expect(copy.updates[0].itemInserts.map(\.at.item) == [0, 1])
    }
}
