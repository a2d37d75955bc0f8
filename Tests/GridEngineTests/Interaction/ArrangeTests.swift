import Testing
@testable import GridEngine

/// Issue 12: "sort this section by capture date / by name" is one committed move of the
/// whole section, one step of undo.
@Suite struct ArrangeTests {
    static let sorted = ["Apple", "Banana", "Cherry", "Date", "Dragon", "GreatWall", "Milk", "Sheep", "TaiTan",
                         "V-Malicious", "X-Code", "🥸"]

    @Test func aSectionSortedByNameIsOneMoveOfEveryItemAndOneUndoPutsItBack() {
        var hand = Hand(Fruit.grid([Array(Fruit.names.filter { $0 != "Cherry" }.reversed()), ["Cherry"]]))
        let before = hand.names
        let order = Self.sorted.filter { $0 != "Cherry" }.map(Fruit.id)
        hand.absorb(hand.grid.arrange(section: SectionID(100), order: order))

        #expect(hand.names == [Self.sorted.filter { $0 != "Cherry" }, ["Cherry"]])
        #expect(Fruit.names(hand.shown) == hand.names)        // the batch updates reach what is shown
        #expect(hand.commits.count == 1)
        let commit = hand.commits[0]
        #expect(commit.kind == .move)
        // Every item of the section named, at 0..<n in the new order: one `move` for the server.
        #expect(commit.change.inserted.map(\.id) == order)
        #expect(commit.change.inserted.map(\.index) == Array(0..<order.count))
        #expect(Set(commit.change.inserted.map(\.section)) == [SectionID(100)])
        #expect(hand.grid.history.undoEntries.count == 1)

        hand.absorb(hand.grid.undo())
        #expect(hand.names == before)
        #expect(Fruit.names(hand.shown) == before)
        hand.absorb(hand.grid.redo())
        #expect(hand.names[0] == Self.sorted.filter { $0 != "Cherry" })
    }

    @Test func unknownIdsAreIgnoredUnnamedItemsFollowInTheirOrderAndAnUnchangedOrderCommitsNothing() {
        var hand = Hand(Fruit.grid([["Date", "Apple", "Cherry", "Banana"], ["Milk"]]))
        // Milk is in another section, 999 nowhere: ignored; Date and Banana not named: after, in their order.
        hand.absorb(hand.grid.arrange(section: SectionID(100), order: [Fruit.id("Cherry"), Fruit.id("Milk"), ItemID(999), Fruit.id("Apple")]))
        #expect(hand.names == [["Cherry", "Apple", "Date", "Banana"], ["Milk"]])
        #expect(hand.commits.count == 1)

        let again = hand.grid.arrange(section: SectionID(100), order: ["Cherry", "Apple", "Date", "Banana"].map(Fruit.id))
        #expect(again.isEmpty)
        #expect(hand.grid.arrange(section: SectionID(555), order: [Fruit.id("Apple")]).isEmpty)
        #expect(hand.grid.history.undoEntries.count == 1)
    }

    @Test func refusedWhileDraggingAndWhenReadOnly() {
        var hand = Hand(Fruit.grid([["Date", "Apple", "Cherry"]]))
        let order = ["Apple", "Cherry", "Date"].map(Fruit.id)
        hand.longPress("Apple")
        #expect(hand.grid.arrange(section: SectionID(100), order: order).isEmpty)
        hand.up(hand.centre("Apple"))
        hand.settle()
        hand.absorb(hand.grid.setReadOnly(true, now: hand.time))
        #expect(hand.grid.arrange(section: SectionID(100), order: order).isEmpty)
        #expect(hand.names == [["Date", "Apple", "Cherry"]])
        hand.absorb(hand.grid.setReadOnly(false, now: hand.time))
        hand.absorb(hand.grid.arrange(section: SectionID(100), order: order))
        #expect(hand.names == [["Apple", "Cherry", "Date"]])
    }

    @Test func placeholdersStillLoadingKeepTheirSlots() {
        var hand = Hand(Fruit.grid())
        let waiting = PlaceholderTests.dropTwoURLs(&hand)   // placeholders at 3 and 4
        hand.settle()
        #expect(waiting.count == 2 && hand.grid.session == nil)
        let order = Self.sorted.reversed().map(Fruit.id)
        hand.absorb(hand.grid.arrange(section: SectionID(100), order: order))
        let shown = hand.grid.snapshot.items(inSection: 0)
        #expect(shown[3] == waiting[0].itemID && shown[4] == waiting[1].itemID)
        #expect(shown.filter { !hand.grid.isPlaceholder($0) }.map(Fruit.name) == Self.sorted.reversed())
        hand.absorb(hand.grid.undo())
        #expect(hand.grid.snapshot.items(inSection: 0).filter { !hand.grid.isPlaceholder($0) }.map(Fruit.name) == Fruit.names)
    }
}
