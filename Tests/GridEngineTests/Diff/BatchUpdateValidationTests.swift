import Testing
@testable import GridEngine

/// Each case of UIKit's performBatchUpdates crash list, refused by the validator (and by
/// `applying`, which validates first), against sections 10: [1 2 3], 20: [4 5], 30: [6].
@Suite struct BatchUpdateValidationTests {
    static let shown = SnapshotFixtures.make([(10, [1, 2, 3]), (20, [4, 5]), (30, [6])])

    static func batch(_ counts: [Int], _ edit: (inout BatchUpdate) -> Void = { _ in }) -> BatchUpdate {
        var b = BatchUpdate()
        b.itemCountsAfter = counts
        edit(&b)
        return b
    }

    static func p(_ item: Int, _ section: Int) -> IndexPath { IndexPath(item: item, section: section) }

    static func expectRejected(_ error: BatchUpdateError, _ b: BatchUpdate, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: error, sourceLocation: sourceLocation) { try BatchUpdate.validate(b, against: shown) }
        #expect(throws: error, sourceLocation: sourceLocation) { try shown.applying(b) }
    }

    @Test func uikitsUpdateExampleAppliesWithOldAndNewIndices() throws {
        // Delete a, move d to the front, insert X at 2: deletes use old indices, inserts new.
        let s = SnapshotFixtures.make([(1, [10, 11, 12, 13, 14])])
        let b = Self.batch([5]) {
            $0.itemDeletes = [Self.p(0, 0)]
            $0.itemMoves = [ItemMove(from: Self.p(3, 0), to: Self.p(0, 0))]
            $0.itemInserts = [ItemInsertion(at: Self.p(2, 0), id: ItemID(99), version: 0)]
        }
        let after = try s.applying(b)
        #expect(SnapshotFixtures.raw(after) == [[1, 13, 11, 99, 12, 14]])
        after.checkInvariants()
    }

    @Test func anIdDeletedAndInsertedInOneBatchIsAllowed() throws {
        let b = Self.batch([4, 1, 1]) {
            $0.itemDeletes = [Self.p(0, 1)]
            $0.itemInserts = [ItemInsertion(at: Self.p(0, 0), id: ItemID(4), version: 3)]
        }
        let after = try Self.shown.applying(b)
        #expect(SnapshotFixtures.raw(after) == [[10, 4, 1, 2, 3], [20, 5], [30, 6]])
        #expect(after.version(of: ItemID(4)) == 3)
    }

    @Test func sectionCrashesAreRefused() {
        let p = Self.p
        Self.expectRejected(.sectionDeleteOutOfRange(3), Self.batch([3, 2]) { $0.sectionDeletes = [3] })
        Self.expectRejected(.sectionDeletedTwice(1), Self.batch([3, 1]) { $0.sectionDeletes = [1, 1] })
        Self.expectRejected(.sectionCountMismatch(expected: 3, declared: 2), Self.batch([3, 2]))
        Self.expectRejected(.sectionInsertOutOfRange(4), Self.batch([3, 2, 1, 0]) {
            $0.sectionInserts = [SectionInsertion(index: 4, id: SectionID(40), items: [], versions: [])]
        })
        Self.expectRejected(.sectionInsertedTwice(0), Self.batch([0, 0, 3, 2, 1]) {
            $0.sectionInserts = [SectionInsertion(index: 0, id: SectionID(40), items: [], versions: []),
                                 SectionInsertion(index: 0, id: SectionID(50), items: [], versions: [])]
        })
        Self.expectRejected(.sectionInsertContentMismatch(0), Self.batch([0, 3, 2, 1]) {
            $0.sectionInserts = [SectionInsertion(index: 0, id: SectionID(40), items: [ItemID(7)], versions: [0])]
        })
        Self.expectRejected(.sectionMoveSourceOutOfRange(5), Self.batch([3, 2, 1]) { $0.sectionMoves = [SectionMove(from: 5, to: 0)] })
        Self.expectRejected(.sectionDeletedAndMoved(0), Self.batch([2, 1]) {
            $0.sectionDeletes = [0]
            $0.sectionMoves = [SectionMove(from: 0, to: 1)]
        })
        Self.expectRejected(.sectionMovedTwice(0), Self.batch([3, 2, 1]) {
            $0.sectionMoves = [SectionMove(from: 0, to: 2), SectionMove(from: 0, to: 1)]
        })
        Self.expectRejected(.sectionMoveDestinationOutOfRange(3), Self.batch([3, 2, 1]) { $0.sectionMoves = [SectionMove(from: 0, to: 3)] })
        Self.expectRejected(.sectionDestinationUsedTwice(2), Self.batch([3, 2, 1]) {
            $0.sectionMoves = [SectionMove(from: 0, to: 2), SectionMove(from: 1, to: 2)]
        })
        Self.expectRejected(.duplicateSectionID(SectionID(20)), Self.batch([0, 3, 2, 1]) {
            $0.sectionInserts = [SectionInsertion(index: 0, id: SectionID(20), items: [], versions: [])]
        })
        _ = p
    }

    @Test func itemDeleteAndInsertCrashesAreRefused() {
        let p = Self.p
        Self.expectRejected(.itemDeleteOutOfRange(p(3, 0)), Self.batch([2, 2, 1]) { $0.itemDeletes = [p(3, 0)] })
        Self.expectRejected(.itemDeletedTwice(p(1, 0)), Self.batch([1, 2, 1]) { $0.itemDeletes = [p(1, 0), p(1, 0)] })
        Self.expectRejected(.itemDeleteInDeletedSection(p(0, 1)), Self.batch([3, 1]) {
            $0.sectionDeletes = [1]
            $0.itemDeletes = [p(0, 1)]
        })
        Self.expectRejected(.itemInsertOutOfRange(p(4, 0)), Self.batch([4, 2, 1]) {
            $0.itemInserts = [ItemInsertion(at: p(4, 0), id: ItemID(9), version: 0)]
        })
        Self.expectRejected(.itemInsertIntoInsertedSection(p(0, 0)), Self.batch([1, 3, 2, 1]) {
            $0.sectionInserts = [SectionInsertion(index: 0, id: SectionID(40), items: [ItemID(7)], versions: [0])]
            $0.itemInserts = [ItemInsertion(at: p(0, 0), id: ItemID(9), version: 0)]
        })
        Self.expectRejected(.itemDestinationUsedTwice(p(0, 0)), Self.batch([4, 1, 1]) {
            $0.itemMoves = [ItemMove(from: p(0, 1), to: p(0, 0))]
            $0.itemInserts = [ItemInsertion(at: p(0, 0), id: ItemID(9), version: 0)]
        })
        Self.expectRejected(.duplicateItemID(ItemID(4)), Self.batch([4, 2, 1]) {
            $0.itemInserts = [ItemInsertion(at: p(0, 0), id: ItemID(4), version: 0)]
        })
        Self.expectRejected(.duplicateItemID(ItemID(9)), Self.batch([5, 2, 1]) {
            $0.itemInserts = [ItemInsertion(at: p(0, 0), id: ItemID(9), version: 0), ItemInsertion(at: p(4, 0), id: ItemID(9), version: 0)]
        })
    }

    @Test func itemMoveCrashesAreRefused() {
        let p = Self.p
        Self.expectRejected(.itemMoveSourceOutOfRange(p(5, 0)), Self.batch([3, 2, 1]) { $0.itemMoves = [ItemMove(from: p(5, 0), to: p(0, 0))] })
        Self.expectRejected(.itemMoveFromDeletedSection(p(0, 2)), Self.batch([4, 2]) {
            $0.sectionDeletes = [2]
            $0.itemMoves = [ItemMove(from: p(0, 2), to: p(0, 0))]
        })
        Self.expectRejected(.itemMoveIntoInsertedSection(p(0, 0)), Self.batch([1, 2, 2, 1]) {
            $0.sectionInserts = [SectionInsertion(index: 0, id: SectionID(40), items: [ItemID(7)], versions: [0])]
            $0.itemMoves = [ItemMove(from: p(0, 0), to: p(0, 0))]
        })
        Self.expectRejected(.itemDeletedAndMoved(p(0, 0)), Self.batch([2, 3, 1]) {
            $0.itemDeletes = [p(0, 0)]
            $0.itemMoves = [ItemMove(from: p(0, 0), to: p(0, 1))]
        })
        Self.expectRejected(.itemMovedTwice(p(0, 0)), Self.batch([1, 4, 1]) {
            $0.itemMoves = [ItemMove(from: p(0, 0), to: p(0, 1)), ItemMove(from: p(0, 0), to: p(1, 1))]
        })
        Self.expectRejected(.itemMoveDestinationOutOfRange(p(3, 1)), Self.batch([2, 3, 1]) {
            $0.itemMoves = [ItemMove(from: p(0, 0), to: p(3, 1))]
        })
        Self.expectRejected(.itemDestinationUsedTwice(p(0, 1)), Self.batch([1, 4, 1]) {
            $0.itemMoves = [ItemMove(from: p(0, 0), to: p(0, 1)), ItemMove(from: p(1, 0), to: p(0, 1))]
        })
    }

    @Test func reloadCrashesAreRefused() {
        let p = Self.p
        Self.expectRejected(.itemReloadOutOfRange(p(2, 1)), Self.batch([3, 2, 1]) { $0.itemReloads = [ItemReload(at: p(2, 1), version: 1)] })
        Self.expectRejected(.itemReloadInDeletedSection(p(0, 2)), Self.batch([3, 2]) {
            $0.sectionDeletes = [2]
            $0.itemReloads = [ItemReload(at: p(0, 2), version: 1)]
        })
        Self.expectRejected(.itemDeletedAndReloaded(p(1, 0)), Self.batch([2, 2, 1]) {
            $0.itemDeletes = [p(1, 0)]
            $0.itemReloads = [ItemReload(at: p(1, 0), version: 1)]
        })
        Self.expectRejected(.itemMovedAndReloaded(p(1, 0)), Self.batch([3, 2, 1]) {
            $0.itemMoves = [ItemMove(from: p(1, 0), to: p(0, 0))]
            $0.itemReloads = [ItemReload(at: p(1, 0), version: 1)]
        })
        Self.expectRejected(.itemReloadedTwice(p(1, 0)), Self.batch([3, 2, 1]) {
            $0.itemReloads = [ItemReload(at: p(1, 0), version: 1), ItemReload(at: p(1, 0), version: 2)]
        })
    }

    @Test func countsThatDoNotAddUpAreRefused() {
        let p = Self.p
        // "Invalid number of items in section 0": 3 − 1 deleted ≠ 3.
        Self.expectRejected(.itemCountMismatch(section: 0, expected: 2, declared: 3), Self.batch([3, 2, 1]) { $0.itemDeletes = [p(0, 0)] })
        // A move out of section 1 into section 0 without adjusting both counts.
        Self.expectRejected(.itemCountMismatch(section: 0, expected: 4, declared: 3), Self.batch([3, 2, 1]) {
            $0.itemMoves = [ItemMove(from: p(0, 1), to: p(0, 0))]
        })
        Self.expectRejected(.itemCountOutOfRange(section: 1, declared: -1), Self.batch([3, -1, 1]))
        Self.expectRejected(.itemCountOutOfRange(section: 2, declared: Int.max), Self.batch([3, 2, Int.max]))
    }

    @Test func randomBatchesAreRefusedOrApplyConsistentlyNeverTrap() throws {
        // Arbitrary (mostly invalid) batches: validation must answer, never trap, and every
        // batch it accepts must apply to a consistent snapshot with the declared counts.
        var accepted = 0
        for seed in 0..<10_000 as Range<UInt64> {
            var rng = SeededGenerator(seed: seed)
            func r(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
            var next: UInt64 = 1
            let shown = SnapshotFixtures.random(sections: 3, items: 3, nextID: &next, using: &rng)
            // Mostly plausible indices (so that some batches pass), sometimes junk.
            func oldPath() -> IndexPath {
                let sec = r(0...max(0, shown.sectionCount - 1))
                let n = sec < shown.sectionCount ? shown.itemCount(inSection: sec) : 0
                return r(0...4) == 0 || n == 0 ? IndexPath(item: r(-1...3), section: r(-1...3)) : IndexPath(item: r(0...n - 1), section: sec)
            }
            func newPath() -> IndexPath { IndexPath(item: r(0...3), section: r(0...max(0, shown.sectionCount - 1))) }
            var b = BatchUpdate()
            if r(0...3) == 0 { b.sectionDeletes.append(r(-1...3)) }
            if r(0...3) == 0 {
                let n = r(0...2)
                b.sectionInserts.append(SectionInsertion(index: r(-1...3), id: SectionID(UInt64(r(1...40))),
                    items: (0..<n).map { _ in ItemID(UInt64(r(100...140))) }, versions: [UInt32](repeating: 0, count: n)))
            }
            if r(0...3) == 0 { b.sectionMoves.append(SectionMove(from: r(-1...3), to: r(-1...3))) }
            for _ in 0..<r(0...2) { b.itemDeletes.append(oldPath()) }
            for _ in 0..<r(0...2) { b.itemInserts.append(ItemInsertion(at: newPath(), id: ItemID(UInt64(r(1...40))), version: 1)) }
            for _ in 0..<r(0...2) { b.itemMoves.append(ItemMove(from: oldPath(), to: newPath())) }
            for _ in 0..<r(0...1) { b.itemReloads.append(ItemReload(at: oldPath(), version: 5)) }
            // Counts: often the consistent ones, sometimes off by one.
            let ns = shown.sectionCount - b.sectionDeletes.count + b.sectionInserts.count
            b.itemCountsAfter = (0..<max(0, ns + (r(0...5) == 0 ? r(-1...1) : 0))).map { _ in r(0...5) }
            // Repair the counts the validator names, so that some random batches get through.
            for _ in 0..<6 {
                do throws(BatchUpdateError) { try BatchUpdate.validate(b, against: shown); break }
                catch .itemCountMismatch(let t, let expected, _) { b.itemCountsAfter[t] = expected }
                catch .sectionInsertContentMismatch(let t) {
                    if let k = b.sectionInserts.firstIndex(where: { $0.index == t }) { b.itemCountsAfter[t] = b.sectionInserts[k].items.count }
                } catch { break }
            }
            do {
                let after = try shown.applying(b)
                accepted += 1
                after.checkInvariants()
                #expect(after.sectionCount == b.itemCountsAfter.count)
                for t in 0..<after.sectionCount { #expect(after.itemCount(inSection: t) == b.itemCountsAfter[t]) }
            } catch {
                // Refused with a reason: fine.
            }
        }
        #expect(accepted > 150)
    }
}
