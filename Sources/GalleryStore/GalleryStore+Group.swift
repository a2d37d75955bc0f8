import Foundation
import GridEngine
import Synchronization

/// Batches waiting for the writer (`GalleryStore.enqueue`).
struct BatchQueue {
    var waiting: [QueuedBatch] = []
    /// A writer turn is asked for that has not yet taken the batches waiting.
    var scheduled = false
}

/// The transactions that held more than one batch (`GalleryStore.commitGroup`): for tests and
/// the move benchmark.
public struct BatchGroupStats: Sendable, Equatable {
    /// Transactions of two batches or more.
    public var transactions = 0
    /// The batches they held.
    public var batches = 0
    /// The most batches one held.
    public var largest = 0
}

/// A batch and the caller waiting for its answer.
struct QueuedBatch: Sendable {
    let batch: PendingBatch
    let answer: CheckedContinuation<BatchResult, any Error>
}

extension GalleryStore {
    /// Most batches of one gallery in one transaction (issue 15.3); 1: each its own.
    nonisolated(unsafe) public static var batchesPerTransaction = 16

    /// The batches waiting for the writer now (tests: a group forms behind a held writer).
    public var waitingBatchCount: Int { batchQueue.withLock { $0.waiting.count } }
    public var batchGroupStats: BatchGroupStats { groupStats.withLock { $0 } }

    /// Commits a batch on the writer and answers when it is committed and in memory.
    ///
    /// Group commit (issue 15.3): the batches that arrive while the writer is busy wait in
    /// `batchQueue`; the writer's next turn takes the oldest one and the small ones (`isSmall`)
    /// after it of its gallery (at most `batchesPerTransaction`) and commits them in one
    /// transaction, each in its own savepoint, each its own version with its own answer and its
    /// own event on the live streams. A batch refused or failing is rolled back to its savepoint
    /// alone; the others go on. A batch with nothing else waiting, or one that is not small, is a
    /// transaction of its own, as before. SQLite only (`SQLDialect.groupsBatches`). Under 50
    /// clients moving in one gallery, BEGIN and COMMIT and the WAL frames of their pages were a
    /// third of the writer's work per move (session 27); shared, the queue drains faster.
    func enqueue(_ batch: PendingBatch) async throws -> BatchResult {
        try await withCheckedThrowingContinuation { answer in
            let ask = batchQueue.withLock { q in
                q.waiting.append(QueuedBatch(batch: batch, answer: answer))
                if q.scheduled { return false }
                q.scheduled = true
                return true
            }
            if ask { database.writeLater { db in self.commitWaiting(db) } }
        }
    }

    /// One writer turn of the queue: the oldest waiting batch's gallery's batches, in order.
    func commitWaiting(_ db: any SQLConnection) {
        let most = db.dialect.groupsBatches ? max(1, Self.batchesPerTransaction) : 1
        let (group, more) = batchQueue.withLock { q -> ([QueuedBatch], Bool) in
            guard let first = q.waiting.first else { q.scheduled = false; return ([], false) }
            // The first batch and the small ones after it of its gallery, in their order: one that
            // is not small (its answer could take long) closes the group, and nothing of the
            // gallery after it joins (a gallery's batches commit in the order they came).
            var group: [QueuedBatch] = [], rest: [QueuedBatch] = [], open = true
            for b in q.waiting {
                if open, b.batch.gallery == first.batch.gallery {
                    if group.isEmpty || (group.count < most && group[0].batch.isSmall && b.batch.isSmall) {
                        group.append(b)
                        continue
                    }
                    open = false
                }
                rest.append(b)
            }
            q.waiting = rest
            q.scheduled = !rest.isEmpty
            return (group, !rest.isEmpty)
        }
        // The next turn asked for now, behind whatever else waits for the writer.
        if more { database.writeLater { db in self.commitWaiting(db) } }
        if group.count == 1 {
            group[0].answer.resume(with: Result { try commit(db, group[0].batch) })
            return
        }
        var next = 0
        while next < group.count { next = commitGroup(db, group, from: next) }
    }

    /// Batches of one gallery from `start` in one transaction, each in a savepoint, until one
    /// whose version is a catch-up checkpoint (the next batch writes its snapshot: it has to be
    /// in memory first). Answers each, after the commit; memory (the live snapshot, the
    /// catch-up window, the live streams) follows only the commit, in order. Returns where the
    /// next transaction starts.
    func commitGroup(_ db: any SQLConnection, _ group: [QueuedBatch], from start: Int) -> Int {
        let gallery = group[start].batch.gallery
        // The batch that writes the catch-up checkpoint of the version before it (a megabyte at
        // 100k items) runs as a transaction of its own: in a savepoint every page it rewrites is
        // first copied to the savepoint's journal (its checkpoints took 8.4 ms on average in
        // groups against 5.3 ms alone, session 30).
        if live.withLock({ $0[gallery].map { $0.pendingCheckpoint != nil && $0.pendingCheckpoint == $0.version } ?? false }) {
            group[start].answer.resume(with: Result { try commit(db, group[start].batch) })
            return start + 1
        }
        var before: Snapshot
        do { before = try _loadLive(db, gallery) } catch {
            for q in group[start...] { q.answer.resume(throwing: error) }
            return group.count
        }
        live.withLock { state in state[gallery]?.snapshot = Snapshot() }
        var done: [(QueuedBatch, CommittedBatch)] = []
        // The sections and name at the last version committed, then at each batch's of this transaction.
        var known = live.withLock { $0[gallery]?.sectionsAndName }
        // The version the last batch of this transaction made: the next one starts from it without
        // reading the row, and the row is written once, after the last (each batch's read and write
        // of it were ~5 % of the server's CPU under 50 clients moving, issue 15.3).
        var version: Int64?
        // Refused, and whether against a batch of this transaction (then the refusal stands only
        // if the transaction commits).
        var refused: [(QueuedBatch, any Error, afterOthers: Bool)] = []
        var next = start
        var failing: QueuedBatch? // the batch that ended the transaction, if one did
        do {
            try db.transaction {
                while next < group.count {
                    let queued = group[next]
                    next += 1
                    var outcome: (CommittedBatch, Snapshot)?
                    var lost = false
                    do {
                        try db.savepoint {
                            outcome = try self.run(db, queued.batch, before: &before, lockedVersion: version, lost: &lost,
                                                   known: known, writesVersion: false)
                            try self.announce(db, gallery: gallery, version: outcome!.0.version)
                        }
                    } catch {
                        // The transaction is gone (its earlier batches with it): all fail.
                        guard db.inTransaction else { failing = queued; throw error }
                        // Rolled back to the batch's savepoint: the rows are those of the batch
                        // before; `before` too unless the batch changed it (as in `commit`).
                        if outcome != nil || lost {
                            batchRereads.add(1, ordering: .relaxed)
                            do { before = try Self.engineSnapshot(db, gallery) } catch { failing = queued; throw error }
                        }
                        refused.append((queued, error, afterOthers: !done.isEmpty))
                        continue
                    }
                    let (committed, after) = outcome!
                    before = after
                    known = SectionsAndName(committed)
                    version = committed.version
                    done.append((queued, committed))
                    if committed.isCheckpoint { break }
                }
                if let version { try db.execute("UPDATE gallery SET version = ? WHERE id = ?", [version, gallery]) }
            }
        } catch {
            if next == start { // the transaction did not begin: nothing ran
                putBack(gallery, before)
                for q in group[start...] { q.answer.resume(throwing: error) }
                return group.count
            }
            // Nothing of this transaction is in the database: its batches fail (the one that
            // ended it too; one refused against an earlier batch of it was judged on rows that
            // never were), and the live snapshot is read again.
            if !done.isEmpty || !refused.isEmpty { batchRereads.add(1, ordering: .relaxed) }
            putBack(gallery, try? Self.engineSnapshot(db, gallery))
            for (q, _) in done { q.answer.resume(throwing: error) }
            for (q, e, afterOthers) in refused { q.answer.resume(throwing: afterOthers ? error : e) }
            failing?.answer.resume(throwing: error)
            return next
        }
        if start + 1 < next {
            groupStats.withLock { s in
                s.transactions += 1
                s.batches += next - start
                s.largest = max(s.largest, next - start)
            }
        }
        reachMemory(gallery, done.map(\.1), snapshot: before)
        for (q, c) in done { q.answer.resume(returning: c.result) }
        for (q, e, _) in refused { q.answer.resume(throwing: e) }
        return next
    }
}

extension PendingBatch {
    /// One operation that `run` makes on the live snapshot in place (no diff of a section, which
    /// at a million items in one section takes milliseconds) naming few items: a move, copy, trash
    /// or restore of at most 64 items, an insert of at most 64, an upload's outcome, a gallery's
    /// new name. Quick, so it may wait in a group for the others' commit (`commitWaiting`); a
    /// drag's drop is one. Anything else (several operations, a swap, a rename, a purge, a section
    /// operation, an archive's part, a big selection) runs in a transaction of its own.
    var isSmall: Bool {
        guard ops.count == 1 else { return false }
        switch ops[0] {
        case let .client(edit):
            switch edit {
            case .move, .copy, .trash, .restore: return edit.itemCount <= 64
            case .swap, .purge, .renameItem, .createSection, .renameSection, .moveSection, .deleteSection: return false
            }
        case let .insert(items, _): return items.count <= 64
        case .finish, .renameGallery: return true
        case .resize, .finishURL: return false
        }
    }
}
