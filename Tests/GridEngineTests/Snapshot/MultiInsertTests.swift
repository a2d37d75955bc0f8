import Testing
@testable import GridEngine

/// `insertItems(_:versions:before:inSection:)`: items at several places of one section in one
/// pass (a restore of many items, GalleryStore's `restoreMany`).
@Suite struct MultiInsertTests {
    typealias F = SnapshotFixtures

    @Test func runsLandBeforeTheItemsTheyNameInTheirOrder() throws {
        var s = F.make([(10, [1, 2, 3]), (20, [4, 5, 6, 7])])
        try s.insertItems([ItemID(40), ItemID(41), ItemID(42), ItemID(43), ItemID(44)], versions: [1, 2, 3, 4, 5],
                          before: [0, 2, 2, 4, 4], inSection: 1)
        #expect(F.raw(s) == [[10, 1, 2, 3], [20, 40, 4, 5, 41, 42, 6, 7, 43, 44]])
        #expect(s.versions(inSection: 1) == [1, 0, 0, 2, 3, 0, 0, 4, 5])
        #expect(s.indexPath(of: ItemID(42)) == IndexPath(item: 4, section: 1))
        #expect(s.indexPath(of: ItemID(7)) == IndexPath(item: 6, section: 1))
        s.checkInvariants()
    }

    @Test func badArgumentsChangeNothing() {
        var s = F.make([(10, [1, 2, 3])])
        let before = s
        #expect(throws: SnapshotError.indexPathOutOfRange(IndexPath(item: 1, section: 0))) {
            try s.insertItems([ItemID(8), ItemID(9)], versions: [0, 0], before: [2, 1], inSection: 0)
        }
        #expect(throws: SnapshotError.indexPathOutOfRange(IndexPath(item: 4, section: 0))) {
            try s.insertItems([ItemID(8)], versions: [0], before: [4], inSection: 0)
        }
        #expect(throws: SnapshotError.duplicateItem(ItemID(2))) {
            try s.insertItems([ItemID(8), ItemID(2)], versions: [0, 0], before: [0, 1], inSection: 0)
        }
        #expect(throws: SnapshotError.versionCountMismatch(SectionID(10))) {
            try s.insertItems([ItemID(8)], versions: [], before: [0], inSection: 0)
        }
        #expect(throws: SnapshotError.sectionIndexOutOfRange(1)) {
            try s.insertItems([ItemID(8)], versions: [0], before: [0], inSection: 1)
        }
        #expect(s == before)
        s.checkInvariants()
    }

    /// Against the same runs inserted one by one, on snapshots that moved items first (so the
    /// section's index log holds shifts the insert must flush).
    @Test func randomRunsAgreeWithInsertingOneRunAtATime() throws {
        for seed in 0..<200 as Range<UInt64> {
            var rng = SeededGenerator(seed: seed)
            var next: UInt64 = 1
            var s = F.random(sections: 4, items: 30, nextID: &next, using: &rng)
            try F.randomlyEdit(&s, edits: 20, nextID: &next, using: &rng)
            guard s.sectionCount > 0 else { continue }
            let sec = Int.random(in: 0..<s.sectionCount, using: &rng)
            for _ in 0..<Int.random(in: 0...5, using: &rng) where s.itemCount(inSection: sec) > 1 {
                let id = s.items(inSection: sec)[Int.random(in: 0..<s.itemCount(inSection: sec), using: &rng)]
                try s.moveItem(id, to: IndexPath(item: Int.random(in: 0..<s.itemCount(inSection: sec), using: &rng), section: sec))
            }
            let count = s.itemCount(inSection: sec)
            let k = Int.random(in: 1...12, using: &rng)
            let positions = (0..<k).map { _ in Int.random(in: 0...count, using: &rng) }.sorted()
            var ids: [ItemID] = [], versions: [UInt32] = []
            for _ in 0..<k { ids.append(ItemID(next)); next += 1; versions.append(UInt32.random(in: 0...3, using: &rng)) }

            var expected = s
            // One run at a time from the last, so that earlier positions still name the same items.
            var j = k
            while j > 0 {
                var start = j - 1
                while start > 0 && positions[start - 1] == positions[j - 1] { start -= 1 }
                try expected.insertItems(Array(ids[start..<j]), at: IndexPath(item: positions[start], section: sec))
                for m in start..<j { try expected.setVersion(versions[m], of: ids[m]) }
                j = start
            }
            try s.insertItems(ids, versions: versions, before: positions, inSection: sec)
            #expect(s == expected, "seed \(seed)")
            s.checkInvariants()
            for t in 0..<s.sectionCount {
                for (i, id) in s.items(inSection: t).enumerated() { #expect(s.indexPath(of: id) == IndexPath(item: i, section: t)) }
            }
        }
    }
}
