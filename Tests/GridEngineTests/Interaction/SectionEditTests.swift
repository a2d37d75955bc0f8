import Testing
@testable import GridEngine

/// Issue 13, sections: added, reordered by their headers, deleted with their items (to the
/// trash, one undo brings both back); each one commit with the server's section edits.
@Suite struct SectionEditTests {
    static func three() -> Hand {
        Hand(Fruit.grid([["Apple", "Banana"], ["Cherry", "Date", "Dragon"], ["Milk"]], headerHeight: 40))
    }

    @Test func aSectionMovedByItsHeaderIsOneUndoableCommitWithAMoveSectionEdit() {
        var hand = Self.three()
        let before = hand.names
        hand.absorb(hand.grid.moveSection(SectionID(102), to: 0))
        #expect(hand.names == [["Milk"], ["Apple", "Banana"], ["Cherry", "Date", "Dragon"]])
        #expect(Fruit.names(hand.shown) == hand.names)                // the batch updates reach what is shown
        #expect(hand.commits.last?.kind == .moveSection)
        #expect(hand.commits.last?.edits == [.moveSection(SectionID(102), index: 0)])
        #expect(hand.grid.layout.sectionFrame(0).minY == 0)           // laid out again in the new order
        hand.absorb(hand.grid.undo())
        #expect(hand.names == before && Fruit.names(hand.shown) == before)
        #expect(hand.commits.last?.edits == [.moveSection(SectionID(102), index: 2)])
        hand.absorb(hand.grid.redo())
        #expect(hand.names[0] == ["Milk"])
        #expect(hand.grid.moveSection(SectionID(102), to: 0).isEmpty)  // already there
    }

    @Test func aDeletedSectionsItemsGoToTheTrashAndOneUndoBringsBothBack() {
        var hand = Self.three()
        let before = hand.names
        hand.absorb(hand.grid.deleteSection(SectionID(101)))
        #expect(hand.names == [["Apple", "Banana"], ["Milk"]])
        #expect(Fruit.names(hand.shown) == hand.names)
        #expect(hand.grid.snapshot.indexOfSection(SectionID(101)) == nil)
        #expect(hand.commits.last?.kind == .deleteSection)
        #expect(hand.commits.last?.edits == [.deleteSection(SectionID(101))])
        hand.absorb(hand.grid.undo())
        #expect(hand.names == before && Fruit.names(hand.shown) == before)
        // The server's restore brings the section back with its items; they go where they were.
        let ids = ["Cherry", "Date", "Dragon"].map(Fruit.id)
        #expect(hand.commits.last?.edits == [.restore(ids), .move(items: ids, to: .sectionStart(SectionID(101)))])
        hand.absorb(hand.grid.redo())
        #expect(hand.names == [["Apple", "Banana"], ["Milk"]])
        #expect(hand.commits.last?.edits == [.trash(ids), .deleteSection(SectionID(101))])
        hand.absorb(hand.grid.undo())
        #expect(hand.names == before)
    }

    @Test func anEmptySectionGoesWithoutAnUndoAndAddingIsTheServersToName() {
        var hand = Hand(Fruit.grid([["Apple"], []], headerHeight: 40))
        let add = hand.grid.addSection(at: nil)
        guard case .commit(let c) = add.first else { Issue.record("no commit"); return }
        #expect(c.kind == .addSection && c.edits == [.createSection(index: 2)])
        #expect(hand.grid.snapshot.sectionCount == 2)                  // until the server answers
        hand.absorb(hand.grid.deleteSection(SectionID(101)))
        #expect(hand.names == [["Apple"]] && Fruit.names(hand.shown) == [["Apple"]])
        #expect(hand.commits.last?.edits == [.deleteSection(SectionID(101))])
        #expect(!hand.grid.canUndo)
    }

    @Test func aHeaderDraggedPastTheMiddleOfTheNextSectionTakesItsPlace() {
        let hand = Self.three()
        let layout = hand.grid.layout
        let s1 = layout.sectionFrame(1), s2 = layout.sectionFrame(2)
        #expect(hand.grid.sectionDropIndex(SectionID(100), contentY: 0) == 0)
        #expect(hand.grid.sectionDropIndex(SectionID(100), contentY: s1.minY + s1.height / 2 - 1) == 0)
        #expect(hand.grid.sectionDropIndex(SectionID(100), contentY: s1.minY + s1.height / 2 + 1) == 1)
        #expect(hand.grid.sectionDropIndex(SectionID(100), contentY: s2.maxY) == 2)
        #expect(hand.grid.sectionDropIndex(SectionID(102), contentY: 0) == 0)
    }
}
