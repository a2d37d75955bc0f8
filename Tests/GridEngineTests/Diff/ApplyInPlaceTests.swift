import Testing
@testable import GridEngine

/// `applyInPlace` must be `applying` exactly — same snapshot, same lookups, same errors — while
/// rewriting only the sections a stage touches (what a catch-up history replay runs on a 1M-item
/// gallery after a restart, issue 15).
@Suite struct ApplyInPlaceTests {
    typealias F = SnapshotFixtures

    /// `applying` and `applyInPlace` on `s` agree; returns the result (or nil when both threw).
    @discardableResult
    static func agree(_ s: Snapshot, _ stage: BatchUpdate, _ note: String, sourceLocation: SourceLocation = #_sourceLocation) -> Snapshot? {
        var inPlace = s
        let expected: Result<Snapshot, BatchUpdateError>
        do { expected = .success(try s.applying(stage)) } catch { expected = .failure(error) }
        let got: Result<Snapshot, BatchUpdateError>
        do { try inPlace.applyInPlace(stage); got = .success(inPlace) } catch { got = .failure(error) }
        switch (expected, got) {
        case let (.success(a), .success(b)):
            #expect(a == b, "\(note): same arrangement", sourceLocation: sourceLocation)
            b.checkInvariants()
            for id in a.allItemIDs {
                #expect(b.indexPath(of: id) == a.indexPath(of: id), "\(note): lookup of \(id.rawValue)", sourceLocation: sourceLocation)
                #expect(b.version(of: id) == a.version(of: id), sourceLocation: sourceLocation)
            }
            #expect(b.itemCount == a.itemCount, sourceLocation: sourceLocation)
            return b
        case let (.failure(x), .failure(y)):
            #expect(x == y, "\(note): same error", sourceLocation: sourceLocation)
            #expect(inPlace == s, "\(note): a rejected stage changes nothing", sourceLocation: sourceLocation)
            inPlace.checkInvariants()
            return nil
        default:
            Issue.record("\(note): applying \(expected) but applyInPlace \(got)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// Item edits only (moves within and across sections, deletes, inserts, reloads): the path
    /// that rewrites the touched sections only. Answers the ids it moved, deleted or reloaded.
    @discardableResult
    static func randomItemEdits(_ s: inout Snapshot, edits: Int, nextID: inout UInt64, using rng: inout SeededGenerator) throws -> [ItemID] {
        var named: [ItemID] = []
        for _ in 0..<edits {
            let roll = Int.random(in: 0..<100, using: &rng)
            let total = s.itemCount
            switch roll {
            case 0..<20 where total > 0:
                let id = F.randomItem(s, using: &rng)
                try s.deleteItems([id])
                named.append(id)
            case 20..<40 where s.sectionCount > 0:
                let sec = Int.random(in: 0..<s.sectionCount, using: &rng)
                let at = Int.random(in: 0...s.itemCount(inSection: sec), using: &rng)
                var ids: [ItemID] = []
                for _ in 0..<Int.random(in: 1...3, using: &rng) { ids.append(ItemID(nextID)); nextID += 1 }
                try s.insertItems(ids, at: IndexPath(item: at, section: sec))
            case 40..<85 where total > 0:
                let id = F.randomItem(s, using: &rng)
                let from = s.indexPath(of: id)!
                let sec = Int.random(in: 0..<s.sectionCount, using: &rng)
                let limit = s.itemCount(inSection: sec) - (sec == from.section ? 1 : 0)
                try s.moveItem(id, to: IndexPath(item: Int.random(in: 0...limit, using: &rng), section: sec))
                named.append(id)
            case 85..<100 where total > 0:
                let id = F.randomItem(s, using: &rng)
                try s.reloadItems([id])
                named.append(id)
            default:
                break
            }
        }
        return named
    }

    @Test(arguments: 0..<4)
    func randomStagesApplyInPlaceExactlyAsApplying(chunk: Int) throws {
        for seed in UInt64(chunk * 100)..<UInt64(chunk * 100 + 100) {
            var rng = SeededGenerator(seed: seed)
            var next: UInt64 = 1
            var shown = F.random(sections: 6, items: 30, nextID: &next, using: &rng)
            // A history of versions, each diffed into stages and replayed on the in-place copy,
            // which carries index logs from single moves between versions (as the live one does).
            for version in 0..<8 {
                var target = shown
                if seed % 4 == 0 {
                    try F.randomlyEdit(&target, edits: Int.random(in: 1...10, using: &rng), nextID: &next, using: &rng)
                } else {
                    try Self.randomItemEdits(&target, edits: Int.random(in: 1...10, using: &rng), nextID: &next, using: &rng)
                }
                let changes = try StagedChangeset(from: shown, to: target)
                var s = shown
                for (k, stage) in changes.stages.enumerated() {
                    s = try #require(Self.agree(s, stage, "seed \(seed) version \(version) stage \(k)"))
                }
                #expect(s == target, "seed \(seed) version \(version)")
                // A single logged move on the replayed copy before the next version.
                if s.itemCount > 0, s.sectionCount > 0 {
                    let id = F.randomItem(s, using: &rng)
                    let from = s.indexPath(of: id)!
                    let limit = s.itemCount(inSection: from.section) - 1
                    try s.moveItem(id, to: IndexPath(item: Int.random(in: 0...limit, using: &rng), section: from.section))
                }
                shown = s
            }
        }
    }

    @Test func damagedStagesAreRefusedWithApplyingsErrorAndChangeNothing() throws {
        var rng = SeededGenerator(seed: 77)
        var checked = 0, refused = 0
        for seed in 0..<300 as Range<UInt64> {
            var next: UInt64 = 1
            var r = SeededGenerator(seed: seed)
            let shown = F.random(sections: 5, items: 12, nextID: &next, using: &r)
            var target = shown
            try Self.randomItemEdits(&target, edits: Int.random(in: 1...6, using: &r), nextID: &next, using: &r)
            for var stage in try StagedChangeset(from: shown, to: target).stages {
                let ids = shown.allItemIDs
                switch Int.random(in: 0..<9, using: &rng) {
                case 0: if !stage.itemDeletes.isEmpty { stage.itemDeletes[0].item += Int.random(in: -3...3, using: &rng) }
                case 1: if !stage.itemMoves.isEmpty { stage.itemMoves[0].to.item += Int.random(in: -2...2, using: &rng) }
                case 2: if !stage.itemMoves.isEmpty { stage.itemMoves[0].from.section = Int.random(in: -1...6, using: &rng) }
                case 3: if !stage.itemInserts.isEmpty, !ids.isEmpty { stage.itemInserts[0].id = ids[Int.random(in: 0..<ids.count, using: &rng)] }
                case 4: if !stage.itemCountsAfter.isEmpty { stage.itemCountsAfter[Int.random(in: 0..<stage.itemCountsAfter.count, using: &rng)] += 1 }
                case 5: if !stage.itemDeletes.isEmpty { stage.itemDeletes.append(stage.itemDeletes[0]) }
                case 6: if !stage.itemReloads.isEmpty { stage.itemMoves.append(ItemMove(from: stage.itemReloads[0].at, to: stage.itemReloads[0].at)) }
                case 7: stage.itemCountsAfter.append(0)
                default: if !stage.itemInserts.isEmpty { stage.itemInserts.append(stage.itemInserts[0]) }
                }
                checked += 1
                if Self.agree(shown, stage, "seed \(seed)") == nil { refused += 1 }
                // An id that stays in an untouched section cannot be inserted.
                if let s0 = (0..<shown.sectionCount).first(where: { shown.itemCount(inSection: $0) > 0 }), shown.sectionCount > 1 {
                    let other = s0 == 0 ? 1 : 0
                    var dup = BatchUpdate()
                    dup.itemCountsAfter = (0..<shown.sectionCount).map { shown.itemCount(inSection: $0) + ($0 == other ? 1 : 0) }
                    dup.itemInserts = [ItemInsertion(at: IndexPath(item: 0, section: other), id: shown.itemID(at: IndexPath(item: 0, section: s0)), version: 0)]
                    #expect(Self.agree(shown, dup, "seed \(seed) duplicate") == nil)
                }
            }
        }
        #expect(checked > 200 && refused > 50, "the damage reaches both paths: \(refused) of \(checked) refused")
    }

    @Test func anIdDeletedAndInsertedAgainKeepsItsLookup() throws {
        let s = F.make([(10, [1, 2, 3]), (20, [4, 5]), (30, [6])])
        for (at, section) in [(1, 0), (0, 0), (2, 0), (0, 1)] {
            var b = BatchUpdate()
            b.itemCountsAfter = [3 - (section == 0 ? 0 : 1), 2 + (section == 1 ? 1 : 0), 1]
            b.itemDeletes = [IndexPath(item: 1, section: 0)]
            b.itemInserts = [ItemInsertion(at: IndexPath(item: at, section: section), id: ItemID(2), version: 9)]
            let after = try #require(Self.agree(s, b, "item 2 back at \(at), \(section)"))
            #expect(after.indexPath(of: ItemID(2)) == IndexPath(item: at, section: section))
            #expect(after.version(of: ItemID(2)) == 9)
        }
    }

    @Test func aStageTouchesOnlyItsSectionsStorage() throws {
        // The untouched sections keep their very arrays (no copy): what makes a version of a
        // 1M-item gallery cost its touched sections, not the gallery.
        var s = F.make([(1, Array(1...1000)), (2, Array(1001...2000)), (3, Array(2001...3000))])
        var b = BatchUpdate()
        b.itemCountsAfter = [1000, 999, 1001]
        b.itemMoves = [ItemMove(from: IndexPath(item: 5, section: 1), to: IndexPath(item: 0, section: 2))]
        let before = s._sections[0].items
        let expected = try s.applying(b)
        try s.applyInPlace(b)
        #expect(s == expected)
        before.withUnsafeBufferPointer { a in
            s._sections[0].items.withUnsafeBufferPointer { c in #expect(a.baseAddress == c.baseAddress) }
        }
    }
}
