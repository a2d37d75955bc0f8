import Testing
@testable import GridEngine

/// Seed 003's drops from other apps (F18, F19) and live updates from elsewhere (B2)
/// arriving during drags and loads.
@Suite struct PlaceholderTests {
    static let url: DropDataKinds = [.url, .image]

    /// Drops two URLs onto Date: placeholders at 3 and 4.
    static func dropTwoURLs(_ hand: inout Hand) -> [PlaceholderID] {
        let date = hand.centre("Date")
        hand.send(.externalDragEnter(items: [url, url], location: Point(x: 200, y: 250), time: hand.time))
        hand.send(.externalDragMove(location: date, modifiers: [], time: hand.time + 0.1))
        hand.send(.externalDrop(location: date, time: hand.time + 0.2))
        return hand.effects.compactMap { e in
            if case .loadDroppedData(let p, _, _) = e { return p } else { return nil }
        }
    }

    @Test func dropTwoURLsMoveAnItemAboveThemTheFirstLoadFailsTheOtherIsCommittedAtItsShiftedIndexPath() throws {
        var hand = Hand(Fruit.grid())
        let waiting = PlaceholderTests.dropTwoURLs(&hand)
        #expect(waiting.count == 2)
        #expect(waiting.map { hand.grid.indexPath(of: $0)?.item } == [3, 4])
        #expect(hand.commits.last?.kind == .insertPlaceholders)
        #expect(hand.commits.last?.change.isEmpty == true)              // nothing for the store yet
        let cells = hand.grid.visibleCells().filter { $0.kind == .placeholder }
        #expect(cells.map(\.indexPath.item) == [3, 4])

        // Milk moves to the front: both placeholders shift back by one.
        hand.longPress("Milk")
        hand.drag(to: hand.centre("Apple"))
        hand.up(hand.centre("Milk"))
        hand.settle()
        #expect(waiting.map { hand.grid.indexPath(of: $0)?.item } == [4, 5])

        // The first load fails; the second arrives.
        hand.absorb(try hand.grid.deletePlaceholder(waiting[0]))
        #expect(hand.grid.indexPath(of: waiting[1])?.item == 4)
        let kiwi = ItemID(500)
        hand.absorb(try hand.grid.commitInsertion(waiting[1], item: kiwi, aspect: 1.5))
        #expect(hand.grid.snapshot.indexPath(of: kiwi) == IndexPath(item: 4, section: 0))
        #expect(hand.grid.placeholders.isEmpty && hand.grid.snapshot.itemCount == 13)
        #expect(hand.grid.layout.aspect(of: IndexPath(item: 4, section: 0)) == 1.5)
        let commit = hand.commits.last!
        #expect(commit.kind == .commitPlaceholder)
        #expect(commit.change.inserted.map(\.id) == [kiwi] && commit.change.inserted[0].index == 4)
        #expect(throws: GridControllerError.unknownPlaceholder(waiting[1])) { _ = try hand.grid.commitInsertion(waiting[1], item: ItemID(501), aspect: 1) }
    }

    @Test func aPlaceholderFollowsLiveUpdatesAndTheModelNeverSeesIt() throws {
        var hand = Hand(Fruit.grid())
        let waiting = PlaceholderTests.dropTwoURLs(&hand)
        #expect(hand.grid.modelSnapshot.itemCount == 12)
        // The server deletes Apple and Banana and inserts Kiwi at the front (model positions).
        var update = BatchUpdate()
        update.itemDeletes = [IndexPath(item: 0, section: 0), IndexPath(item: 1, section: 0)]
        update.itemInserts = [ItemInsertion(at: IndexPath(item: 0, section: 0), id: ItemID(77), version: 0)]
        update.itemCountsAfter = [11]
        hand.absorb(try hand.grid.applyLiveUpdate(update, aspects: [ItemID(77): 2]))
        #expect(Fruit.names(hand.grid.snapshot)[0].prefix(5) == ["#77", "Cherry", "#\(waiting[0].itemID.rawValue)",
                                                                  "#\(waiting[1].itemID.rawValue)", "Date"])
        #expect(hand.grid.layout.aspect(of: IndexPath(item: 0, section: 0)) == 2)
        hand.absorb(try hand.grid.commitInsertion(waiting[0], item: ItemID(600), aspect: 1))
        #expect(hand.grid.snapshot.indexPath(of: ItemID(600)) == IndexPath(item: 2, section: 0))
        // A batch against the display (counting placeholders) would be wrong for the model.
        var bad = BatchUpdate()
        bad.itemCountsAfter = [13]
        #expect(throws: GridControllerError.self) { _ = try hand.grid.applyLiveUpdate(bad) }
    }

    @Test func aLiveUpdateDuringADragKeepsTheDragAndItsItem() throws {
        var hand = Hand(Fruit.grid())
        hand.longPress("Banana")
        hand.drag(to: hand.centre("Dragon"))
        var model = hand.grid.modelSnapshot
        try model.deleteItems([Fruit.id("Sheep")])
        try model.insertItems([ItemID(90)], at: IndexPath(item: 0, section: 0))
        hand.absorb(try hand.grid.applyLiveSnapshot(model))
        #expect(hand.grid.session?.phase == .dragging && hand.grid.session?.items == [Fruit.id("Banana")])
        #expect(hand.grid.displayedSnapshot.itemCount == 12 && hand.grid.displayedSnapshot.contains(ItemID(90)))
        hand.drag(to: hand.centre("Apple"))
        hand.up(hand.centre("Banana"))
        #expect(hand.names[0].prefix(3) == ["#90", "Banana", "Apple"])

        // The dragged item deleted elsewhere: the drag ends, nothing else changes.
        var other = Hand(Fruit.grid())
        other.longPress("Cherry")
        other.drag(to: other.centre("Milk"))
        var gone = other.grid.modelSnapshot
        try gone.deleteItems([Fruit.id("Cherry")])
        other.absorb(try other.grid.applyLiveSnapshot(gone))
        #expect(other.grid.session == nil && other.grid.displayedSnapshot == other.grid.snapshot)
    }
}

extension PlaceholderTests {
    @Test func sectionsChangingElsewhereDuringADragKeepTheDragAndThePlaceholders() throws {
        var hand = Hand(Fruit.grid([["Apple", "Banana", "Cherry"], ["Date", "Dragon"], ["Sheep"]], headerHeight: 20))
        hand.send(.externalDragEnter(items: [PlaceholderTests.url], location: hand.centre("Dragon"), time: 0))
        hand.send(.externalDrop(location: hand.centre("Dragon"), time: 0.1))
        let placeholder = hand.grid.placeholders[0].id
        #expect(hand.grid.indexPath(of: placeholder) == IndexPath(item: 1, section: 1))
        hand.time = 1
        hand.longPress("Apple")
        hand.drag(to: hand.centre("Sheep"))
        // Elsewhere: section 1 (with the placeholder) is deleted, a new section arrives first.
        var model = hand.grid.modelSnapshot
        try model.deleteSection(at: 1)
        try model.insertSection(SectionID(7), items: [ItemID(70)], at: 0)
        let changes = try StagedChangeset(from: hand.grid.modelSnapshot, to: model)
        hand.absorb(try hand.grid.applyLiveChanges(changes))
        #expect(hand.grid.session?.items == [Fruit.id("Apple")] && hand.grid.session?.isDragging == true)
        #expect(hand.grid.indexPath(of: placeholder)?.section == 2)   // its section is gone: the end of the last
        hand.drag(to: hand.centre("Sheep"))
        hand.up(hand.centre("Apple"))
        #expect(Fruit.names(hand.grid.modelSnapshot) == [["#70"], ["Banana", "Cherry"], ["Apple", "Sheep"]])
    }
}

extension PlaceholderTests {
    @Test func aPastedImageLandsAfterTheFocusedItemOrAtTheEnd() throws {
        var hand = Hand(Fruit.grid([["Apple", "Banana"], ["Cherry"]]))
        hand.absorb(hand.grid.paste([[.image]]))
        let atEnd = hand.grid.placeholders[0].id
        #expect(hand.grid.indexPath(of: atEnd) == IndexPath(item: 1, section: 1))
        hand.grid.focus(Fruit.id("Apple"))
        hand.absorb(hand.grid.paste([[.image], [.text], [.file]]))
        #expect(hand.grid.placeholders.count == 3)
        #expect(hand.grid.placeholders[1...].map { hand.grid.indexPath(of: $0.id) } == [IndexPath(item: 1, section: 0), IndexPath(item: 2, section: 0)])
        #expect(hand.effects.filter { if case .loadDroppedData = $0 { return true } else { return false } }.count == 3)
        hand.absorb(try hand.grid.commitInsertion(atEnd, item: ItemID(42), aspect: 1))
        #expect(Fruit.names(hand.grid.modelSnapshot) == [["Apple", "Banana"], ["Cherry", "#42"]])
        var readOnly = Fruit.grid(policy: DropPolicy(isReadOnly: true))
        #expect(readOnly.paste([[.image]]).isEmpty)
    }
}
