import Testing
@testable import GridEngine

/// Issue 10: a viewer's grid is read-only in the engine, not merely without buttons: a
/// long press, a mouse drag, a keyboard pick-up, an external drop, a paste and an undo
/// lift or change nothing, while a tap still opens the item.
@Suite struct ReadOnlyGridTests {
    static func readOnly(_ grid: GridController = Fruit.grid()) -> Hand {
        var hand = Hand(grid)
        hand.absorb(hand.grid.setReadOnly(true, now: 0))
        return hand
    }

    static func lifted(_ hand: Hand) -> Bool {
        hand.effects.contains { if case .dragBegan = $0 { return true } else { return false } }
            || hand.grid.visibleCells().contains { $0.kind == .preview || $0.flags.contains(.lifted) }
    }

    @Test func aLongPressOnBananaLiftsNothingAndMovesNothing() {
        var hand = ReadOnlyGridTests.readOnly()
        hand.longPress("Banana")
        #expect(hand.grid.session == nil)
        hand.drag(to: hand.centre("Date"))
        hand.up(hand.centre("Date"))
        hand.settle()
        #expect(!ReadOnlyGridTests.lifted(hand) && hand.commits.isEmpty)
        #expect(hand.names == [Fruit.names])
    }

    @Test func aMouseDragLiftsNothingButATapStillOpensTheItem() {
        var hand = ReadOnlyGridTests.readOnly()
        hand.kind = .mouse
        let banana = hand.centre("Banana")
        hand.down(banana)
        hand.move(Point(x: banana.x + 30, y: banana.y + 40))
        hand.move(hand.centre("Date"))
        hand.up(hand.centre("Date"))
        #expect(!ReadOnlyGridTests.lifted(hand) && hand.commits.isEmpty && hand.names == [Fruit.names])
        hand.down(hand.centre("Cherry"))
        hand.up(hand.centre("Cherry"))
        #expect(hand.effects.last == .itemTapped(Fruit.id("Cherry")))
    }

    @Test func theKeyboardCannotPickUpAndSaysWhy() {
        var hand = ReadOnlyGridTests.readOnly()
        hand.grid.focus(Fruit.id("Apple"))
        hand.key(.space)
        hand.key(.right)
        hand.key(.space)
        #expect(!ReadOnlyGridTests.lifted(hand) && hand.commits.isEmpty)
        #expect(hand.announcements.first == "Apple cannot be moved: this gallery is read-only")
        #expect(hand.grid.focusedItem == Fruit.id("Banana"))   // arrows still move the focus
    }

    @Test func externalDropsAndPastesAddNoPlaceholder() {
        var hand = ReadOnlyGridTests.readOnly()
        hand.send(.externalDragEnter(items: [[.url, .image]], location: hand.centre("Apple"), time: 1))
        hand.send(.externalDragMove(location: hand.centre("Cherry"), modifiers: [], time: 1.1))
        hand.send(.externalDrop(location: hand.centre("Cherry"), time: 1.2))
        hand.absorb(hand.grid.paste([[.file, .image]]))
        #expect(hand.grid.session == nil && hand.grid.placeholders.isEmpty && hand.commits.isEmpty)
    }

    @Test func undoIsRefusedWhileReadOnlyAndComesBackWithTheRole() {
        var hand = Hand(Fruit.grid())
        hand.longPress("Apple")
        hand.drag(to: hand.centre("Cherry"))
        hand.up(hand.centre("Cherry"))
        hand.settle()
        let arranged = hand.names
        #expect(arranged != [Fruit.names] && hand.grid.canUndo)
        hand.absorb(hand.grid.setReadOnly(true, now: hand.time))
        #expect(!hand.grid.canUndo && hand.grid.undo().isEmpty && hand.names == arranged)
        hand.absorb(hand.grid.setReadOnly(false, now: hand.time))
        hand.absorb(hand.grid.undo())
        #expect(hand.names == [Fruit.names])
    }

    @Test func becomingReadOnlyMidDragSendsTheItemHome() {
        var hand = Hand(Fruit.grid())
        hand.longPress("Apple")
        hand.drag(to: hand.centre("Milk"))
        hand.absorb(hand.grid.setReadOnly(true, now: hand.time))
        hand.settle()
        #expect(hand.grid.session == nil && hand.names == [Fruit.names])
        #expect(hand.commits.isEmpty)
        #expect(hand.effects.contains { if case .dragEnded(.cancel, _) = $0 { return true } else { return false } })
    }
}
