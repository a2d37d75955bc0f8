import Testing
@testable import GridEngine

/// Issue 13, select mode's bottom bar: the selection to another section or to the trash,
/// one commit, one server batch, one step of undo.
@Suite struct SelectionTests {
    @Test func theSelectionMovesToTheEndOfAnotherSectionInArrangementOrderAsOneUndoableMove() {
        var hand = Hand(Fruit.grid([["Apple", "Banana", "Cherry", "Date"], ["Milk", "Sheep"]]))
        let before = hand.names
        // Picked in another order than they show: they land in the arrangement's order.
        hand.absorb(hand.grid.moveItems(["Date", "Banana"].map(Fruit.id), toSection: SectionID(101)))
        #expect(hand.names == [["Apple", "Cherry"], ["Milk", "Sheep", "Banana", "Date"]])
        #expect(Fruit.names(hand.shown) == hand.names)
        #expect(hand.commits.count == 1 && hand.commits[0].kind == .move)
        #expect(hand.commits[0].edits == [.move(items: ["Banana", "Date"].map(Fruit.id), to: .after(Fruit.id("Sheep")))])
        // Already there: nothing.
        #expect(hand.grid.moveItems(["Banana", "Date"].map(Fruit.id), toSection: SectionID(101)).isEmpty)
        hand.absorb(hand.grid.undo())
        #expect(hand.names == before)
        #expect(Fruit.names(hand.shown) == before)
    }

    @Test func theSelectionGoesToTheTrashAsOneDeleteAndUndoRestoresIt() {
        var hand = Hand(Fruit.grid([["Apple", "Banana", "Cherry", "Date"], ["Milk"]]))
        let before = hand.names
        hand.absorb(hand.grid.trashItems([Fruit.id("Milk"), Fruit.id("Banana"), ItemID(999)]))
        #expect(hand.names == [["Apple", "Cherry", "Date"], []])
        #expect(hand.commits.count == 1 && hand.commits[0].kind == .delete)
        #expect(hand.commits[0].edits == [.trash(["Banana", "Milk"].map(Fruit.id))])
        hand.absorb(hand.grid.undo())
        #expect(hand.names == before)
        #expect(hand.commits.last?.edits.first == .restore(["Banana", "Milk"].map(Fruit.id)))
        // Nothing known, or read-only: nothing.
        #expect(hand.grid.trashItems([ItemID(999)]).isEmpty)
    }
}
