import Testing
@testable import GridEngine

/// B4 with F19: placeholders take part in undo and redo. A committed placeholder is one
/// undoable step (undo: one batch deleting the item; redo: the item back at its place,
/// on the same side of any placeholder still loading); a placeholder drop or paste starts
/// a new change (redo is cleared); a failed load leaves the history as it was.
@Suite struct PlaceholderUndoTests {
    static func deletesOnly(_ c: CommittedChange, _ paths: [IndexPath]) -> Bool {
        c.updates.count == 1 && c.updates[0].itemDeletes == paths && c.updates[0].itemInserts.isEmpty && c.updates[0].itemMoves.isEmpty
    }

    @Test func theSecondURLArrivesWhileTheFirstLoadsUndoDeletesItAndRedoPutsItBackAfterTheFirst() throws {
        var hand = Hand(Fruit.grid())
        let waiting = PlaceholderTests.dropTwoURLs(&hand)
        let kiwi = ItemID(500)
        hand.absorb(try hand.grid.commitInsertion(waiting[1], item: kiwi, aspect: 1.5))
        #expect(hand.grid.snapshot.indexPath(of: kiwi) == IndexPath(item: 4, section: 0))
        #expect(hand.grid.history.undoEntries.map(\.kind) == [.commitPlaceholder])

        hand.absorb(hand.grid.undo())
        #expect(PlaceholderUndoTests.deletesOnly(hand.commits.last!, [IndexPath(item: 4, section: 0)]))
        #expect(!hand.grid.snapshot.contains(kiwi) && hand.grid.indexPath(of: waiting[0]) == IndexPath(item: 3, section: 0))
        #expect(hand.grid.modelSnapshot == Fruit.grid().snapshot)

        hand.absorb(hand.grid.redo())
        #expect(hand.commits.last!.updates[0].itemInserts.map(\.at) == [IndexPath(item: 4, section: 0)])
        #expect(hand.grid.snapshot.indexPath(of: kiwi) == IndexPath(item: 4, section: 0))
        #expect(hand.grid.layout.aspect(of: IndexPath(item: 4, section: 0)) == 1.5)
    }

    @Test func theFirstURLArrivesWhileTheSecondLoadsRedoPutsItBackBeforeTheSecond() throws {
        var hand = Hand(Fruit.grid())
        let waiting = PlaceholderTests.dropTwoURLs(&hand)
        let fig = ItemID(501)
        hand.absorb(try hand.grid.commitInsertion(waiting[0], item: fig, aspect: 0.5))
        #expect(hand.grid.snapshot.indexPath(of: fig) == IndexPath(item: 3, section: 0))
        hand.absorb(hand.grid.undo())
        #expect(PlaceholderUndoTests.deletesOnly(hand.commits.last!, [IndexPath(item: 3, section: 0)]))
        #expect(hand.grid.indexPath(of: waiting[1]) == IndexPath(item: 3, section: 0))
        hand.absorb(hand.grid.redo())
        // Where it was: before the placeholder still loading, not after it.
        #expect(hand.grid.snapshot.indexPath(of: fig) == IndexPath(item: 3, section: 0))
        #expect(hand.grid.indexPath(of: waiting[1]) == IndexPath(item: 4, section: 0))
        // Undo again, then the second load fails: undo/redo go on around it.
        hand.absorb(hand.grid.undo())
        hand.absorb(try hand.grid.deletePlaceholder(waiting[1]))
        #expect(hand.grid.canRedo && hand.grid.history.undoEntries.isEmpty)
        hand.absorb(hand.grid.redo())
        #expect(hand.grid.snapshot.indexPath(of: fig) == IndexPath(item: 3, section: 0) && hand.grid.snapshot.itemCount == 13)
    }

    @Test func aMoveUndoneBesideALoadingPlaceholderComesBackOnItsOwnSide() throws {
        var hand = Hand(Fruit.grid())
        let waiting = PlaceholderTests.dropTwoURLs(&hand)          // placeholders at 3 and 4, before Date
        // Cherry (just before the placeholders) goes to the end; undo brings it back before them.
        hand.longPress("Cherry")
        hand.drag(to: hand.centre("🥸"))
        hand.up(hand.centre("Cherry"))
        hand.settle()
        #expect(hand.names[0].last == "Cherry")
        hand.absorb(hand.grid.undo())
        #expect(hand.grid.snapshot.indexPath(of: Fruit.id("Cherry")) == IndexPath(item: 2, section: 0))
        #expect(waiting.map { hand.grid.indexPath(of: $0)?.item } == [3, 4])
        // Date (just after them) to the front; undo brings it back after them.
        hand.longPress("Date")
        hand.drag(to: hand.centre("Apple"))
        hand.up(hand.centre("Date"))
        hand.settle()
        hand.absorb(hand.grid.undo())
        #expect(hand.grid.snapshot.indexPath(of: Fruit.id("Date")) == IndexPath(item: 5, section: 0))
        #expect(waiting.map { hand.grid.indexPath(of: $0)?.item } == [3, 4])
    }

    @Test func aDropOrAPasteOfPlaceholdersClearsRedoAndAFailedLoadLeavesHistoryAlone() throws {
        var hand = Hand(Fruit.grid())
        hand.longPress("Apple")
        hand.drag(to: hand.centre("Cherry"))
        hand.up(hand.centre("Apple"))
        hand.settle()
        hand.absorb(hand.grid.undo())
        #expect(hand.grid.canRedo)
        let waiting = PlaceholderTests.dropTwoURLs(&hand)
        #expect(!hand.grid.canRedo && !hand.grid.canUndo)
        hand.absorb(try hand.grid.deletePlaceholder(waiting[0]))
        #expect(!hand.grid.canUndo)
        hand.absorb(try hand.grid.commitInsertion(waiting[1], item: ItemID(502), aspect: 1))
        hand.absorb(hand.grid.undo())
        #expect(hand.grid.canRedo)
        hand.grid.focus(Fruit.id("Milk"))
        hand.absorb(hand.grid.paste([[.image]]))
        #expect(!hand.grid.canRedo)
        #expect(hand.grid.modelSnapshot == Fruit.grid().snapshot)
    }
}
