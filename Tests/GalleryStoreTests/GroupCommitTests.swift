import Testing
import Foundation
import Dispatch
import GridEngine
import GalleryCore
@testable import GalleryStore
import StoreTestSupport

/// Issue 15.3: batches that queue behind a busy writer share its transaction (group commit), each
/// in its own savepoint — each its own version, answer and stream event; a refused or failing one
/// undone alone; a commit that fails fails its whole group and memory stays the rows. The writer
/// is held with a turn of the test's own while the batches queue, so the groups are known.
@Suite struct GroupCommitTests {
    /// The writer busy with a turn that waits for `release()`; `queue` then enqueues batches one
    /// after the other, each waiting until it is in the store's queue (their order is theirs).
    final class HeldWriter: Sendable {
        let store: GalleryStore
        let gate = DispatchSemaphore(value: 0)
        let holding: Task<Void, any Error>
        init(_ store: GalleryStore) async throws {
            self.store = store
            let started = DispatchSemaphore(value: 0)
            let gate = self.gate
            holding = Task { try await store.database.writeWithoutTransaction { _ in started.signal(); gate.wait() } }
            await withCheckedContinuation { c in DispatchQueue.global().async { started.wait(); c.resume() } }
        }
        func release() async throws {
            gate.signal()
            try await holding.value
        }
    }

    /// Starts `apply` of each batch in turn, the next once the last is waiting for the writer.
    static func queue(_ store: GalleryStore, _ batches: [(gallery: Int64, base: Int64?, ops: [BatchEdit])]) async -> [Task<BatchResult, any Error>] {
        var tasks: [Task<BatchResult, any Error>] = []
        let before = store.waitingBatchCount
        for (k, b) in batches.enumerated() {
            tasks.append(Task { try await store.apply(gallery: b.gallery, baseVersion: b.base, b.ops) })
            while store.waitingBatchCount < before + k + 1 { await Task.yield() }
        }
        return tasks
    }

    static func memory(_ store: GalleryStore, _ gallery: Int64) -> Snapshot { store.live.withLock { $0[gallery]!.snapshot } }

    static func rows(_ store: GalleryStore, _ gallery: Int64) async throws -> Snapshot {
        try Snapshot(gallery: try await store.snapshot(gallery))
    }

    @Test func queuedBatchesShareOneTransactionEachWithItsOwnVersionAnswerAndEvent() async throws {
        let (store, _) = try await makeStore(.sqlite)
        let (g, sections) = try await makeGallery(store, sections: 3, perSection: 20)
        let start = try await store.snapshot(g.id)
        let a = start.sections[0].items.map(\.id), b = start.sections[1].items.map(\.id)
        let (stream, cancel) = try await store.subscribe(gallery: g.id, since: start.version)
        let held = try await HeldWriter(store)
        let tasks = await Self.queue(store, [
            (g.id, nil, [.move(items: [a[0]], to: .end(section: sections[2]))]),
            (g.id, start.version, [.move(items: [a[1]], to: .end(section: sections[2]))]),   // stale by then
            (g.id, nil, [.move(items: [9_999_999], to: .end(section: sections[2]))]),        // no such item
            (g.id, nil, [.copy(items: [b[1], b[2]], to: .index(section: sections[0], index: 1))]),
            (g.id, nil, [.trash(items: [a[4], a[5]])]),
            (g.id, nil, [.move(items: [a[6], a[7]], to: .after(item: b[4]))]),
            (g.id, nil, [.restore(items: [a[4]])]),
            (g.id, nil, [.move(items: [a[8]], to: .index(section: sections[1], index: 0))]),
            // Not small: each a transaction of its own, and the move after them waits for them.
            (g.id, nil, [.renameItem(b[3], title: "Renamed alone")]),
            (g.id, nil, [.swap(a[10], a[11])]),
            (g.id, nil, [.move(items: [a[12]], to: .end(section: sections[2])), .move(items: [a[13]], to: .end(section: sections[2]))]),
            (g.id, nil, [.move(items: [a[9]], to: .index(section: sections[1], index: 0))]),
        ])
        #expect(store.waitingBatchCount == 12)
        try await held.release()
        var results: [Result<BatchResult, any Error>] = []
        for t in tasks { results.append(await t.result) }

        #expect(store.batchGroupStats == BatchGroupStats(transactions: 1, batches: 8, largest: 8), "one transaction held the first eight")
        let committed = results.compactMap { try? $0.get() }
        #expect(committed.map(\.version) == Array(start.version + 1 ... start.version + 10), "a version each, in the order they came")
        for r in committed { #expect(r.changes.fromVersion == r.version - 1 && r.changes.toVersion == r.version) }
        guard case .failure(StoreError.stale) = results[1] else { Issue.record("the stale batch answered \(results[1])"); return }
        guard case .failure(StoreError.itemNotFound(9_999_999)) = results[2] else { Issue.record("the unknown item answered \(results[2])"); return }
        #expect(try results[3].get().createdItems.count == 2)

        let after = try await store.snapshot(g.id)
        #expect(after.sections.flatMap(\.items).first { $0.id == b[3] }?.title == "Renamed alone")
        #expect(after.sections[1].items.prefix(2).map(\.id) == [a[9], a[8]])
        let rows = try await Self.rows(store, g.id)
        #expect(Self.memory(store, g.id) == rows, "the live snapshot is the rows")
        #expect(store.batchRereadCount == 0, "refused batches changed nothing, nothing was read again")

        // The stream carried each committed version once, in order, each its own event.
        var shown = try Snapshot(gallery: start)
        var seen: [Int64] = []
        for await event in stream {
            guard case let .changes(c) = event else { Issue.record("not a change on the stream"); break }
            #expect(c.fromVersion == (seen.last ?? start.version) && c.toVersion == c.fromVersion + 1)
            try replay(c, on: &shown)
            seen.append(c.toVersion)
            if seen.count == committed.count { break }
        }
        cancel()
        #expect(shown == rows)
        // Each version's log row is there: catch-up from every one of them arrives at the rows.
        let logged = try await store.database.read { db in
            try db.values("SELECT version FROM operation WHERE galleryId = ? AND version > ? ORDER BY version", [g.id, start.version], as: Int64.self)
        }
        #expect(logged == committed.map(\.version))
        var caught = try Snapshot(gallery: start)
        try replay(try #require(try await store.changes(gallery: g.id, since: start.version)), on: &caught)
        #expect(caught == rows)
    }

    /// A batch whose log row a trigger refuses (after its item rows are written) is undone alone;
    /// the batches before and after it in the group commit.
    /// A group reads the gallery row's version once and writes it once, after its last batch
    /// (the batches after the first start from the one before them): the row, a restart and the
    /// next batch all see the last committed batch's version — also when the group's last batch
    /// was refused — and each batch still counts the version's row among its rows written.
    @Test func aGroupWritesTheVersionOfItsLastCommittedBatchOnce() async throws {
        let (store, place) = try await makeStore(.sqlite)
        let (g, sections) = try await makeGallery(store, sections: 2, perSection: 10)
        let start = try await store.snapshot(g.id)
        let a = start.sections[0].items.map(\.id)
        let held = try await HeldWriter(store)
        let tasks = await Self.queue(store, [
            (g.id, nil, [.move(items: [a[0]], to: .end(section: sections[1]))]),
            (g.id, nil, [.move(items: [a[1]], to: .index(section: sections[1], index: 3))]),
            (g.id, start.version + 2, [.move(items: [a[2]], to: .end(section: sections[1]))]), // based on the second
            (g.id, start.version, [.move(items: [a[3]], to: .end(section: sections[1]))]),     // stale: refused
        ])
        try await held.release()
        var results: [Result<BatchResult, any Error>] = []
        for t in tasks { results.append(await t.result) }
        #expect(results.prefix(3).map { (try? $0.get())?.version } == [start.version + 1, start.version + 2, start.version + 3])
        #expect(results.prefix(3).allSatisfy { (try? $0.get())?.rowsWritten == 3 }, "item, version and log rows each")
        guard case .failure(StoreError.stale(_, let current)) = results[3] else { Issue.record("the last was not refused as stale: \(results[3])"); return }
        #expect(current == start.version + 3, "judged against the version the batch before it made")
        #expect(store.batchGroupStats.largest == 4)
        #expect(try await store.snapshot(g.id).version == start.version + 3, "the row after the group")
        let memory = try await store.snapshot(g.id)
        try store.close()
        let reopened = try await place.open()
        defer { try? reopened.close() }
        #expect(try await reopened.snapshot(g.id) == memory, "a restart reads the same version and rows")
        let next = try await reopened.apply(gallery: g.id, baseVersion: start.version + 3, [.move(items: [a[3]], to: .end(section: sections[1]))])
        #expect(next.version == start.version + 4)
    }

    @Test func aBatchFailingAfterItsRowsIsUndoneAloneInItsGroup() async throws {
        let (store, _) = try await makeStore(.sqlite)
        let (g, sections) = try await makeGallery(store, sections: 2, perSection: 20)
        let start = try await store.snapshot(g.id)
        let a = start.sections[0].items.map(\.id)
        try await store.database.write { db in
            try db.execute("CREATE TRIGGER failop BEFORE INSERT ON operation WHEN NEW.payload LIKE '%\"copy\"%' BEGIN SELECT RAISE(ABORT, 'injected'); END")
        }
        let held = try await HeldWriter(store)
        let tasks = await Self.queue(store, [
            (g.id, nil, [.move(items: [a[0]], to: .end(section: sections[1]))]),
            (g.id, nil, [.copy(items: [a[1], a[2]], to: .end(section: sections[1]))]), // its new rows written, then its log row refused
            (g.id, nil, [.move(items: [a[3]], to: .end(section: sections[1]))]),
            (g.id, nil, [.move(items: [a[4]], to: .index(section: sections[1], index: 0))]),
        ])
        try await held.release()
        let results = await tasks.asyncMap { await $0.result }
        #expect(store.batchGroupStats.largest == 4)
        #expect((try? results[0].get())?.version == start.version + 1)
        #expect((try? results[1].get()) == nil, "the poisoned batch failed")
        #expect((try? results[2].get())?.version == start.version + 2)
        #expect((try? results[3].get())?.version == start.version + 3)
        let after = try await store.snapshot(g.id)
        #expect(after.sections.flatMap(\.items).count == 40, "the copy's rows are undone")
        #expect(after.sections[1].items.first?.id == a[4])
        #expect(after.sections[1].items.suffix(2).map(\.id) == [a[0], a[3]])
        let itemRows = try await store.database.read { db in try db.value("SELECT COUNT(*) FROM item WHERE galleryId = ?", [g.id], as: Int64.self) }
        #expect(itemRows == 40)
        #expect(Self.memory(store, g.id) == (try await Self.rows(store, g.id)))
    }

    /// A batch made on the live snapshot in place (a trash of two items) whose log row a trigger
    /// refuses after its change: the gallery's snapshot is read again inside the transaction (the
    /// rows as the batch before left them), and the batch after it goes on from there.
    @Test func aBatchChangedInPlaceAndThenRefusedIsReadAgainInsideTheGroup() async throws {
        let (store, _) = try await makeStore(.sqlite)
        let (g, sections) = try await makeGallery(store, sections: 2, perSection: 20)
        let start = try await store.snapshot(g.id)
        let a = start.sections[0].items.map(\.id)
        try await store.database.write { db in
            try db.execute("CREATE TRIGGER failtrash BEFORE INSERT ON operation WHEN NEW.payload LIKE '%\"trash\"%' BEGIN SELECT RAISE(ABORT, 'injected'); END")
        }
        let held = try await HeldWriter(store)
        let tasks = await Self.queue(store, [
            (g.id, nil, [.move(items: [a[0]], to: .end(section: sections[1]))]),
            (g.id, nil, [.trash(items: [a[1], a[2]])]),
            (g.id, nil, [.move(items: [a[3], a[4]], to: .index(section: sections[1], index: 0))]),
        ])
        try await held.release()
        let results = await tasks.asyncMap { await $0.result }
        #expect(store.batchGroupStats.largest == 3)
        #expect(store.batchRereadCount == 1, "the trash changed the snapshot before its refusal: read again")
        #expect((try? results[0].get())?.version == start.version + 1)
        #expect((try? results[1].get()) == nil)
        #expect((try? results[2].get())?.version == start.version + 2)
        let after = try await store.snapshot(g.id)
        #expect(after.sections[0].items.prefix(2).map(\.id) == [a[1], a[2]], "not trashed")
        #expect(after.sections[1].items.prefix(2).map(\.id) == [a[3], a[4]])
        #expect(Self.memory(store, g.id) == (try await Self.rows(store, g.id)))
    }

    /// A batch whose statement makes SQLite roll the whole transaction back (a trigger's
    /// `RAISE(ROLLBACK)`): the batches before it in the group fail with it, memory stays the rows,
    /// and the batch after it commits in a transaction of its own as the next version.
    @Test func aBatchThatEndsTheTransactionFailsTheBatchesBeforeItOnly() async throws {
        let (store, _) = try await makeStore(.sqlite)
        let (g, sections) = try await makeGallery(store, sections: 2, perSection: 20)
        let start = try await store.snapshot(g.id)
        let a = start.sections[0].items.map(\.id)
        try await store.database.write { db in
            try db.execute("CREATE TRIGGER endall BEFORE INSERT ON operation WHEN NEW.payload LIKE '%\"copy\"%' BEGIN SELECT RAISE(ROLLBACK, 'injected'); END")
        }
        let (stream, cancel) = try await store.subscribe(gallery: g.id, since: start.version)
        let held = try await HeldWriter(store)
        let tasks = await Self.queue(store, [
            (g.id, nil, [.move(items: [a[0]], to: .end(section: sections[1]))]),
            (g.id, nil, [.copy(items: [a[1]], to: .end(section: sections[1]))]),
            (g.id, nil, [.move(items: [a[2]], to: .index(section: sections[1], index: 0))]),
        ])
        try await held.release()
        let results = await tasks.asyncMap { await $0.result }
        #expect((try? results[0].get()) == nil, "rolled back with the transaction")
        #expect((try? results[1].get()) == nil)
        #expect((try? results[2].get())?.version == start.version + 1)
        let after = try await store.snapshot(g.id)
        #expect(after.version == start.version + 1)
        #expect(after.sections[0].items.first?.id == a[0], "the first move is not in the rows")
        #expect(after.sections[1].items.first?.id == a[2])
        #expect(Self.memory(store, g.id) == (try await Self.rows(store, g.id)))
        for await event in stream {
            guard case let .changes(c) = event else { Issue.record("not a change on the stream"); break }
            #expect(c.fromVersion == start.version && c.toVersion == start.version + 1, "only the last batch's version")
            var shown = try Snapshot(gallery: start)
            try replay(c, on: &shown)
            #expect(shown == (try await Self.rows(store, g.id)), "the event is the committed move's")
            break
        }
        cancel()
    }

    /// A group whose COMMIT fails (a deferred foreign key one batch leaves dangling, checked only
    /// at the commit): every batch of it fails, none reaches memory or a stream, and the next batch
    /// takes the next version after the rows.
    @Test func aCommitThatFailsFailsTheWholeGroupAndMemoryStaysTheRows() async throws {
        let (store, _) = try await makeStore(.sqlite)
        let (g, sections) = try await makeGallery(store, sections: 2, perSection: 20)
        let start = try await store.snapshot(g.id)
        let a = start.sections[0].items.map(\.id)
        try await store.database.write { db in
            try db.execute("CREATE TABLE dangling (galleryId INTEGER REFERENCES gallery(id) DEFERRABLE INITIALLY DEFERRED)")
            try db.execute("CREATE TRIGGER dangle AFTER INSERT ON operation WHEN NEW.payload LIKE '%\"copy\"%' BEGIN INSERT INTO dangling VALUES (-1); END")
        }
        let (stream, cancel) = try await store.subscribe(gallery: g.id, since: start.version)
        let memoryBefore = Self.memory(store, g.id)
        let held = try await HeldWriter(store)
        let tasks = await Self.queue(store, [
            (g.id, nil, [.move(items: [9_999_999], to: .end(section: sections[1]))]),   // refused on committed rows
            (g.id, nil, [.move(items: [a[0]], to: .end(section: sections[1]))]),
            (g.id, nil, [.copy(items: [a[1]], to: .end(section: sections[1]))]),       // leaves the dangling row
            (g.id, nil, [.move(items: [a[2]], to: .index(section: sections[1], index: 0))]),
            (g.id, start.version, [.move(items: [a[3]], to: .end(section: sections[1]))]), // stale only after the others
        ])
        try await held.release()
        let results = await tasks.asyncMap { await $0.result }
        #expect(store.batchGroupStats.largest == 0, "no transaction of several batches committed")
        for (k, r) in results.enumerated() { #expect((try? r.get()) == nil, "batch \(k) of the failed group answered \(r)") }
        guard case .failure(StoreError.itemNotFound) = results[0] else { Issue.record("the refused batch answered \(results[0])"); return }
        // Refused against a batch of the transaction that did not commit: it gets the commit's
        // error, not "stale" about a version that never was.
        if case .failure(StoreError.stale) = results[4] { Issue.record("a refusal judged on rows that never were") }
        #expect("\(results[4])" == "\(results[1])", "the commit's error")
        #expect(Self.memory(store, g.id) == memoryBefore, "memory is the rows as they were")
        #expect(try await Self.rows(store, g.id) == memoryBefore)
        #expect(try await store.snapshot(g.id).version == start.version)

        let next = try await store.apply(gallery: g.id, [.move(items: [a[0]], to: .end(section: sections[1]))])
        #expect(next.version == start.version + 1)
        for await event in stream {
            guard case let .changes(c) = event else { Issue.record("not a change on the stream"); break }
            #expect(c.fromVersion == start.version && c.toVersion == next.version, "the failed group sent nothing")
            var shown = try Snapshot(gallery: start)
            try replay(c, on: &shown)
            #expect(shown == (try await Self.rows(store, g.id)), "the event is the next batch's, not the failed group's")
            break
        }
        cancel()
        #expect(Self.memory(store, g.id) == (try await Self.rows(store, g.id)))
    }

    /// A group stops at a version that is a catch-up checkpoint (the next batch writes its
    /// snapshot, which memory must know of first, in a transaction of its own) and goes on in the
    /// next transaction; every
    /// version's catch-up replays to the rows. Two galleries' batches queued in turn each form
    /// their own groups; a batch that is not small runs alone, and the gallery's later batches
    /// wait for it in their order.
    @Test func groupsStopAtCheckpointsKeepEachGallerysOrderAndLeaveBigBatchesAlone() async throws {
        let (store, _) = try await makeStore(.sqlite, historyEvery: 4)
        let (g, sections) = try await makeGallery(store, sections: 2, perSection: 100)
        let (h, hSections) = try await makeGallery(store, sections: 2, perSection: 10)
        let start = try await store.snapshot(g.id)
        let a = start.sections[0].items.map(\.id)
        let hStart = try await store.snapshot(h.id)
        let ha = hStart.sections[0].items.map(\.id)
        let (stream, cancel) = try await store.subscribe(gallery: g.id, since: start.version)
        let checkpointsBefore = store.historyCheckpointStats.count
        let held = try await HeldWriter(store)
        var plan: [(gallery: Int64, base: Int64?, ops: [BatchEdit])] = []
        for k in 0..<12 {
            plan.append((g.id, nil, [.move(items: [a[k]], to: .end(section: sections[1]))]))
            if k < 4 { plan.append((h.id, nil, [.move(items: [ha[k]], to: .end(section: hSections[1]))])) }
        }
        plan.append((g.id, nil, [.move(items: Array(a[20..<90]), to: .end(section: sections[1]))])) // 70 items: not small
        plan.append((g.id, nil, [.move(items: [a[95]], to: .index(section: sections[1], index: 0))]))
        let tasks = await Self.queue(store, plan)
        try await held.release()
        let results = try await tasks.asyncMap { try await $0.value }
        let gVersions = zip(plan, results).filter { $0.0.gallery == g.id }.map(\.1.version)
        let hVersions = zip(plan, results).filter { $0.0.gallery == h.id }.map(\.1.version)
        #expect(gVersions == Array(start.version + 1 ... start.version + 14), "the gallery's batches in the order they came")
        #expect(hVersions == Array(hStart.version + 1 ... hStart.version + 4))
        let stats = store.batchGroupStats
        #expect(stats.largest == 3, "no transaction past a checkpoint (every 4 versions), whose writer runs alone")
        #expect(stats.batches >= 8, "the moves of one item between checkpoints grouped")
        #expect(stats.batches <= plan.count - 2, "the big move alone, and the move after it")
        for gallery in [g.id, h.id] {
            #expect(Self.memory(store, gallery) == (try await Self.rows(store, gallery)))
        }
        // The gallery at each version, from the stream; catch-up from each arrives at the rows.
        var at = [start.version: try Snapshot(gallery: start)]
        var shown = try Snapshot(gallery: start)
        for await event in stream {
            guard case let .changes(c) = event else { Issue.record("not a change on the stream"); break }
            try replay(c, on: &shown)
            at[c.toVersion] = shown
            if c.toVersion == start.version + 14 { break }
        }
        cancel()
        let rows = try await Self.rows(store, g.id)
        #expect(shown == rows)
        for v in start.version ... start.version + 13 {
            var caught = try #require(at[v])
            try replay(try #require(try await store.changes(gallery: g.id, since: v), "catch-up from \(v)"), on: &caught)
            #expect(caught == rows, "catch-up from \(v)")
        }
        #expect(store.historyCheckpointStats.count - checkpointsBefore >= 3, "checkpoints written between groups")
    }
}

extension GroupCommitTests {
    /// A savepoint's writes are undone alone when its body throws; the transaction goes on.
    @Test(arguments: Backend.tested) func aSavepointUndoesItsOwnWritesOnly(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        struct Refused: Error {}
        try await store.database.write { db in try db.execute("CREATE TABLE sp (x INTEGER)") }
        try await store.database.writeWithoutTransaction { db in
            #expect(!db.inTransaction)
            try db.transaction {
                try db.execute("INSERT INTO sp (x) VALUES (1)")
                #expect(throws: Refused.self) { try db.savepoint { try db.execute("INSERT INTO sp (x) VALUES (2)"); throw Refused() } }
                #expect(db.inTransaction)
                try db.savepoint { try db.execute("INSERT INTO sp (x) VALUES (3)") }
            }
            #expect(!db.inTransaction)
        }
        let kept = try await store.database.read { db in try db.values("SELECT x FROM sp ORDER BY x", as: Int64.self) }
        #expect(kept == [1, 3])
    }

    /// Queued batches of one gallery on PostgreSQL: each its own transaction (a batch follows the
    /// gallery's row under its lock against memory), in the order they came.
    @Test(arguments: Backend.tested.filter { $0 == .postgres }) func queuedBatchesOnPostgreSQLAreEachTheirOwnTransaction(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let (g, sections) = try await makeGallery(store, sections: 2, perSection: 10)
        let start = try await store.snapshot(g.id)
        let a = start.sections[0].items.map(\.id)
        let held = try await HeldWriter(store)
        let tasks = await Self.queue(store, (0..<6).map { k in (g.id, nil, [.move(items: [a[k]], to: .end(section: sections[1]))]) })
        try await held.release()
        let versions = try await tasks.asyncMap { try await $0.value.version }
        #expect(versions == Array(start.version + 1 ... start.version + 6))
        #expect(store.batchGroupStats == BatchGroupStats())
        #expect(try await store.snapshot(g.id).sections[1].items.suffix(6).map(\.id) == Array(a[0..<6]))
    }
}

extension Array {
    func asyncMap<T>(_ body: (Element) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        for e in self { out.append(try await body(e)) }
        return out
    }
}
