import Testing
import Foundation
import GridEngine
import GalleryCore
@testable import GalleryStore
import StoreTestSupport

/// A batch of one move of several items, copy, trash or restore is made on the live snapshot in
/// place (`GalleryStore.batchesInPlace`, session 16: the copy of a 1M gallery's snapshot was most
/// of such a batch's time). Every check that refuses it runs before its first change, so a
/// refused batch leaves memory exactly as it was without reading the rows again; a database
/// failure after the change reads the rows again. Checked on random histories against the
/// rows and against the snapshot before with the answer's stages applied, on both backends.
@Suite struct InPlaceBatchTests {
    static func memory(_ store: GalleryStore, _ gallery: Int64) -> Snapshot { store.live.withLock { $0[gallery]!.snapshot } }

    static func fromRows(_ store: GalleryStore, _ gallery: Int64) async throws -> Snapshot {
        try Snapshot(gallery: try await store.snapshot(gallery))
    }

    /// A batch for a random step: one of the in-place kinds (now and then a single move or a
    /// two-operation batch, the other paths), and whether it is a bad one (refused: the bad id,
    /// anchor or index comes last, after good ones the batch would have changed first).
    static func randomBatch(_ s: Snapshot, trashed: [Int64], rng: inout SeededGenerator) -> (ops: [BatchEdit], bad: Bool) {
        func id(_ i: ItemID) -> Int64 { Int64(bitPattern: i.rawValue) }
        let sections = s.sectionIDs.map { Int64(bitPattern: $0.rawValue) }
        let live = (0..<s.sectionCount).flatMap { s.items(inSection: $0).map(id) }
        func pick(_ n: Int) -> [Int64] { Array(live.shuffled(using: &rng).prefix(n)) }
        /// A destination for `moving` (the items that leave their places first).
        func destination(removing moving: [Int64]) -> Destination {
            let gone = Set(moving)
            let k = Int(rng.next() % UInt64(sections.count))
            let count = s.items(inSection: k).map(id).filter { !gone.contains($0) }.count
            switch rng.next() % 4 {
            case 0: return .index(section: sections[k], index: Int(rng.next() % UInt64(count + 1)))
            case 1: return .end(section: sections[k])
            default:
                guard let anchor = live.filter({ !gone.contains($0) }).randomElement(using: &rng) else { return .end(section: sections[k]) }
                return rng.next() % 2 == 0 ? .before(item: anchor) : .after(item: anchor)
            }
        }
        let bad = rng.next() % 4 == 0
        switch rng.next() % 10 {
        case 0..<3 where live.count > 4:
            var ids = pick(Int(rng.next() % 40) + 2)
            var to = destination(removing: ids)
            if bad {
                switch rng.next() % 5 {
                case 0 where !trashed.isEmpty: ids.append(trashed.randomElement(using: &rng)!)
                case 1: ids.append(ids[0])
                case 2: to = .before(item: ids[ids.count - 1])
                case 3: to = .index(section: sections[0], index: s.itemCount(inSection: 0) + 1)
                default: ids.append(999_999)
                }
            }
            return ([.move(items: ids, to: to)], bad)
        case 3..<5 where !live.isEmpty:
            var ids = pick(Int(rng.next() % 20) + 1)
            var to = destination(removing: [])
            if bad {
                switch rng.next() % 3 {
                case 0 where !trashed.isEmpty: ids.append(trashed.randomElement(using: &rng)!)
                case 1: to = .end(section: 888_888)
                default: to = .index(section: sections.last!, index: s.itemCount(inSection: sections.count - 1) + 1)
                }
            }
            return ([.copy(items: ids, to: to)], bad)
        case 5..<7 where live.count > 60:
            var ids = pick(Int(rng.next() % 30) + 1)
            if bad { ids.append(trashed.randomElement(using: &rng) ?? ids[0]) }
            return ([.trash(items: ids)], bad)
        case 7..<9 where !trashed.isEmpty:
            // Both restore paths: one by one below `BatchContext.manyRows`, `restoreMany` from it.
            let n = rng.next() % 2 == 0 ? Int(rng.next() % 15) + 1 : Int(rng.next() % UInt64(trashed.count)) + 1
            var ids = Array(trashed.shuffled(using: &rng).prefix(n))
            if bad { ids.append(rng.next() % 2 == 0 && !live.isEmpty ? live.randomElement(using: &rng)! : 999_999) }
            return ([.restore(items: ids)], bad)
        case 9 where live.count > 2:
            // The other paths between: a single move (made in place after the commit) or two
            // operations (the snapshot copied and diffed).
            let two = pick(2)
            if rng.next() % 2 == 0 { return ([.move(items: [two[0]], to: destination(removing: [two[0]]))], false) }
            return ([.trash(items: [two[0]]), .move(items: [two[1]], to: .end(section: sections.randomElement(using: &rng)!))], false)
        default:
            return ([.createSection(title: "more", index: nil)], false)
        }
    }

    /// One step of a random history: the batch `make` draws on the live snapshot and the trashed
    /// ids (with whether it is meant to be refused), applied and checked. Accepted: memory and rows
    /// agree and the answer's stages turn the snapshot before into the one after (their ids those
    /// of the rows before). Refused (a `StoreError` other than corrupt): memory, rows and reads as
    /// they were. Answers whether it was accepted, and whether it was meant to be refused.
    /// `wholeDiff`: a batch of several operations, or of one that records no stage of its own,
    /// must answer the very stages of the whole gallery's diff.
    static func applyChecked(_ store: GalleryStore, _ gallery: Int64, step: Int, wholeDiff: Bool = false,
                             _ make: (Snapshot, [Int64]) -> (ops: [BatchEdit], bad: Bool)) async throws -> (accepted: Bool, bad: Bool) {
        let before = Self.memory(store, gallery)
        let shown = try await store.snapshot(gallery)
        let rereads = store.batchRereadCount
        let trashed = try await RestoreReference.rows(store, gallery).values.filter(\.trashed).map(\.id).sorted()
        let (ops, bad) = make(before, trashed)
        do {
            let result = try await store.apply(gallery: gallery, ops)
            let after = Self.memory(store, gallery)
            #expect(after == (try await Self.fromRows(store, gallery)), "step \(step): memory and rows agree after \(ops)")
            var replayed = before
            try replay(result.changes, on: &replayed)
            #expect(replayed == after, "step \(step): the stages turn the snapshot before into the one after \(ops)")
            try StageIDsTests.expectIDsMatch(result.changes, from: shown)
            if wholeDiff, ops.count > 1 || !GalleryStore.changesInPlace(.client(ops[0])) {
                let whole = StageJSON.stages(try StagedChangeset(wholeFrom: before, to: after).stages, from: before)
                #expect(result.changes.stages == whole, "step \(step): the whole diff's stages for \(ops)")
            }
            #expect(!bad, "step \(step): a bad batch was accepted: \(ops)")
            return (true, bad)
        } catch let error as StoreError {
            if case .corrupt = error { Issue.record("step \(step): \(error)") }
            #expect(Self.memory(store, gallery) == before, "step \(step): a refused batch left memory changed: \(ops)")
            #expect(store.batchRereadCount == rereads, "step \(step): a refused batch read the rows again: \(ops)")
            #expect(try await store.snapshot(gallery) == shown, "step \(step): a refused batch changed the rows")
            return (false, bad)
        }
    }

    @Test(arguments: Backend.tested) func randomHistoriesWithRefusedBatchesAgreeWithTheRowsAndTheirStages(_ backend: Backend) async throws {
        for seed in [15, 16] as [UInt64] {
            let (store, place) = try await makeStore(backend)
            let (g, _) = try await makeGallery(store, sections: 6, perSection: 30)
            _ = try await store.apply(gallery: g.id, [.createSection(title: "empty", index: 3)])
            var rng = SeededGenerator(seed: seed)
            var tally = (accepted: 0, refused: 0)
            let inPlaceAtStart = store.inPlaceBatchCount
            for step in 0..<90 {
                let (accepted, bad) = try await Self.applyChecked(store, g.id, step: step) { Self.randomBatch($0, trashed: $1, rng: &rng) }
                #expect(accepted || bad, "step \(step): a good batch was refused")
                if accepted { tally.accepted += 1 } else { tally.refused += 1 }
            }
            #expect(tally.accepted > 40 && tally.refused > 8, "\(tally)")
            #expect(store.inPlaceBatchCount - inPlaceAtStart > 30, "most batches were made in place")
            #expect(store.batchRereadCount == 0)
            // A new store reads the same gallery from the rows.
            let memory = Self.memory(store, g.id)
            try store.close()
            #expect(try await Self.fromRows(try await place.open(), g.id) == memory)
        }
    }

    /// Batches of several operations (an undo putting items back at many places, a change sent in
    /// parts) are made in place too (session 17): their stages the diff of the sections they
    /// changed, and a refusal anywhere in them — after operations that changed the snapshot, or a
    /// new section — puts the snapshot back without reading the rows.
    @Test(arguments: Backend.tested) func batchesOfSeveralOperationsAgreeWithTheRowsAndArePutBackWhenRefused(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let (g, _) = try await makeGallery(store, sections: 6, perSection: 30)
        var rng = SeededGenerator(seed: 17)
        var tally = (accepted: 0, refused: 0)
        let inPlaceAtStart = store.inPlaceBatchCount
        for step in 0..<70 {
            // Two to five random operations, each drawn on the snapshot before (a later one may
            // then be refused: an item an earlier one trashed), and now and then a bad one last.
            let (accepted, _) = try await Self.applyChecked(store, g.id, step: step, wholeDiff: true) { before, trashed in
                var ops: [BatchEdit] = []
                while ops.count < 2 + Int(rng.next() % 4) {
                    let (more, bad) = Self.randomBatch(before, trashed: trashed, rng: &rng)
                    if !bad { ops += more }
                }
                let badLast = rng.next() % 3 == 0
                if badLast { ops.append(.move(items: [999_999], to: .end(section: Int64(bitPattern: before.sectionID(at: 0).rawValue)))) }
                return (ops, badLast)
            }
            if accepted { tally.accepted += 1 } else { tally.refused += 1 }
        }
        #expect(tally.accepted > 15 && tally.refused > 15, "\(tally)")
        #expect(store.inPlaceBatchCount - inPlaceAtStart > 60, "batches of several operations were made in place")
        #expect(store.batchRereadCount == 0)
    }

    /// Random section operations drawn on the snapshot before: a section moved, renamed, created,
    /// deleted, deleted with some of its items restored in the same batch (it comes back), or
    /// deleted and undone as the page sends an undo (its items restored and moved back in order);
    /// items of the trash restored (their section coming back if it was deleted).
    static func randomSectionOps(_ s: Snapshot, trashed: [Int64], rng: inout SeededGenerator) -> [BatchEdit] {
        func id(_ i: ItemID) -> Int64 { Int64(bitPattern: i.rawValue) }
        let sections = s.sectionIDs.map { Int64(bitPattern: $0.rawValue) }
        let k = Int(rng.next() % UInt64(sections.count))
        let items = s.items(inSection: k).map(id)
        switch rng.next() % 7 {
        case 0: return [.moveSection(sections[k], index: Int(rng.next() % UInt64(sections.count)))]
        case 1: return [.renameSection(sections[k], title: "renamed \(rng.next() % 100)")]
        case 2 where sections.count > 3: return [.deleteSection(sections[k])]
        case 3 where sections.count > 3 && !items.isEmpty:
            return [.deleteSection(sections[k]), .restore(items: items.filter { _ in rng.next() % 3 == 0 } + [items[0]])]
        case 4 where sections.count > 3 && !items.isEmpty:
            return [.deleteSection(sections[k]), .restore(items: items), .move(items: items, to: .index(section: sections[k], index: 0))]
        case 5 where !trashed.isEmpty: return [.restore(items: Array(trashed.shuffled(using: &rng).prefix(Int(rng.next() % 12) + 1)))]
        default: return [.createSection(title: "new", index: Int(rng.next() % UInt64(sections.count + 1)))]
        }
    }

    /// Batches that add, remove or move a section, and restores, alone or among item operations
    /// (session 18: past 50,000 items they copied the snapshot and diffed the whole gallery; now
    /// made in place at any size, their diff matching sections by id, so a small gallery takes the
    /// very path of a big one): memory, rows and stages agree, and a refusal last — after the
    /// sections changed — puts the snapshot back exactly (its tables too) without reading the rows.
    @Test(arguments: Backend.tested) func batchesThatAddRemoveOrMoveSectionsAgreeWithTheRowsAndArePutBackWhenRefused(_ backend: Backend) async throws {
        let (store, place) = try await makeStore(backend)
        let (g, _) = try await makeGallery(store, sections: 6, perSection: 30)
        var rng = SeededGenerator(seed: 18)
        var tally = (accepted: 0, refused: 0, sectionsChanged: 0)
        var sectionsBefore = Self.memory(store, g.id).sectionIDs
        let inPlaceAtStart = store.inPlaceBatchCount
        for step in 0..<80 {
            let (accepted, _) = try await Self.applyChecked(store, g.id, step: step, wholeDiff: true) { before, trashed in
                var ops: [BatchEdit] = []
                let count = 1 + Int(rng.next() % 4)
                while ops.count < count {
                    if rng.next() % 2 == 0 { ops += Self.randomSectionOps(before, trashed: trashed, rng: &rng); continue }
                    let (more, bad) = Self.randomBatch(before, trashed: trashed, rng: &rng)
                    if !bad { ops += more }
                }
                let first = Int64(bitPattern: before.sectionID(at: 0).rawValue)
                switch rng.next() % 8 {
                case 0: ops.append(.move(items: [999_999], to: .end(section: first)))
                case 1: ops.append(.moveSection(first, index: before.sectionCount + 3))
                case 2: ops.append(.deleteSection(777_777))
                default: return (ops, false)
                }
                return (ops, true)
            }
            Self.memory(store, g.id).checkInvariants()
            if accepted { tally.accepted += 1 } else { tally.refused += 1 }
            let sections = Self.memory(store, g.id).sectionIDs
            if accepted && sections != sectionsBefore { tally.sectionsChanged += 1 }
            sectionsBefore = sections
        }
        #expect(tally.accepted > 25 && tally.refused > 15 && tally.sectionsChanged > 15, "\(tally)")
        #expect(store.inPlaceBatchCount - inPlaceAtStart > 60, "batches with section operations were made in place")
        #expect(store.batchRereadCount == 0)
        let memory = Self.memory(store, g.id)
        try store.close()
        #expect(try await Self.fromRows(try await place.open(), g.id) == memory)
    }

    /// A refused batch of each in-place kind whose bad id comes after good ones: memory as it was,
    /// the rows not read again (a client sending bad batches must not make the writer read a 1M
    /// gallery each time), and the next good batch made in place.
    @Test(arguments: Backend.tested) func refusedBatchesLeaveMemoryAsItWasWithoutARead(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let (g, sections) = try await makeGallery(store, sections: 3, perSection: 40)
        let start = try await store.snapshot(g.id)
        let a = start.sections[0].items.map(\.id), b = start.sections[1].items.map(\.id)
        _ = try await store.apply(gallery: g.id, [.trash(items: Array(b[30..<40]))])
        let before = Self.memory(store, g.id)
        let bad: [[BatchEdit]] = [
            [.move(items: Array(a[0..<20]) + [b[35]], to: .end(section: sections[2]))],
            [.move(items: Array(a[0..<5]) + [a[3]], to: .end(section: sections[2]))],
            [.move(items: Array(a[0..<5]), to: .after(item: a[4]))],
            [.copy(items: Array(a[0..<5]) + [999_999], to: .end(section: sections[2]))],
            [.copy(items: Array(a[0..<5]), to: .index(section: sections[1], index: 31))],
            [.trash(items: Array(a[0..<20]) + [b[31]])],
            [.restore(items: Array(b[30..<33]) + [a[0]])],           // one by one: the live item last
            [.restore(items: Array(b[30..<40]) + Array(a[0..<10]))], // restoreMany
            [.restore(items: Array(b[30..<35]) + [999_999])],
        ]
        for ops in bad {
            await #expect(throws: StoreError.self) { try await store.apply(gallery: g.id, ops) }
            #expect(Self.memory(store, g.id) == before, "\(ops)")
        }
        #expect(store.batchRereadCount == 0, "no refused batch read the rows again")
        let inPlace = store.inPlaceBatchCount
        _ = try await store.apply(gallery: g.id, [.restore(items: Array(b[30..<33]))])
        #expect(store.inPlaceBatchCount == inPlace + 1)
        #expect(Self.memory(store, g.id) == (try await Self.fromRows(store, g.id)))
    }

    /// A database failure after the batch's change in memory (the log row refused by a trigger):
    /// the transaction rolls back, the live snapshot is read again from the rows, and the next
    /// batch goes on from there.
    @Test(arguments: Backend.tested) func aDatabaseFailureAfterTheChangeReadsTheRowsAgain(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let (g, sections) = try await makeGallery(store, sections: 3, perSection: 30)
        let a = try await store.snapshot(g.id).sections[0].items.map(\.id)
        try await store.database.write { db in
            try db.execute("CREATE TABLE failnext (x INTEGER)")
            if backend == .sqlite {
                try db.execute("CREATE TRIGGER failop BEFORE INSERT ON operation WHEN EXISTS (SELECT 1 FROM failnext) BEGIN SELECT RAISE(ABORT, 'injected'); END")
            } else {
                try db.execute("""
                    CREATE FUNCTION failop() RETURNS trigger AS 'BEGIN
                        IF EXISTS (SELECT 1 FROM failnext) THEN RAISE EXCEPTION ''injected''; END IF; RETURN NEW; END' LANGUAGE plpgsql
                    """)
                try db.execute("CREATE TRIGGER failop BEFORE INSERT ON operation FOR EACH ROW EXECUTE FUNCTION failop()")
            }
        }
        _ = try await store.apply(gallery: g.id, [.trash(items: Array(a[10..<30]))])
        let batches: [[BatchEdit]] = [
            [.move(items: Array(a[0..<8]), to: .end(section: sections[2]))],
            [.copy(items: Array(a[0..<5]), to: .index(section: sections[1], index: 3))],
            [.trash(items: Array(a[0..<4]))],
            [.restore(items: Array(a[10..<28]))], // restoreMany
            [.restore(items: [a[28], a[29]])],    // one by one
            [.restore(items: [a[0]])],
        ]
        for ops in batches {
            let before = Self.memory(store, g.id), rereads = store.batchRereadCount, inPlace = store.inPlaceBatchCount
            try await store.database.write { db in try db.execute("INSERT INTO failnext (x) VALUES (1)") }
            await #expect(throws: (any Error).self) { try await store.apply(gallery: g.id, ops) }
            #expect(store.inPlaceBatchCount == inPlace + 1, "made in place: \(ops)")
            #expect(store.batchRereadCount == rereads + 1, "read again: \(ops)")
            #expect(Self.memory(store, g.id) == before, "memory is the rows as they were: \(ops)")
            try await store.database.write { db in try db.execute("DELETE FROM failnext") }
            _ = try await store.apply(gallery: g.id, ops)
            #expect(Self.memory(store, g.id) == (try await Self.fromRows(store, g.id)), "\(ops)")
        }
    }
}
