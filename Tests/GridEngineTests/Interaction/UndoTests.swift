import Testing
@testable import GridEngine

/// B4: every committed operation can be undone and redone, through valid batch updates.
@Suite struct UndoTests {
    @Test func swapCopyTrashPlaceholderCommitAndKeyboardMoveAllUndoToTheFirstSnapshotAndRedo() throws {
        var grid = Fruit.grid()
        grid.outsideTargets = [TrashAndPolicyTests.trash]
        var hand = Hand(grid)
        let first = hand.grid.snapshot

        hand.grid.configuration.reorderMode = .swap
        hand.longPress("Banana")
        hand.drag(to: hand.centre("Date"))
        hand.up(hand.centre("Date"))
        hand.settle()
        hand.grid.configuration.reorderMode = .insert

        hand.modifiers = [.option]
        hand.longPress("Apple")
        hand.drag(to: hand.centre("Milk"))
        hand.up(hand.grid.session!.location)
        hand.settle()
        hand.modifiers = []

        hand.longPress("Cherry")
        hand.drag(to: Point(x: 340, y: 565))
        hand.up(Point(x: 340, y: 565))
        hand.settle()

        let waiting = PlaceholderTests.dropTwoURLs(&hand)
        hand.absorb(try hand.grid.commitInsertion(waiting[1], item: ItemID(800), aspect: 0.75))
        hand.absorb(try hand.grid.deletePlaceholder(waiting[0]))

        hand.grid.focus(Fruit.id("Sheep"))
        hand.key(.space)
        hand.key(.left)
        hand.key(.space)
        hand.settle()

        #expect(hand.commits.filter { $0.kind != .insertPlaceholders && $0.kind != .deletePlaceholder }.map(\.kind)
                == [.swap, .copy, .delete, .commitPlaceholder, .move])
        #expect(hand.grid.history.undoEntries.map(\.kind) == [.swap, .copy, .delete, .commitPlaceholder, .move])
        let last = hand.grid.snapshot
        let lastLayout = hand.grid.layout

        var undone = 0
        while hand.grid.canUndo { hand.absorb(hand.grid.undo()); undone += 1 }
        #expect(undone == 5)
        #expect(hand.grid.snapshot == first)
        #expect(hand.grid.layout.frame(of: IndexPath(item: 11, section: 0)) == Fruit.grid().layout.frame(of: IndexPath(item: 11, section: 0)))
        while hand.grid.canRedo { hand.absorb(hand.grid.redo()) }
        #expect(hand.grid.snapshot == last)
        #expect(hand.grid.layout.aspect(of: hand.grid.snapshot.indexPath(of: ItemID(800))!) == 0.75)
        for s in 0..<last.sectionCount {
            for i in 0..<last.itemCount(inSection: s) {
                let ip = IndexPath(item: i, section: s)
                #expect(hand.grid.layout.frame(of: ip) == lastLayout.frame(of: ip))
            }
        }
    }

    @Test func undoIsRefusedDuringADragAndANewChangeClearsRedo() {
        var hand = Hand(Fruit.grid())
        hand.longPress("Apple")
        hand.drag(to: hand.centre("Cherry"))
        hand.up(hand.centre("Apple"))
        hand.settle()
        hand.longPress("Date")
        #expect(!hand.grid.canUndo && hand.grid.undo().isEmpty)
        hand.up(hand.centre("Date"))
        hand.settle()
        hand.absorb(hand.grid.undo())
        #expect(hand.names == [Fruit.names] && hand.grid.canRedo)
        hand.longPress("Milk")
        hand.drag(to: hand.centre("Apple"))
        hand.up(hand.centre("Milk"))
        hand.settle()
        #expect(!hand.grid.canRedo)
    }

    @Test func undoSkipsItemsDeletedElsewhereMeanwhile() throws {
        var hand = Hand(Fruit.grid())
        hand.longPress("Apple")
        hand.drag(to: hand.centre("Date"))
        hand.up(hand.centre("Apple"))
        hand.settle()
        var model = hand.grid.modelSnapshot
        try model.deleteItems([Fruit.id("Apple")])
        hand.absorb(try hand.grid.applyLiveSnapshot(model))
        hand.absorb(hand.grid.undo())
        #expect(hand.grid.snapshot.itemCount == 11 && !hand.grid.snapshot.contains(Fruit.id("Apple")))
    }

    /// Issue 13: the history outlives a reload — saved (`savedHistory`), given to a controller
    /// made afresh from the same arrangement (`restoreHistory`), it undoes and redoes there.
    @Test func aSavedHistoryRestoredIntoAFreshControllerUndoesAndRedoes() {
        var hand = Hand(Fruit.grid())
        let first = hand.grid.snapshot
        hand.longPress("Banana")
        hand.drag(to: hand.centre("Milk"))
        hand.up(hand.centre("Milk"))
        hand.settle()
        hand.grid.focus(Fruit.id("Sheep"))
        hand.key(.space)
        hand.key(.left)
        hand.key(.space)
        hand.settle()
        hand.absorb(hand.grid.undo())      // one step on the redo stack
        let moved = hand.grid.snapshot
        let saved = hand.grid.savedHistory
        #expect(saved.undo.count == 1 && saved.redo.count == 1)

        // The page after a reload: a controller made from the server's arrangement.
        let aspects = (0..<moved.sectionCount).map { s in (0..<moved.itemCount(inSection: s)).map { _ in 1.0 } }
        var fresh = try! GridController(snapshot: moved, aspects: aspects,
                                        layout: LayoutConfiguration(kind: .grid(columns: 4), containerWidth: 400, headerHeight: 0),
                                        viewport: Size(width: 400, height: 600), interaction: Fruit.immediate)
        for n in Fruit.names { fresh.setTitle(n, for: Fruit.id(n)) }
        var again = Hand(fresh)
        #expect(again.grid.snapshot == moved)
        let restored = again.grid.restoreHistory(undo: saved.undo, redo: saved.redo)
        #expect(restored)
        #expect(again.grid.canUndo && again.grid.canRedo)
        again.absorb(again.grid.redo())
        #expect(again.grid.snapshot != moved)
        again.absorb(again.grid.undo())
        again.absorb(again.grid.undo())
        #expect(again.grid.snapshot == first)
        #expect(!again.grid.canUndo)
        #expect(again.commits.map(\.kind) == [.redo, .undo, .undo])
    }
}
