import Testing
@testable import GridEngine

/// `SnapshotReplay.apply` must be `applying` exactly — same arrangement, same errors, nothing
/// changed on a throw — stage after stage over long histories, while keeping only the sections'
/// arrays and an id → section table (the history check a restarted server runs over thousands of
/// versions of a 1M-item gallery, issue 15, session 16).
@Suite struct SnapshotReplayTests {
    typealias F = SnapshotFixtures

    /// The replay's own invariant: every id maps to the section it is in, and nothing else is in
    /// the table.
    static func checkTable(_ r: SnapshotReplay, _ note: String, sourceLocation: SourceLocation = #_sourceLocation) {
        var total = 0
        for (s, section) in r._sections.enumerated() {
            #expect(section.items.count == section.versions.count, sourceLocation: sourceLocation)
            #expect(r._slotIndex[section.slot] == s, "\(note): slot of section \(s)", sourceLocation: sourceLocation)
            for id in section.items {
                let packed = r._sectionOf.find(id.rawValue)
                #expect(packed >= 0 && r._slotIndex[Int(packed >> 32)] == s, "\(note): section of \(id.rawValue)", sourceLocation: sourceLocation)
            }
            total += section.items.count
        }
        #expect(r._sectionOf.count == total, "\(note): no stale ids in the table", sourceLocation: sourceLocation)
    }

    /// `applying` on `s` and `apply` on `replay` (the same arrangement) agree; returns both results
    /// (nil when both threw).
    @discardableResult
    static func agree(_ s: Snapshot, _ replay: inout SnapshotReplay, _ stage: BatchUpdate, _ note: String,
                      sourceLocation: SourceLocation = #_sourceLocation) -> Snapshot? {
        let before = replay
        let expected: Result<Snapshot, BatchUpdateError>
        do { expected = .success(try s.applying(stage)) } catch { expected = .failure(error) }
        var got: BatchUpdateError?
        do { try replay.apply(stage) } catch { got = error }
        switch (expected, got) {
        case let (.success(a), nil):
            #expect(replay == a, "\(note): same arrangement", sourceLocation: sourceLocation)
            #expect(replay.itemCount == a.itemCount, sourceLocation: sourceLocation)
            checkTable(replay, note, sourceLocation: sourceLocation)
            return a
        case let (.failure(x), y?):
            #expect(x == y, "\(note): same error", sourceLocation: sourceLocation)
            #expect(replay == s && replay.hasSections(before.sections), "\(note): a rejected stage changes nothing", sourceLocation: sourceLocation)
            checkTable(replay, note, sourceLocation: sourceLocation)
            return nil
        default:
            Issue.record("\(note): applying \(expected) but the replay \(String(describing: got))", sourceLocation: sourceLocation)
            return nil
        }
    }

    @Test(arguments: 0..<4)
    func randomHistoriesReplayExactlyAsApplying(chunk: Int) throws {
        for seed in UInt64(chunk * 100)..<UInt64(chunk * 100 + 100) {
            var rng = SeededGenerator(seed: seed)
            var next: UInt64 = 1
            var shown = F.random(sections: 6, items: 30, nextID: &next, using: &rng)
            // Replayed from a snapshot that carries index logs (single moves), as a checkpoint may.
            if shown.itemCount > 0 {
                let id = F.randomItem(shown, using: &rng)
                let from = shown.indexPath(of: id)!
                try shown.moveItem(id, to: IndexPath(item: Int.random(in: 0..<shown.itemCount(inSection: from.section), using: &rng), section: from.section))
            }
            var replay = SnapshotReplay(shown)
            #expect(replay == shown)
            for version in 0..<12 {
                var target = shown
                switch seed % 4 {
                case 0:
                    try F.randomlyEdit(&target, edits: Int.random(in: 1...10, using: &rng), nextID: &next, using: &rng)
                case 1:
                    // Single moves, one a version: the replay's fast path.
                    if target.itemCount > 0 {
                        let id = F.randomItem(target, using: &rng)
                        let from = target.indexPath(of: id)!
                        let sec = Int.random(in: 0..<target.sectionCount, using: &rng)
                        let limit = target.itemCount(inSection: sec) - (sec == from.section ? 1 : 0)
                        try target.moveItem(id, to: IndexPath(item: Int.random(in: 0...limit, using: &rng), section: sec))
                    }
                default:
                    try ApplyInPlaceTests.randomItemEdits(&target, edits: Int.random(in: 1...10, using: &rng), nextID: &next, using: &rng)
                }
                let changes = try StagedChangeset(from: shown, to: target)
                var s = shown
                for (k, stage) in changes.stages.enumerated() {
                    s = try #require(Self.agree(s, &replay, stage, "seed \(seed) version \(version) stage \(k)"))
                }
                #expect(s == target && replay == target, "seed \(seed) version \(version)")
                shown = s
            }
            #expect(replay.snapshot == shown)
            replay.snapshot.checkInvariants()
        }
    }

    @Test func damagedStagesAreRefusedWithApplyingsErrorAndChangeNothing() throws {
        var rng = SeededGenerator(seed: 91)
        var checked = 0, refused = 0
        for seed in 0..<300 as Range<UInt64> {
            var next: UInt64 = 1
            var r = SeededGenerator(seed: seed)
            let shown = F.random(sections: 5, items: 12, nextID: &next, using: &r)
            var target = shown
            if seed % 2 == 0, shown.itemCount > 0 {
                let id = F.randomItem(shown, using: &r)
                let sec = Int.random(in: 0..<shown.sectionCount, using: &r)
                let from = shown.indexPath(of: id)!
                try target.moveItem(id, to: IndexPath(item: Int.random(in: 0...(shown.itemCount(inSection: sec) - (sec == from.section ? 1 : 0)), using: &r), section: sec))
            } else {
                try ApplyInPlaceTests.randomItemEdits(&target, edits: Int.random(in: 1...6, using: &r), nextID: &next, using: &r)
            }
            for var stage in try StagedChangeset(from: shown, to: target).stages {
                let ids = shown.allItemIDs
                switch Int.random(in: 0..<11, using: &rng) {
                case 0: if !stage.itemDeletes.isEmpty { stage.itemDeletes[0].item += Int.random(in: -3...3, using: &rng) }
                case 1: if !stage.itemMoves.isEmpty { stage.itemMoves[0].to.item += Int.random(in: -2...2, using: &rng) }
                case 2: if !stage.itemMoves.isEmpty { stage.itemMoves[0].from.section = Int.random(in: -1...6, using: &rng) }
                case 3: if !stage.itemInserts.isEmpty, !ids.isEmpty { stage.itemInserts[0].id = ids[Int.random(in: 0..<ids.count, using: &rng)] }
                case 4: if !stage.itemCountsAfter.isEmpty { stage.itemCountsAfter[Int.random(in: 0..<stage.itemCountsAfter.count, using: &rng)] += Int.random(in: -1...1, using: &rng) }
                case 5: if !stage.itemDeletes.isEmpty { stage.itemDeletes.append(stage.itemDeletes[0]) }
                case 6: if !stage.itemReloads.isEmpty { stage.itemMoves.append(ItemMove(from: stage.itemReloads[0].at, to: stage.itemReloads[0].at)) }
                case 7: stage.itemCountsAfter.append(0)
                case 8: if !stage.itemMoves.isEmpty { stage.itemMoves[0].to.section = Int.random(in: -1...5, using: &rng) }
                case 9: if !stage.itemMoves.isEmpty { stage.itemMoves[0].from.item += Int.random(in: -2...2, using: &rng) }
                default: if !stage.itemInserts.isEmpty { stage.itemInserts.append(stage.itemInserts[0]) }
                }
                checked += 1
                var replay = SnapshotReplay(shown)
                if Self.agree(shown, &replay, stage, "seed \(seed)") == nil { refused += 1 }
            }
            // An id that stays in an untouched section cannot be inserted.
            if let s0 = (0..<shown.sectionCount).first(where: { shown.itemCount(inSection: $0) > 0 }), shown.sectionCount > 1 {
                let other = s0 == 0 ? 1 : 0
                var dup = BatchUpdate()
                dup.itemCountsAfter = (0..<shown.sectionCount).map { shown.itemCount(inSection: $0) + ($0 == other ? 1 : 0) }
                dup.itemInserts = [ItemInsertion(at: IndexPath(item: 0, section: other), id: shown.itemID(at: IndexPath(item: 0, section: s0)), version: 0)]
                var replay = SnapshotReplay(shown)
                #expect(Self.agree(shown, &replay, dup, "seed \(seed) duplicate") == nil)
            }
        }
        #expect(checked > 200 && refused > 50, "the damage reaches both paths: \(refused) of \(checked) refused")
    }

    @Test func aLoneMoveIsTwoShiftsAndLeavesTheOtherSectionsAlone() throws {
        let s = F.make([(1, Array(1...1000)), (2, Array(1001...2000)), (3, Array(2001...3000))])
        var replay = SnapshotReplay(s)
        var b = BatchUpdate()
        b.itemCountsAfter = [1000, 999, 1001]
        b.itemMoves = [ItemMove(from: IndexPath(item: 5, section: 1), to: IndexPath(item: 0, section: 2))]
        let expected = try s.applying(b)
        try replay.apply(b)
        #expect(replay == expected)
        Self.checkTable(replay, "lone move")
        s._sections[0].items.withUnsafeBufferPointer { a in
            replay._sections[0].items.withUnsafeBufferPointer { c in #expect(a.baseAddress == c.baseAddress, "untouched section not copied") }
        }
        // Within a section, both directions and the ends.
        for (from, to) in [(0, 999), (999, 0), (10, 11), (11, 10), (500, 500)] {
            var m = BatchUpdate()
            m.itemCountsAfter = [1000, 999, 1001]
            m.itemMoves = [ItemMove(from: IndexPath(item: from, section: 0), to: IndexPath(item: to, section: 0))]
            let before = replay.snapshot
            Self.agree(before, &replay, m, "move \(from) → \(to)")
        }
    }

    @Test func sectionEditsGoThroughApplying() throws {
        let s = F.make([(10, [1, 2, 3]), (20, [4, 5]), (30, [6])])
        var replay = SnapshotReplay(s)
        var b = BatchUpdate()
        b.sectionDeletes = [1]
        b.sectionInserts = [SectionInsertion(index: 0, id: SectionID(40), items: [ItemID(7), ItemID(4)], versions: [0, 2])]
        b.itemCountsAfter = [2, 3, 1]
        var r = replay
        let after = try #require(Self.agree(s, &r, b, "section delete + insert"))
        // Then a lone move on the rebuilt table (item 4 is in the new section 0 now).
        var m = BatchUpdate()
        m.itemCountsAfter = [1, 3, 2]
        m.itemMoves = [ItemMove(from: IndexPath(item: 1, section: 0), to: IndexPath(item: 0, section: 2))]
        Self.agree(after, &r, m, "move after section edits")
        // A section insert with an id that stays is refused as by applying.
        var dup = BatchUpdate()
        dup.sectionInserts = [SectionInsertion(index: 3, id: SectionID(50), items: [ItemID(6)], versions: [0])]
        dup.itemCountsAfter = [3, 2, 1, 1]
        #expect(Self.agree(s, &replay, dup, "duplicate in a section insert") == nil)
    }
}

extension SnapshotReplay {
    /// The arrangement as `hasSections` takes it.
    var sections: [(id: SectionID, items: [ItemID], versions: [UInt32])] {
        _sections.map { ($0.id, $0.items, $0.versions) }
    }
}
