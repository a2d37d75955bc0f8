import Testing
@testable import GridEngine

@Suite struct StagedChangesetTests {
    typealias F = SnapshotFixtures

    /// Validates and applies every stage; returns the final snapshot.
    static func replay(_ changes: StagedChangeset, on source: Snapshot) throws(BatchUpdateError) -> Snapshot {
        var shown = source
        for stage in changes.stages {
            try BatchUpdate.validate(stage, against: shown)
            shown = try shown.applying(stage)
            shown.checkInvariants()
        }
        return shown
    }

    @Test func equalSnapshotsGiveNoStage() throws {
        let s = F.make([(10, [1, 2, 3]), (20, [4])])
        #expect(try StagedChangeset(from: s, to: s).isEmpty)
    }

    @Test func swappingTwoTilesIsTwoMovesInOneStage() throws {
        // Seed 000: drag Banana(2) onto Date(4) swaps them.
        let source = F.make([(10, [1, 2, 3, 4])])
        let target = F.make([(10, [1, 4, 3, 2])])
        let changes = try StagedChangeset(from: source, to: target)
        #expect(changes.stages.count == 1)
        let stage = changes.stages[0]
        // Apple(1) and Banana(2) stay in order (the longest increasing run); Date and Cherry move.
        #expect(stage.itemMoves == [
            ItemMove(from: IndexPath(item: 3, section: 0), to: IndexPath(item: 1, section: 0)),
            ItemMove(from: IndexPath(item: 2, section: 0), to: IndexPath(item: 2, section: 0)),
        ])
        #expect(stage.itemCountsAfter == [4])
        #expect(try Self.replay(changes, on: source) == target)
    }

    @Test func movingAnItemBetweenSectionsIsOneCrossSectionMove() throws {
        let source = F.make([(10, [1, 2, 3]), (20, [4, 5])])
        let target = F.make([(10, [1, 3]), (20, [4, 2, 5])])
        let changes = try StagedChangeset(from: source, to: target)
        #expect(changes.stages.count == 1)
        #expect(changes.stages[0].itemMoves == [ItemMove(from: IndexPath(item: 1, section: 0), to: IndexPath(item: 1, section: 1))])
        #expect(changes.stages[0].itemCountsAfter == [2, 3])
        #expect(changes.changeCount == 1)
        #expect(try Self.replay(changes, on: source) == target)
    }

    @Test func deletingASectionWhileItsItemMovesOutStagesDeleteThenInsert() throws {
        let source = F.make([(10, [1, 2]), (20, [3, 4]), (30, [5])])
        let target = F.make([(20, [4, 3, 1]), (30, [5])])
        let changes = try StagedChangeset(from: source, to: target)
        #expect(changes.stages.count == 2)
        let first = changes.stages[0], last = changes.stages[1]
        #expect(first.sectionDeletes == [0])
        #expect(first.itemDeletes.isEmpty)
        #expect(first.itemCountsAfter == [2, 1])
        // Item 1 left with its section; it comes back as an insert, never as a move out of
        // a deleted section.
        #expect(last.itemMoves == [ItemMove(from: IndexPath(item: 1, section: 0), to: IndexPath(item: 0, section: 0))])
        #expect(last.itemInserts == [ItemInsertion(at: IndexPath(item: 2, section: 0), id: ItemID(1), version: 0)])
        #expect(last.itemCountsAfter == [3, 1])
        #expect(try Self.replay(changes, on: source) == target)
    }

    @Test func aChangedVersionIsAReloadAtItsSourcePosition() throws {
        let source = F.make([(10, [1, 2, 3])])
        var target = source
        try target.reloadItems([ItemID(2)])
        let changes = try StagedChangeset(from: source, to: target)
        #expect(changes.stages.count == 1)
        #expect(changes.stages[0].itemReloads == [ItemReload(at: IndexPath(item: 1, section: 0), version: 1)])
        #expect(try Self.replay(changes, on: source) == target)
    }

    @Test func anItemBothChangedAndMovedIsReloadedThenMovedInSeparateStages() throws {
        let source = F.make([(10, [1, 2, 3])])
        var target = source
        try target.reloadItems([ItemID(3)])
        try target.moveItem(ItemID(3), to: IndexPath(item: 0, section: 0))
        let changes = try StagedChangeset(from: source, to: target)
        #expect(changes.stages.count == 2)
        #expect(changes.stages[0].itemReloads == [ItemReload(at: IndexPath(item: 2, section: 0), version: 1)])
        #expect(changes.stages[0].itemMoves.isEmpty)
        #expect(changes.stages[1].itemMoves == [ItemMove(from: IndexPath(item: 2, section: 0), to: IndexPath(item: 0, section: 0))])
        #expect(try Self.replay(changes, on: source) == target)
    }

    @Test func reorderingSectionsMovesOnlyTheOneThatLeftItsPlace() throws {
        let source = F.make([(10, [1]), (20, [2]), (30, [3]), (40, [4])])
        let target = F.make([(40, [4]), (10, [1]), (20, [2]), (30, [3])])
        let changes = try StagedChangeset(from: source, to: target)
        #expect(changes.stages.count == 1)
        #expect(changes.stages[0].sectionMoves == [SectionMove(from: 3, to: 0)])
        #expect(try Self.replay(changes, on: source) == target)
    }

    @Test func anItemMovingIntoANewSectionLeavesFirstAndArrivesWithIt() throws {
        let source = F.make([(10, [1, 2])])
        let target = F.make([(10, [1]), (20, [2, 9])])
        let changes = try StagedChangeset(from: source, to: target)
        #expect(changes.stages.count == 2)
        #expect(changes.stages[0].itemDeletes == [IndexPath(item: 1, section: 0)])
        #expect(changes.stages[1].sectionInserts == [SectionInsertion(index: 1, id: SectionID(20), items: [ItemID(2), ItemID(9)], versions: [0, 0])])
        #expect(try Self.replay(changes, on: source) == target)
    }

    @Test func duplicateIdsInEitherSnapshotAreTypedErrors() {
        let good = F.make([(10, [1, 2])])
        let dupItem = Snapshot(_unchecked: [(id: SectionID(10), items: [ItemID(1), ItemID(1)])])
        let dupNewItem = Snapshot(_unchecked: [(id: SectionID(10), items: [ItemID(7)]), (id: SectionID(20), items: [ItemID(7)])])
        let dupSection = Snapshot(_unchecked: [(id: SectionID(10), items: []), (id: SectionID(10), items: [])])
        #expect(throws: DiffError.duplicateItemInSource(ItemID(1))) { try StagedChangeset(from: dupItem, to: good) }
        #expect(throws: DiffError.duplicateItemInTarget(ItemID(1))) { try StagedChangeset(from: good, to: dupItem) }
        #expect(throws: DiffError.duplicateItemInTarget(ItemID(7))) { try StagedChangeset(from: good, to: dupNewItem) }
        #expect(throws: DiffError.duplicateSectionInSource(SectionID(10))) { try StagedChangeset(from: dupSection, to: good) }
        #expect(throws: DiffError.duplicateSectionInTarget(SectionID(10))) { try StagedChangeset(from: good, to: dupSection) }
    }

    @Test func kRandomMovesInOneSectionReportAtMostKMoves() throws {
        var rng = SeededGenerator(seed: 3)
        let source = F.make([(1, Array(1...1000))])
        var target = source
        for _ in 0..<10 {
            let id = ItemID(UInt64.random(in: 1...1000, using: &rng))
            try target.moveItem(id, to: IndexPath(item: Int.random(in: 0..<1000, using: &rng), section: 0))
        }
        let changes = try StagedChangeset(from: source, to: target)
        #expect(changes.moveCount <= 10)
        #expect(changes.moveCount >= 1)
        #expect(changes.changeCount == changes.moveCount)
        #expect(try Self.replay(changes, on: source) == target)
    }

    @Test(arguments: 0..<4)
    func stagedDiffOfRandomEditsReplaysToTheTargetAndEveryStageIsValid(chunk: Int) throws {
        // 4 × 150 seeds, small and medium snapshots, few and many edits.
        for seed in UInt64(chunk * 150)..<UInt64(chunk * 150 + 150) {
            var rng = SeededGenerator(seed: seed)
            var next: UInt64 = 1
            let small = seed % 3 != 0
            let source = F.random(sections: small ? 4 : 8, items: small ? 6 : 40, nextID: &next, using: &rng)
            var target = source
            let edits = small ? Int.random(in: 1...12, using: &rng) : Int.random(in: 1...120, using: &rng)
            try F.randomlyEdit(&target, edits: edits, nextID: &next, using: &rng)
            let changes = try StagedChangeset(from: source, to: target)
            #expect(changes.stages.count <= 3)
            #expect(try Self.replay(changes, on: source) == target, "seed \(seed)")
            // Moves are never more than the items and sections present.
            #expect(changes.moveCount <= source.itemCount + source.sectionCount)
        }
    }

    @Test func blockMovesAndLongDeletionRunsInLargeSectionsReplay() throws {
        // Long sections exercise the matcher's jumps (short gaps, far backward moves, runs
        // of deletes) that small random snapshots rarely reach.
        for seed in 0..<20 as Range<UInt64> {
            var rng = SeededGenerator(seed: seed)
            let source = F.make([(1, Array(1...2000)), (2, Array(2001...2600))])
            var ids = (0..<2).map { source.items(inSection: $0) }
            for _ in 0..<6 {
                let s = Int.random(in: 0..<2, using: &rng)
                let len = Int.random(in: 1...min(120, ids[s].count), using: &rng)
                let start = Int.random(in: 0...(ids[s].count - len), using: &rng)
                let block = Array(ids[s][start..<(start + len)])
                ids[s].removeSubrange(start..<(start + len))
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: break  // a run of deletes
                case 1: ids[s].insert(contentsOf: block, at: Int.random(in: 0...ids[s].count, using: &rng))
                default: ids[1 - s].insert(contentsOf: block, at: Int.random(in: 0...ids[1 - s].count, using: &rng))
                }
            }
            let target = try Snapshot([(id: SectionID(1), items: ids[0]), (id: SectionID(2), items: ids[1])])
            let changes = try StagedChangeset(from: source, to: target)
            #expect(try Self.replay(changes, on: source) == target, "seed \(seed)")
            #expect(changes.moveCount <= 6 * 120)
        }
    }

    @Test func theDiffBackAndForthBothReplay() throws {
        for seed in 1000..<1100 as Range<UInt64> {
            var rng = SeededGenerator(seed: seed)
            var next: UInt64 = 1
            let a = F.random(sections: 5, items: 15, nextID: &next, using: &rng)
            var b = a
            try F.randomlyEdit(&b, edits: 30, nextID: &next, using: &rng)
            #expect(try Self.replay(StagedChangeset(from: b, to: a), on: b) == a)
        }
    }
}
