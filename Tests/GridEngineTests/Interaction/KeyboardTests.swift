import Testing
@testable import GridEngine

/// B3: keyboard drag and drop with screen-reader announcements.
@Suite struct KeyboardTests {
    @Test func spacePicksUpBananaArrowsMoveItSpaceDropsItAndEveryStepIsAnnounced() {
        var hand = Hand(Fruit.grid())
        hand.grid.focus(Fruit.id("Banana"))
        hand.key(.space)
        hand.key(.right)
        hand.key(.right)
        hand.key(.right)
        hand.key(.space)
        #expect(hand.announcements == ["Banana picked up, position 2 of 12", "Banana, position 3 of 12",
                                       "Banana, position 4 of 12", "Banana, position 5 of 12",
                                       "Banana dropped at position 5 of 12"])
        #expect(hand.names[0].prefix(5) == ["Apple", "Cherry", "Date", "Dragon", "Banana"])
        #expect(hand.commits.map(\.kind) == [.move])
    }

    @Test func anItemWithoutATitleIsAnnouncedByReferenceForTheHostToName() {
        var grid = Fruit.grid()
        grid._titles[Fruit.id("Banana")] = nil // the page keeps item titles itself
        var hand = Hand(grid)
        hand.grid.focus(Fruit.id("Banana"))
        hand.key(.space)
        let reference = GridController.titleReference(Fruit.id("Banana"))
        #expect(reference == "\u{E000}\(Fruit.id("Banana").rawValue)\u{E001}")
        #expect(hand.announcements == ["\(reference) picked up, position 2 of 12"])
    }

    @Test func arrowsMoveAcrossRowsAndSectionsAndTheLiftedItemShowsInItsSlot() {
        var grid = Fruit.grid([["Apple", "Banana", "Cherry", "Date", "Dragon", "Sheep"], ["Milk"]], headerHeight: 30)
        grid.setTitle("Favourites", forSection: SectionID(101))
        var hand = Hand(grid)
        hand.grid.focus(Fruit.id("Banana"))
        hand.key(.space)
        hand.key(.down)        // onto Sheep's place in the row below
        let lifted = hand.cell("Banana")!
        #expect(lifted.flags.contains(.lifted) && lifted.scale == 1.2)
        hand.key(.down)        // past the last row: into the next section
        hand.key(.left)        // before the first item of section 1: end of section 0
        hand.key(.right)
        hand.key(.enter)
        #expect(hand.announcements == [
            "Banana picked up, position 2 of 6, in section 1",
            "Banana, position 6 of 6, in section 1",
            "Banana, position 1 of 2, in Favourites",
            "Banana, position 6 of 6, in section 1",
            "Banana, position 1 of 2, in Favourites",
            "Banana dropped at position 1 of 2, in Favourites",
        ])
        #expect(hand.names == [["Apple", "Cherry", "Date", "Dragon", "Sheep"], ["Banana", "Milk"]])
    }

    @Test func escapeCancelsAndNothingMoves() {
        var hand = Hand(Fruit.grid())
        hand.grid.focus(Fruit.id("Cherry"))
        hand.key(.enter)
        hand.key(.left)
        hand.key(.left)
        hand.key(.escape)
        #expect(hand.announcements.last == "Cherry drag cancelled, back at position 3 of 12")
        hand.settle()
        #expect(hand.commits.isEmpty && hand.names == [Fruit.names] && hand.grid.session == nil)
    }

    @Test func withoutADragArrowsMoveTheFocus() {
        var hand = Hand(Fruit.grid())
        hand.key(.tab)
        hand.key(.right)
        hand.key(.down)
        #expect(hand.grid.focusedItem == Fruit.id("Sheep"))
        #expect(hand.announcements == ["Apple, position 1 of 12", "Banana, position 2 of 12", "Sheep, position 6 of 12"])
        #expect(hand.grid.visibleCells().filter { $0.flags.contains(.focused) }.map(\.item) == [Fruit.id("Sheep")])
    }

    /// Issue 13: ArrowDown from the last row of a section crosses the header into the next
    /// section (the probe below hit the header and the focus stopped); ArrowUp comes back.
    @Test func arrowsMoveTheFocusAcrossASectionHeader() {
        let grid = Fruit.grid([["Apple", "Banana", "Cherry", "Date", "Dragon", "Sheep"], ["Milk", "X-Code"]], headerHeight: 30)
        var hand = Hand(grid)
        hand.grid.focus(Fruit.id("Dragon"))
        hand.key(.down)
        #expect(hand.grid.focusedItem == Fruit.id("Milk"))
        hand.key(.up)
        #expect(hand.grid.focusedItem == Fruit.id("Dragon"))
        hand.grid.focus(Fruit.id("Sheep"))
        hand.key(.down)        // nothing below Sheep's column: the nearest item beyond
        #expect(hand.grid.focusedItem == Fruit.id("X-Code"))
    }
}
