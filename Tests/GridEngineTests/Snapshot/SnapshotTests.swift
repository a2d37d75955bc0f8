import Testing
@testable import GridEngine

@Suite struct SnapshotTests {
    typealias F = SnapshotFixtures

    @Test func indexPathOfAnItemIsFoundAcrossSections() {
        let s = F.make([(10, [1, 2, 3]), (20, []), (30, [4, 5])])
        #expect(s.indexPath(of: ItemID(1)) == IndexPath(item: 0, section: 0))
        #expect(s.indexPath(of: ItemID(5)) == IndexPath(item: 1, section: 2))
        #expect(s.indexPath(of: ItemID(99)) == nil)
        #expect(s.indexOfSection(SectionID(20)) == 1)
        #expect(s.indexOfSection(SectionID(99)) == nil)
        #expect(s.itemCount == 5)
        s.checkInvariants()
    }

    @Test func aDuplicateItemIdIsRefusedWithATypedError() {
        #expect(throws: SnapshotError.duplicateItem(ItemID(2))) {
            try Snapshot([(id: SectionID(1), items: [ItemID(1), ItemID(2)]), (id: SectionID(2), items: [ItemID(2)])])
        }
    }

    @Test func aDuplicateSectionIdIsRefusedWithATypedError() {
        #expect(throws: SnapshotError.duplicateSection(SectionID(1))) {
            try Snapshot([(id: SectionID(1), items: [ItemID(1)]), (id: SectionID(1), items: [ItemID(2)])])
        }
    }

    @Test func mutationsRefuseDuplicatesAndLeaveTheSnapshotUnchanged() {
        var s = F.make([(10, [1, 2]), (20, [3])])
        let before = s
        #expect(throws: SnapshotError.duplicateItem(ItemID(3))) { try s.appendItems([ItemID(7), ItemID(3)], toSection: 0) }
        #expect(throws: SnapshotError.duplicateItem(ItemID(8))) { try s.insertItems([ItemID(8), ItemID(8)], at: IndexPath(item: 0, section: 1)) }
        #expect(throws: SnapshotError.duplicateSection(SectionID(20))) { try s.appendSection(SectionID(20)) }
        #expect(throws: SnapshotError.duplicateItem(ItemID(1))) { try s.insertSection(SectionID(30), items: [ItemID(1)], at: 0) }
        #expect(throws: SnapshotError.unknownItem(ItemID(42))) { try s.deleteItems([ItemID(1), ItemID(42)]) }
        #expect(throws: SnapshotError.unknownItem(ItemID(42))) { try s.moveItem(ItemID(42), to: IndexPath(item: 0, section: 0)) }
        #expect(throws: SnapshotError.indexPathOutOfRange(IndexPath(item: 3, section: 0))) {
            try s.moveItem(ItemID(1), to: IndexPath(item: 3, section: 0))
        }
        #expect(throws: SnapshotError.sectionIndexOutOfRange(2)) { try s.moveSection(from: 0, to: 2) }
        #expect(throws: SnapshotError.unknownSection(SectionID(5))) { try s.deleteSection(SectionID(5)) }
        #expect(s == before)
        s.checkInvariants()
    }

    @Test func movingAnItemNamesItsFinalPosition() throws {
        var s = F.make([(10, [1, 2, 3, 4]), (20, [5])])
        try s.moveItem(ItemID(1), to: IndexPath(item: 3, section: 0))
        #expect(F.raw(s) == [[10, 2, 3, 4, 1], [20, 5]])
        try s.moveItem(ItemID(3), to: IndexPath(item: 1, section: 1))
        #expect(F.raw(s) == [[10, 2, 4, 1], [20, 5, 3]])
        #expect(s.indexPath(of: ItemID(3)) == IndexPath(item: 1, section: 1))
        #expect(s.indexPath(of: ItemID(4)) == IndexPath(item: 1, section: 0))
        s.checkInvariants()
    }

    @Test func sectionEditsKeepLookupsRight() throws {
        var s = F.make([(10, [1]), (20, [2]), (30, [3])])
        try s.moveSection(from: 0, to: 2)
        #expect(s.sectionIDs == [SectionID(20), SectionID(30), SectionID(10)])
        #expect(s.indexPath(of: ItemID(1)) == IndexPath(item: 0, section: 2))
        try s.deleteSection(SectionID(30))
        #expect(s.indexOfSection(SectionID(10)) == 1)
        try s.insertSection(SectionID(40), items: [ItemID(4)], at: 0)
        #expect(s.indexPath(of: ItemID(2)) == IndexPath(item: 0, section: 1))
        try s.appendSection(SectionID(50), items: [ItemID(5), ItemID(6)])
        #expect(s.indexPath(of: ItemID(6)) == IndexPath(item: 1, section: 3))
        s.checkInvariants()
    }

    @Test func reloadBumpsTheContentVersion() throws {
        var s = F.make([(10, [1, 2])])
        try s.reloadItems([ItemID(2)])
        try s.reloadItems([ItemID(2)])
        #expect(s.version(of: ItemID(2)) == 2)
        #expect(s.version(of: ItemID(1)) == 0)
        try s.setVersion(7, of: ItemID(1))
        #expect(s.version(at: IndexPath(item: 0, section: 0)) == 7)
    }

    @Test func aCopyKeepsItsOwnLookupsWhenTheOriginalChanges() throws {
        var a = F.make([(10, [1, 2, 3])])
        _ = a.indexPath(of: ItemID(1))  // build the shared table
        let b = a
        try a.moveItem(ItemID(1), to: IndexPath(item: 2, section: 0))
        try a.appendItems([ItemID(4)], toSection: 0)
        #expect(b.indexPath(of: ItemID(1)) == IndexPath(item: 0, section: 0))
        #expect(b.indexPath(of: ItemID(4)) == nil)
        #expect(a.indexPath(of: ItemID(1)) == IndexPath(item: 2, section: 0))
        #expect(a.indexPath(of: ItemID(4)) == IndexPath(item: 3, section: 0))
        a.checkInvariants()
        b.checkInvariants()
    }

    @Test func deletingManyItemsKeepsTheOthersInOrder() throws {
        var s = F.make([(10, Array(1...10)), (20, Array(11...15))])
        try s.deleteItems([ItemID(3), ItemID(12), ItemID(1), ItemID(10), ItemID(3)])
        #expect(F.raw(s) == [[10, 2, 4, 5, 6, 7, 8, 9], [20, 11, 13, 14, 15]])
        s.checkInvariants()
    }

    @Test func randomEditsKeepInvariantsAndLookups() throws {
        for seed in 0..<50 as Range<UInt64> {
            var rng = SeededGenerator(seed: seed)
            var next: UInt64 = 1
            var s = F.random(sections: 5, items: 20, nextID: &next, using: &rng)
            try F.randomlyEdit(&s, edits: 60, nextID: &next, using: &rng)
            for sec in 0..<s.sectionCount {
                #expect(s.indexOfSection(s.sectionID(at: sec)) == sec)
                for (i, id) in s.items(inSection: sec).enumerated() {
                    #expect(s.indexPath(of: id) == IndexPath(item: i, section: sec))
                }
            }
        }
    }
}
