import Testing
@testable import GridEngine

/// Snapshots of at least `_IDTable.groupedMinimum` items build their id table in bulk
/// (`_IDTable.insertAllGrouped`): the same lookups, errors and later edits as one by one.
@Suite struct BigSnapshotTests {
    /// 40,000 ids in 7 sections: runs of consecutive ids, ids a power of two apart (which share
    /// a hash group's high bits less evenly) and large ids near 2^53.
    static func sections() -> [(id: SectionID, items: [ItemID], versions: [UInt32])] {
        var out: [(id: SectionID, items: [ItemID], versions: [UInt32])] = []
        var next: UInt64 = 1
        for s in 0..<7 {
            var items: [ItemID] = []
            let count = [10_000, 0, 7_000, 1, 9_999, 6_000, 7_000][s]
            for i in 0..<count {
                switch s % 3 {
                case 0: items.append(ItemID(next)); next += 1
                case 1: items.append(ItemID((UInt64(i) &+ 1) &<< 20 | UInt64(s)))
                default: items.append(ItemID((1 << 53) - 1 - UInt64(i) &* 8 - UInt64(s)))
                }
            }
            out.append((id: SectionID(UInt64(100 + s)), items: items, versions: items.map { UInt32(truncatingIfNeeded: $0.rawValue % 7) }))
        }
        return out
    }

    @Test func aBigSnapshotFindsEveryItemWhereItIs() throws {
        let sections = Self.sections()
        #expect(sections.reduce(0) { $0 + $1.items.count } >= _IDTable.groupedMinimum)
        let s = try Snapshot(sections)
        s.checkInvariants()
        #expect(s.itemCount == 40_000)
        for (si, section) in sections.enumerated() {
            #expect(s.indexOfSection(section.id) == si)
            for (i, id) in section.items.enumerated() where s.indexPath(of: id) != IndexPath(item: i, section: si) {
                Issue.record("item \(id.rawValue) not at \(si), \(i)")
                return
            }
        }
        #expect(s.indexPath(of: ItemID(0)) == nil)
        #expect(s.indexPath(of: ItemID(40_001)) == nil)
    }

    @Test func aBigSnapshotTakesEditsLikeASmallOne() throws {
        var s = try Snapshot(Self.sections())
        let moved = s.itemID(at: IndexPath(item: 5, section: 0))
        try s.moveItem(moved, to: IndexPath(item: 3, section: 2))
        try s.deleteItems([s.itemID(at: IndexPath(item: 0, section: 4))])
        try s.appendItems([ItemID(900_000_001)], toSection: 1)
        s.checkInvariants()
        #expect(s.indexPath(of: moved) == IndexPath(item: 3, section: 2))
        #expect(s.indexPath(of: ItemID(900_000_001)) == IndexPath(item: 0, section: 1))
        #expect(s.itemCount == 40_000)
    }

    @Test func aRepeatedIdInABigSnapshotIsNamedAsOneByOne() {
        // Two repeats: the one a front-to-back build meets first is named.
        var sections = Self.sections()
        let early = sections[0].items[9_000], late = sections[2].items[10]
        sections[4].items[3] = late; sections[5].items[20] = early
        #expect(throws: SnapshotError.duplicateItem(late)) { try Snapshot(sections) }
        var again = Self.sections()
        again[6].id = again[2].id
        #expect(throws: SnapshotError.duplicateSection(again[2].id)) { try Snapshot(again) }
    }

    /// A gallery's ids as the server numbers them (one run with gaps, not in order): the table is
    /// dense, and the snapshot finds, edits, takes ids far outside the run and names a repeat
    /// as the one-by-one build does.
    @Test func aBigSnapshotOfCloseIdsIsDenseAndTakesEditsLikeASmallOne() throws {
        var rng = SeededGenerator(seed: 3)
        let ids = (0..<30_000).map { ItemID(5_000_000 + UInt64($0) * 2) }.shuffled(using: &rng)
        var sections: [(id: SectionID, items: [ItemID], versions: [UInt32])] = []
        for s in 0..<6 {
            let items = Array(ids[(s * 5000)..<(s * 5000 + 5000)])
            sections.append((id: SectionID(UInt64(s + 1)), items: items, versions: [UInt32](repeating: 1, count: 5000)))
        }
        var snapshot = try Snapshot(sections)
        let dense = snapshot._itemTable._isDense
        #expect(dense)
        snapshot.checkInvariants()
        for (si, section) in sections.enumerated() {
            for (i, id) in section.items.enumerated() where snapshot.indexPath(of: id) != IndexPath(item: i, section: si) {
                Issue.record("item \(id.rawValue) not at \(si), \(i)"); return
            }
        }
        #expect(snapshot.indexPath(of: ItemID(5_000_001)) == nil)
        try snapshot.moveItem(sections[0].items[7], to: IndexPath(item: 0, section: 5))
        try snapshot.deleteItems([sections[1].items[0]])
        try snapshot.appendItems([ItemID(5_060_000), ItemID(1), ItemID(1 << 50)], toSection: 2)
        snapshot.checkInvariants()
        #expect(snapshot.indexPath(of: sections[0].items[7]) == IndexPath(item: 0, section: 5))
        #expect(snapshot.indexPath(of: sections[1].items[0]) == nil)
        #expect(snapshot.indexPath(of: ItemID(1 << 50)) == IndexPath(item: 5002, section: 2))
        #expect(snapshot.itemCount == 30_002)
        var repeated = sections
        repeated[4].items[9] = sections[1].items[20]
        #expect(throws: SnapshotError.duplicateItem(sections[1].items[20])) { try Snapshot(repeated) }
    }

    @Test func aGroupedInsertAgreesWithInsertsOneByOne() {
        for seed in 0..<5 as Range<UInt64> {
            var rng = SeededGenerator(seed: seed)
            var lists: [[ItemID]] = []
            var seen = Set<UInt64>()
            for _ in 0..<5 {
                var list: [ItemID] = []
                for _ in 0..<Int.random(in: 0..<3000, using: &rng) {
                    let key = UInt64.random(in: 0..<50_000, using: &rng) &* 0x1_0000_0001
                    if seen.insert(key).inserted { list.append(ItemID(key)) }
                }
                lists.append(list)
            }
            let total = lists.reduce(0) { $0 + $1.count }
            var grouped = _IDTable(minimumCapacity: total)
            let filled = grouped.insertAllGrouped(lists, value: { Int64($0 * 10_000 + $1) })
            #expect(filled)
            #expect(grouped.count == total)
            for (s, list) in lists.enumerated() {
                for (i, id) in list.enumerated() where grouped.find(id.rawValue) != Int64(s * 10_000 + i) {
                    Issue.record("seed \(seed): \(id.rawValue) not found as \(s), \(i)")
                    return
                }
            }
            #expect(grouped.find(7) == -1)
            // A repeated key, or a table not empty, is refused (the caller goes one by one).
            var repeated = _IDTable(minimumCapacity: total + 1)
            let withRepeat = repeated.insertAllGrouped(lists + [[lists.first { !$0.isEmpty }![0]]], value: { Int64($0 + $1) })
            #expect(!withRepeat)
            let again = grouped.insertAllGrouped(lists, value: { Int64($0 + $1) })
            #expect(!again)
        }
    }
}
