import Testing
@testable import GridEngine

/// `StagedChangeset(from:to:)` compares only the sections whose arrays no longer share storage
/// when one snapshot is the other edited (a server batch of a few operations on a big gallery,
/// issue 15). It must give a change as good as the whole diff's: the same number of stages,
/// replaying to exactly the target, counts for every section.
@Suite struct ChangedSectionsDiffTests {
    typealias F = SnapshotFixtures

    /// Replays `stages` on `source` with `applying` (every stage validated) and answers the result.
    static func replay(_ source: Snapshot, _ stages: [BatchUpdate]) throws -> Snapshot {
        var s = source
        for stage in stages { s = try s.applying(stage) }
        return s
    }

    @Test(arguments: 0..<4)
    func aCopyEditedInSomeSectionsDiffsLikeTheWholeDiff(chunk: Int) throws {
        var restricted = 0
        for seed in UInt64(chunk * 150)..<UInt64(chunk * 150 + 150) {
            var rng = SeededGenerator(seed: seed)
            var next: UInt64 = 1
            let source = F.random(sections: 12, items: 25, nextID: &next, using: &rng)
            var target = source
            // Item edits only (no section change): moves within and across sections, deletes, inserts, reloads.
            try ApplyInPlaceTests.randomItemEdits(&target, edits: Int.random(in: 0...6, using: &rng), nextID: &next, using: &rng)
            let changed = try #require(source._sectionsChanged(in: target), "seed \(seed)")
            if changed.count < source.sectionCount { restricted += 1 }
            let fast = try StagedChangeset(from: source, to: target)
            let whole = try StagedChangeset(wholeFrom: source, to: target)
            #expect(try Self.replay(source, fast.stages) == target, "seed \(seed)")
            #expect(fast.stages.count == whole.stages.count, "seed \(seed)")
            #expect(fast.changeCount == whole.changeCount, "seed \(seed): as few changes as the whole diff")
            for stage in fast.stages { #expect(stage.itemCountsAfter.count == source.sectionCount, "seed \(seed)") }
            // And back, from the edited copy to the original.
            let back = try StagedChangeset(from: target, to: source)
            #expect(try Self.replay(target, back.stages) == source, "seed \(seed): back")
        }
        #expect(restricted > 100, "most edits leave some section untouched (\(restricted) of 150)")
    }

    /// Sections kept with the items an edit names (`sections(naming:)`): the diff walks them
    /// without id tables and gives the whole diff's very stages; `revert(to:)` goes back; and an
    /// item the edit moved without naming it still comes out right (deleted and inserted).
    @Test(arguments: 0..<4)
    func sectionsKeptWithTheNamedItemsDiffAndRevertWithoutTables(chunk: Int) throws {
        for seed in UInt64(chunk * 150)..<UInt64(chunk * 150 + 150) {
            var rng = SeededGenerator(seed: seed)
            var next: UInt64 = 1
            let source = F.random(sections: 10, items: 30, nextID: &next, using: &rng)
            var target = source
            var probe = source
            let named = try ApplyInPlaceTests.randomItemEdits(&probe, edits: Int.random(in: 1...8, using: &rng), nextID: &next, using: &rng)
            // The same edits again on `target`, from sections kept before with their names.
            var replayRng = SeededGenerator(seed: seed)
            var replayNext: UInt64 = 1
            _ = F.random(sections: 10, items: 30, nextID: &replayNext, using: &replayRng)
            let kept = target.sections(naming: named)
            try ApplyInPlaceTests.randomItemEdits(&target, edits: Int.random(in: 1...8, using: &replayRng), nextID: &replayNext, using: &replayRng)
            #expect(target == probe, "seed \(seed): the same edits")
            let fast = try StagedChangeset(from: kept, to: target)
            #expect(try Self.replay(source, fast.stages) == target, "seed \(seed)")
            #expect(fast.stages == (try StagedChangeset(wholeFrom: source, to: target)).stages, "seed \(seed): the whole diff's stages")
            var back = target
            back.revert(to: kept)
            #expect(back == source, "seed \(seed): reverted")
            back.checkInvariants()
            for id in source.allItemIDs { #expect(back.indexPath(of: id) == source.indexPath(of: id), "seed \(seed): lookup") }
            // A broken promise: the first named item left out of the names.
            if let first = named.first, target.contains(first) {
                let partial = source.sections(naming: Array(named.dropFirst()))
                let stages = try StagedChangeset(from: partial, to: target).stages
                #expect(try Self.replay(source, stages) == target, "seed \(seed): unnamed item")
                var again = target
                again.revert(to: partial)
                #expect(again == source, "seed \(seed): reverted with an unnamed item")
            }
        }
    }

    /// Item edits (`ApplyInPlaceTests.randomItemEdits`, their items named) mixed with section
    /// edits as a server batch makes them: a section added (empty or with new items), deleted,
    /// moved, and a deleted one added again with some of its items (a restore after a section
    /// delete: then named whole). Answers the named items and the sections named whole.
    static func randomSectionEdits(_ s: inout Snapshot, edits: Int, nextID: inout UInt64,
                                   using rng: inout SeededGenerator) throws -> (items: [ItemID], sections: [SectionID]) {
        var named: [ItemID] = [], whole: [SectionID] = []
        var deleted: [(id: SectionID, items: [ItemID])] = []
        for _ in 0..<edits {
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<12:
                var ids: [ItemID] = []
                for _ in 0..<Int.random(in: 0...3, using: &rng) { ids.append(ItemID(nextID)); nextID += 1 }
                let sid = SectionID(nextID); nextID += 1
                try s.insertSection(sid, items: ids, at: Int.random(in: 0...s.sectionCount, using: &rng))
            case 12..<24 where s.sectionCount > 1:
                let k = Int.random(in: 0..<s.sectionCount, using: &rng)
                deleted.append((s.sectionID(at: k), s.items(inSection: k)))
                try s.deleteSection(at: k)
            case 24..<36 where s.sectionCount > 1:
                try s.moveSection(from: Int.random(in: 0..<s.sectionCount, using: &rng), to: Int.random(in: 0..<s.sectionCount, using: &rng))
            case 36..<60 where !deleted.isEmpty:
                let back = deleted.remove(at: Int.random(in: 0..<deleted.count, using: &rng))
                let some = back.items.filter { _ in Bool.random(using: &rng) }
                try s.insertSection(back.id, items: some, at: Int.random(in: 0...s.sectionCount, using: &rng))
                whole.append(back.id)
            default:
                named += try ApplyInPlaceTests.randomItemEdits(&s, edits: 1, nextID: &nextID, using: &rng)
            }
        }
        return (named, whole)
    }

    /// With sections added, deleted, moved and brought back (issue 15, session 18: such a server
    /// batch on a big gallery was copied and diffed whole): the diff on the kept sections gives
    /// the whole diff's very stages, walking only the sections changed, and `revert(to:)` goes
    /// back exactly, its tables right.
    @Test(arguments: 0..<4)
    func sectionsAddedDeletedMovedAndBroughtBackDiffLikeTheWholeDiffAndRevert(chunk: Int) throws {
        var sectionChanges = 0, broughtBack = 0
        for seed in UInt64(chunk * 150)..<UInt64(chunk * 150 + 150) {
            func edit(_ s: inout Snapshot) throws -> (items: [ItemID], sections: [SectionID]) {
                var rng = SeededGenerator(seed: seed)
                var next: UInt64 = 1
                s = F.random(sections: 10, items: 30, nextID: &next, using: &rng)
                return try Self.randomSectionEdits(&s, edits: Int.random(in: 1...10, using: &rng), nextID: &next, using: &rng)
            }
            var probe = Snapshot()
            let named = try edit(&probe)
            // The same edits again, from sections kept before with those names.
            var rng = SeededGenerator(seed: seed)
            var next: UInt64 = 1
            let source = F.random(sections: 10, items: 30, nextID: &next, using: &rng)
            var target = source
            let kept = target.sections(naming: named.items, wholeSections: named.sections)
            _ = try Self.randomSectionEdits(&target, edits: Int.random(in: 1...10, using: &rng), nextID: &next, using: &rng)
            #expect(target == probe, "seed \(seed): the same edits")
            if source.sectionIDs != target.sectionIDs { sectionChanges += 1 }
            if !named.sections.isEmpty { broughtBack += 1 }
            let fast = try StagedChangeset(from: kept, to: target)
            #expect(fast.stages == (try StagedChangeset(wholeFrom: source, to: target)).stages, "seed \(seed): the whole diff's stages")
            #expect(try Self.replay(source, fast.stages) == target, "seed \(seed)")
            var back = target
            back.revert(to: kept)
            #expect(back == source, "seed \(seed): reverted")
            back.checkInvariants()
            for id in source.allItemIDs { #expect(back.indexPath(of: id) == source.indexPath(of: id), "seed \(seed): lookup") }
            for id in target.allItemIDs where !source.contains(id) { #expect(!back.contains(id), "seed \(seed): a new item left") }
            for k in 0..<source.sectionCount { #expect(back.indexOfSection(source.sectionID(at: k)) == k, "seed \(seed): section lookup") }
        }
        #expect(sectionChanges > 80 && broughtBack > 15, "\(sectionChanges) histories changed sections, \(broughtBack) brought one back")
    }

    /// A section added, another moved and an item moved into the new one, in a gallery of 40
    /// sections: the whole diff's stages (the item leaves in stage 1, comes with its section in 2).
    @Test func withASectionAddedOnlyTheChangedSectionsAreWalked() throws {
        var spec: [(UInt64, [UInt64])] = []
        for s in 0..<40 { spec.append((UInt64(1_000 + s), (0..<50).map { UInt64(s * 100 + $0 + 1) })) }
        let source = F.make(spec)
        var target = source
        let kept = target.sections(naming: [ItemID(705)])
        try target.insertSection(SectionID(5_000), at: 10)
        try target.moveSection(from: 30, to: 2)
        try target.moveItem(ItemID(705), to: IndexPath(item: 0, section: target.indexOfSection(SectionID(5_000))!)) // into the new section
        let stages = try StagedChangeset(from: kept, to: target).stages
        #expect(stages == (try StagedChangeset(wholeFrom: source, to: target)).stages)
        #expect(stages.first?.itemDeletes == [IndexPath(item: 4, section: 7)])
        #expect(stages.dropFirst().first?.sectionInserts.map(\.items) == [[ItemID(705)]])
        #expect(try Self.replay(source, stages) == target)
    }

    @Test func onlyTheChangedSectionsAreListed() throws {
        var spec: [(UInt64, [UInt64])] = []
        for s in 0..<40 {
            let items: [UInt64] = (0..<50).map { (k: Int) -> UInt64 in UInt64(s * 100 + k + 1) }
            spec.append((UInt64(1_000 + s), items))
        }
        let source = F.make(spec)
        var target = source
        try target.moveItem(ItemID(705), to: IndexPath(item: 3, section: 20)) // from section 7 to 20
        try target.reloadItems([ItemID(3_110)])                              // section 31
        #expect(source._sectionsChanged(in: target) == [7, 20, 31])
        let stages = try StagedChangeset(from: source, to: target).stages
        #expect(try Self.replay(source, stages) == target)
        var touched: Set<Int> = []
        for stage in stages {
            for m in stage.itemMoves { touched.insert(m.from.section); touched.insert(m.to.section) }
            for r in stage.itemReloads { touched.insert(r.at.section) }
        }
        #expect(touched == [7, 20, 31])
        #expect(stages.last?.itemCountsAfter == (0..<40).map { target.itemCount(inSection: $0) })
        // Unchanged: no stage, without comparing a single item.
        #expect(source._sectionsChanged(in: source) == [])
        #expect(try StagedChangeset(from: source, to: source).stages.isEmpty)
    }

    @Test func snapshotsNotSharingStorageOrSectionsAreDiffedWhole() throws {
        let a = F.make([(1, [10, 11]), (2, [12])])
        let rebuilt = F.make([(1, [10, 11]), (2, [12])])   // equal, but no storage shared
        #expect(a._sectionsChanged(in: rebuilt) == [0, 1])
        #expect(try StagedChangeset(from: a, to: rebuilt).stages.isEmpty)
        var moved = a
        try moved.moveSection(from: 1, to: 0)
        #expect(a._sectionsChanged(in: moved) == nil)
        #expect(try Self.replay(a, StagedChangeset(from: a, to: moved).stages) == moved)
    }

    @Test func aRepeatedIdStillFailsTheDiff() throws {
        // `_unchecked` input (tests only) can repeat an id; the restricted diff must not hide it.
        let bad = Snapshot(_unchecked: [(id: SectionID(1), items: [ItemID(5), ItemID(6)]), (id: SectionID(2), items: [ItemID(5)])])
        var edited = bad
        try? edited.reloadItems([ItemID(6)])
        #expect(bad._sectionsChanged(in: edited) == nil)
        #expect(throws: DiffError.self) { try StagedChangeset(from: bad, to: edited) }
    }
}
