import Testing
@testable import GridEngine

/// `moveItem` logs index shifts instead of renumbering the id table (`_IndexLog`): every
/// reader must see exactly what an eager renumbering would have given. These tests compare
/// every lookup with a linear scan of the arrays after every step of long random edit runs.
@Suite struct IndexLogTests {
    /// id → position by scanning the arrays: the reference the table must agree with.
    static func scan(_ s: Snapshot) -> [UInt64: IndexPath] {
        var out: [UInt64: IndexPath] = [:]
        for sec in 0..<s.sectionCount {
            for (i, id) in s.items(inSection: sec).enumerated() { out[id.rawValue] = IndexPath(item: i, section: sec) }
        }
        return out
    }

    /// Every id's lookups against the scan, plus absent ids and the invariant checker.
    static func checkLookups(_ s: Snapshot, known: [UInt64], step: Int) {
        let reference = scan(s)
        // One expectation per step (an #expect per id would dominate a debug run).
        var wrong: String? = nil
        for id in known {
            let want = reference[id]
            let got = s.indexPath(of: ItemID(id))
            let version = want.map { s.versions(inSection: $0.section)[$0.item] }
            if got != want || s.contains(ItemID(id)) != (want != nil) || s.version(of: ItemID(id)) != version {
                wrong = "id \(id): indexPath \(String(describing: got)), want \(String(describing: want))"
                break
            }
        }
        #expect(wrong == nil, "step \(step): \(wrong ?? "")")
        #expect(s.itemCount == reference.count)
        s.checkInvariants()
    }

    /// One random edit, weighted towards moves (within a section, across, to the ends).
    static func randomStep(_ s: inout Snapshot, nextID: inout UInt64, using rng: inout SeededGenerator) throws {
        let roll = Int.random(in: 0..<100, using: &rng)
        let total = s.itemCount
        switch roll {
        case 0..<40 where total > 0:
            // Within the section: anywhere, a few places along, or to either end.
            let id = SnapshotFixtures.randomItem(s, using: &rng)
            let from = s.indexPath(of: id)!
            let count = s.itemCount(inSection: from.section)
            let to: Int
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: to = 0
            case 1: to = count - 1
            case 2: to = max(0, min(count - 1, from.item + Int.random(in: -12...12, using: &rng)))
            default: to = Int.random(in: 0..<count, using: &rng)
            }
            try s.moveItem(id, to: IndexPath(item: to, section: from.section))
        case 40..<75 where total > 0 && s.sectionCount > 1:
            // Across sections, sometimes to the first or last place.
            let id = SnapshotFixtures.randomItem(s, using: &rng)
            let from = s.indexPath(of: id)!
            var sec = Int.random(in: 0..<s.sectionCount - 1, using: &rng)
            if sec >= from.section { sec += 1 }
            let count = s.itemCount(inSection: sec)
            let to: Int
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: to = 0
            case 1: to = count
            default: to = Int.random(in: 0...count, using: &rng)
            }
            try s.moveItem(id, to: IndexPath(item: to, section: sec))
        case 75..<80 where total > 0:
            try s.reloadItems([SnapshotFixtures.randomItem(s, using: &rng)])
        case 80..<83 where total > 0:
            try s.setVersion(UInt32.random(in: 0...1000, using: &rng), of: SnapshotFixtures.randomItem(s, using: &rng))
        case 83..<88 where s.sectionCount > 0:
            let sec = Int.random(in: 0..<s.sectionCount, using: &rng)
            let at = Int.random(in: 0...s.itemCount(inSection: sec), using: &rng)
            var ids: [ItemID] = []
            for _ in 0..<Int.random(in: 1...4, using: &rng) { ids.append(ItemID(nextID)); nextID += 1 }
            try s.insertItems(ids, at: IndexPath(item: at, section: sec))
        case 88..<93 where total > 1:
            var ids: [ItemID] = []
            for _ in 0..<Int.random(in: 1...3, using: &rng) { ids.append(SnapshotFixtures.randomItem(s, using: &rng)) }
            try s.deleteItems(ids)
        case 93..<95:
            var ids: [ItemID] = []
            for _ in 0..<Int.random(in: 0...40, using: &rng) { ids.append(ItemID(nextID)); nextID += 1 }
            let sid = SectionID(nextID); nextID += 1
            try s.insertSection(sid, items: ids, at: Int.random(in: 0...s.sectionCount, using: &rng))
        case 95..<97 where s.sectionCount > 2:
            try s.deleteSection(at: Int.random(in: 0..<s.sectionCount, using: &rng))
        case 97..<100 where s.sectionCount > 1:
            try s.moveSection(from: Int.random(in: 0..<s.sectionCount, using: &rng),
                              to: Int.random(in: 0..<s.sectionCount, using: &rng))
        default:
            break
        }
    }

    /// A snapshot of `sections` sections of 0...`maxItems` fresh ids.
    static func start(sections: Int, maxItems: Int, nextID: inout UInt64, using rng: inout SeededGenerator) -> Snapshot {
        var s = Snapshot()
        for _ in 0..<sections {
            var ids: [ItemID] = []
            for _ in 0..<Int.random(in: 0...maxItems, using: &rng) { ids.append(ItemID(nextID)); nextID += 1 }
            try! s.appendSection(SectionID(nextID), items: ids)
            nextID += 1
        }
        return s
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomMixedEditsKeepEveryLookupEqualToALinearScan(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        var next: UInt64 = 1
        var s = Self.start(sections: 4, maxItems: 150, nextID: &next, using: &rng)
        var loggedSteps = 0
        for step in 0..<2_500 {
            try Self.randomStep(&s, nextID: &next, using: &rng)
            if s._hasIndexLog { loggedSteps += 1 }
            // Every id ever made, so deleted ones are checked absent.
            Self.checkLookups(s, known: Array(1..<next), step: step)
        }
        // The run exercised the log, not only flushed snapshots.
        #expect(loggedSteps > 1_000)
    }

    /// Diffs between two snapshots that both carry unwritten index shifts replay exactly,
    /// both ways, and every stage validates against the snapshot it is applied to.
    @Test(arguments: [4, 5] as [UInt64])
    func diffsBetweenSnapshotsWithLoggedMovesReplayExactly(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        var next: UInt64 = 1
        var s = Self.start(sections: 5, maxItems: 400, nextID: &next, using: &rng)
        var earlier = s
        var diffs = 0
        for step in 0..<1_500 {
            try Self.randomStep(&s, nextID: &next, using: &rng)
            if step % 25 != 24 { continue }
            for (source, target) in [(earlier, s), (s, earlier)] {
                let changes = try StagedChangeset(from: source, to: target)
                var shown = source
                for stage in changes.stages {
                    try BatchUpdate.validate(stage, against: shown)
                    shown = try shown.applying(stage)
                }
                #expect(shown == target, "step \(step): the diff does not replay")
                shown.checkInvariants()
                diffs += 1
            }
            // Sometimes keep the dirty snapshot as the next source, sometimes keep the old one.
            if Bool.random(using: &rng) { earlier = s }
        }
        #expect(diffs == 120)
        // A shuffle of a dirty snapshot (the differ's private-table path) replays too.
        var shuffled = s
        for _ in 0..<3_000 where shuffled.itemCount > 0 {
            let id = SnapshotFixtures.randomItem(shuffled, using: &rng)
            let sec = Int.random(in: 0..<shuffled.sectionCount, using: &rng)
            let from = shuffled.indexPath(of: id)!
            let limit = shuffled.itemCount(inSection: sec) - (sec == from.section ? 1 : 0)
            try shuffled.moveItem(id, to: IndexPath(item: Int.random(in: 0...limit, using: &rng), section: sec))
        }
        let changes = try StagedChangeset(from: s, to: shuffled)
        var shown = s
        for stage in changes.stages { shown = try shown.applying(stage) }
        #expect(shown == shuffled)
    }

    /// A batch that inserts an id the snapshot holds is refused unless the same batch deletes
    /// it: the validator finds the id's position through the log.
    @Test func batchValidationFindsMovedItemsThroughTheLog() throws {
        var rng = SeededGenerator(seed: 7)
        var next: UInt64 = 1
        var s = Self.start(sections: 3, maxItems: 60, nextID: &next, using: &rng)
        for step in 0..<300 {
            try Self.randomStep(&s, nextID: &next, using: &rng)
            guard s.itemCount > 0, s._hasIndexLog else { continue }
            let id = SnapshotFixtures.randomItem(s, using: &rng)
            let at = s.indexPath(of: id)!
            var counts = (0..<s.sectionCount).map { s.itemCount(inSection: $0) }
            var dup = BatchUpdate()
            dup.itemInserts = [ItemInsertion(at: IndexPath(item: 0, section: 0), id: id, version: 0)]
            counts[0] += 1
            dup.itemCountsAfter = counts
            #expect(throws: BatchUpdateError.duplicateItemID(id), "step \(step)") { try BatchUpdate.validate(dup, against: s) }
            // Deleted at its (current) position in the same batch: a valid re-insert.
            var again = BatchUpdate()
            again.itemDeletes = [at]
            again.itemInserts = [ItemInsertion(at: IndexPath(item: 0, section: 0), id: id, version: 3)]
            counts[at.section] -= 1
            again.itemCountsAfter = counts
            let after = try s.applying(again)
            #expect(after.indexPath(of: id) == IndexPath(item: 0, section: 0), "step \(step)")
            #expect(after.version(of: id) == 3)
        }
    }

    /// Small drags spread over a long section never let the log's pending write grow much
    /// past what the moves would have renumbered themselves (the invariant checker traps
    /// otherwise), and the far moves still leave every lookup right.
    @Test func smallMovesFarApartKeepTheFlushBounded() throws {
        var s = SnapshotFixtures.make([(1, Array(1...20_000))])
        var rng = SeededGenerator(seed: 11)
        for step in 0..<400 {
            let centre = [100, 19_000, 10_000][step % 3]
            let from = centre + Int.random(in: -20...20, using: &rng)
            let to = from + Int.random(in: -10...10, using: &rng)
            let id = s.itemID(at: IndexPath(item: from, section: 0))
            try s.moveItem(id, to: IndexPath(item: to, section: 0))
            let log = s._sections[0].log
            #expect(min(log.hi, 20_000) - log.lo <= _IndexLog.slack * log.maxSpan + _IndexLog.slackConstant)
        }
        Self.checkLookups(s, known: Array(1...20_000), step: 400)
    }
}
