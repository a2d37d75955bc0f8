import Foundation
import GRDB
import GridEngine
import GalleryCore

extension GalleryStore {
    /// Applies a batch atomically: all operations or none, one new version, one log row.
    /// With `baseVersion`, a gallery that moved on since throws `StoreError.stale`.
    public func apply(gallery: Int64, baseVersion: Int64? = nil, _ ops: [BatchEdit]) async throws -> BatchResult {
        try await apply(gallery: gallery, baseVersion: baseVersion, ops.map(StoreWrite.client), payload: ops)
    }

    public func apply(gallery: Int64, baseVersion: Int64? = nil, _ ops: [StoreWrite], payload: some Encodable & Sendable) async throws -> BatchResult {
        guard !ops.isEmpty else { throw StoreError.invalid("\"operations\" must not be empty") }
        let payloadText = String(decoding: try JSONEncoder().encode(payload), as: UTF8.self)
        // The hot path, the commit of a drag: one item moved. Its snapshot change is made after the
        // commit on the live snapshot itself, uniquely referenced, instead of on a copy: at 100k
        // items a copy-on-write of the id table per move was a quarter of the server's CPU under
        // 50 clients moving (perf, issue 15).
        let singleMove: Bool
        if ops.count == 1, case let .client(.move(ids, _)) = ops[0], ids.count == 1 { singleMove = true } else { singleMove = false }
        return try await pool.writeWithoutTransaction { db in
            var before = try self._loadLive(db, gallery)
            var ctx = BatchContext(db: db, gallery: gallery, work: before, now: Self.now())
            ctx.defersSingleMove = singleMove
            let startChanges = db.totalChangesCount
            var newVersion: Int64 = 0
            var stages: [BatchUpdate] = []
            try db.inTransaction {
                guard let current = try Int64.fetchOne(db.cachedStatement(sql: "SELECT version FROM gallery WHERE id = ?"), arguments: [gallery]) else {
                    throw StoreError.galleryNotFound(gallery)
                }
                if let baseVersion, baseVersion != current {
                    throw StoreError.stale(baseVersion: baseVersion, currentVersion: current)
                }
                for op in ops {
                    do { try ctx.apply(op) } catch let e as SnapshotError { throw StoreError.invalid(e.message) }
                }
                newVersion = current + 1
                // The stages go into the log row with the version, so catch-up survives a restart (CatchUpLog).
                if let move = ctx.deferredMove {
                    stages = Self.singleMoveStages(move.item, to: move.to, in: before)
                } else {
                    stages = Self.stages(ops, from: before, to: ctx.work)
                }
                try db.cachedStatement(sql: "UPDATE gallery SET version = ? WHERE id = ?").execute(arguments: [newVersion, gallery])
                try db.cachedStatement(sql: "INSERT INTO operation (galleryId, version, payload, createdAt, stages) VALUES (?, ?, ?, ?, ?)").execute(
                               arguments: [gallery, newVersion, payloadText, ctx.now, try CatchUpLog.encodeStages(stages)])
                if newVersion % LiveGallery.checkpointEvery == 0, let move = ctx.deferredMove {
                    // A checkpoint needs the snapshot after the move: made on a copy this once.
                    var after = before
                    try after.moveItem(move.item, to: move.to)
                    try CatchUpLog.checkpointIfDue(db, gallery: gallery, version: newVersion, snapshot: after)
                } else {
                    try CatchUpLog.checkpointIfDue(db, gallery: gallery, version: newVersion, snapshot: ctx.work)
                }
                return .commit
            }
            let rows = db.totalChangesCount - startChanges
            // Committed: from here on nothing may fail the request, memory follows the database.
            let changes = try Self.changesJSON(db, gallery, from: newVersion - 1, to: newVersion, stages: StageJSON.stages(stages, from: before), touched: ctx.touched)
            var orphaned: [String] = []
            for hash in ctx.purgedHashes.sorted() {
                if try !(Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM item WHERE fileHash = ?)", arguments: [hash]) ?? true) {
                    orphaned.append(hash)
                }
            }
            if let move = ctx.deferredMove {
                // Nothing else of this batch holds the live snapshot now: the move is made in place.
                before = Snapshot()
                ctx.work = Snapshot()
                self.live.withLock { state in
                    guard var g = state.removeValue(forKey: gallery) else { return }
                    var after = g.snapshot
                    g.snapshot = Snapshot()
                    do { try after.moveItem(move.item, to: move.to) } catch {
                        // Cannot happen (the destination was resolved on this snapshot under the writer);
                        // if it did, the gallery is read again from the database on next use.
                        for (_, c) in g.subscribers { c.finish() }
                        return
                    }
                    g.commit(version: newVersion, stages: stages, after: after)
                    for (_, c) in g.subscribers { c.yield(.changes(changes)) }
                    state[gallery] = g
                }
            } else {
                self.live.withLock { state in
                    state[gallery]?.commit(version: newVersion, stages: stages, after: ctx.work)
                    for (_, c) in state[gallery]?.subscribers ?? [:] { c.yield(.changes(changes)) }
                }
            }
            return BatchResult(version: newVersion, changes: changes, createdItems: ctx.createdItems,
                               createdSections: ctx.createdSections, rowsWritten: rows, orphanedHashes: orphaned)
        }
    }

    /// The stage of one item moved to `to` (an index path in the snapshot after the move).
    static func singleMoveStages(_ item: ItemID, to: GridEngine.IndexPath, in before: Snapshot) -> [BatchUpdate] {
        guard let from = before.indexPath(of: item), from != to else { return [] }
        var b = BatchUpdate()
        b.itemMoves = [ItemMove(from: from, to: to)]
        var counts = (0..<before.sectionCount).map { before.itemCount(inSection: $0) }
        counts[from.section] -= 1
        counts[to.section] += 1
        b.itemCountsAfter = counts
        return [b]
    }

    /// The staged changes of a batch. A batch that moved one item (the commit of a drag, the hot
    /// path) is one stage with one move, built directly; anything else is the engine's diff,
    /// which walks the whole gallery (about 1.6 ms at 100k items).
    static func stages(_ ops: [StoreWrite], from before: Snapshot, to after: Snapshot) -> [BatchUpdate] {
        if ops.count == 1, case let .client(.move(ids, _)) = ops[0], ids.count == 1,
           let from = before.indexPath(of: ItemID(UInt64(ids[0]))), let to = after.indexPath(of: ItemID(UInt64(ids[0]))) {
            if from == to { return [] }
            var b = BatchUpdate()
            b.itemMoves = [ItemMove(from: from, to: to)]
            b.itemCountsAfter = (0..<after.sectionCount).map { after.itemCount(inSection: $0) }
            assert((try? before.applying(b)) == after, "single-move stage does not replay")
            return [b]
        }
        return (try? StagedChangeset(from: before, to: after).stages) ?? []
    }

    /// The live engine snapshot of a gallery, loaded from rows on first use. Runs on the writer
    /// queue, so no commit can slip between the read and the cache.
    func _loadLive(_ db: Database, _ gallery: Int64) throws -> Snapshot {
        if let s = live.withLock({ $0[gallery]?.snapshot }) { return s }
        guard let version = try Int64.fetchOne(db, sql: "SELECT version FROM gallery WHERE id = ?", arguments: [gallery]) else {
            throw StoreError.galleryNotFound(gallery)
        }
        let snapshot = try Self.engineSnapshot(db, gallery)
        // The catch-up window of earlier runs, from the checkpoints and stages in the database.
        let restored = try CatchUpLog.restore(db, gallery: gallery, version: version, snapshot: snapshot)
        live.withLock { state in
            if state[gallery] == nil { state[gallery] = restored }
        }
        return snapshot
    }

    static func changesJSON(_ db: Database, _ gallery: Int64, from: Int64, to: Int64, stages: [StageJSON], touched: Set<Int64>) throws -> ChangesJSON {
        let items: [ItemJSON]
        if touched.isEmpty {
            items = []
        } else {
            items = try ItemRecord.fetchAll(db, sql: "SELECT * FROM item WHERE id IN (\(touched.sorted().map(String.init).joined(separator: ",")))").map(\.json)
        }
        let sections = try Row.fetchAll(db.cachedStatement(sql: "SELECT id, title FROM section WHERE galleryId = ? AND deleted = 0 ORDER BY rank, id"), arguments: [gallery])
            .map { SectionInfoJSON(id: $0["id"], title: $0["title"]) }
        let name = try String.fetchOne(db.cachedStatement(sql: "SELECT name FROM gallery WHERE id = ?"), arguments: [gallery])
        return ChangesJSON(fromVersion: from, toVersion: to, stages: stages, items: items, sections: sections, name: name)
    }

    /// Items of `target` that are new or whose content version differs from `source`.
    static func touched(from source: Snapshot, to target: Snapshot) -> Set<Int64> {
        var out: Set<Int64> = []
        for s in 0..<target.sectionCount {
            let ids = target.items(inSection: s), versions = target.versions(inSection: s)
            for i in 0..<ids.count where source.version(of: ids[i]) != versions[i] { out.insert(Int64(ids[i].rawValue)) }
        }
        return out
    }

    /// What changed since `version`: the engine's staged diff from the snapshot at that version
    /// (rebuilt from the window, which survives restarts: CatchUpLog) to now, or nil when the
    /// version is outside the window.
    public func changes(gallery: Int64, since version: Int64) async throws -> ChangesJSON? {
        guard let old = try await snapshot(gallery: gallery, at: version) else { return nil }
        return try await pool.writeWithoutTransaction { db in
            let (current, now) = try self.current(db, gallery)
            let stages = try StagedChangeset(from: old, to: now).stages
            return try Self.changesJSON(db, gallery, from: version, to: current, stages: StageJSON.stages(stages, from: old), touched: Self.touched(from: old, to: now))
        }
    }

    /// The version and engine snapshot of a gallery now (on the writer's queue: nothing commits meanwhile).
    func current(_ db: Database, _ gallery: Int64) throws -> (Int64, Snapshot) {
        _ = try _loadLive(db, gallery)
        guard let now = live.withLock({ state in state[gallery].map { ($0.version, $0.snapshot) } }) else {
            throw StoreError.galleryNotFound(gallery)
        }
        return now
    }

    /// The snapshot at an older version, or nil outside the window. Rebuilding it replays up to a
    /// few hundred versions (each O(n)); that runs on a copy of the window, outside the lock and
    /// off the writer's queue — the history below the current version never changes — and what
    /// the replay learned about the window (a stretch checked, or cut) is kept.
    func snapshot(gallery: Int64, at version: Int64) async throws -> Snapshot? {
        try await pool.writeWithoutTransaction { db in _ = try self._loadLive(db, gallery) }
        guard var copy = live.withLock({ $0[gallery] }) else { throw StoreError.galleryNotFound(gallery) }
        copy.subscribers = [:]
        let old = copy.snapshot(at: version)
        live.withLock { state in state[gallery]?.learn(from: copy) }
        return old
    }

    /// A live stream of the gallery's versions. With `since`, it starts with the changes from
    /// that version to now (or the full snapshot when that version is outside the window); then
    /// every committed version, in order, with nothing skipped.
    public func subscribe(gallery: Int64, since: Int64?) async throws -> (AsyncStream<GalleryEvent>, cancel: @Sendable () -> Void) {
        let id = nextSubscriber.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream<GalleryEvent>.makeStream(bufferingPolicy: .unbounded)
        let old = try await since.asyncFlatMap { try await self.snapshot(gallery: gallery, at: $0) }
        try await pool.writeWithoutTransaction { db in
            // On the writer queue: no commit can happen between the catch-up and the registration.
            let (current, now) = try self.current(db, gallery)
            if let since, since != current {
                if let old {
                    let stages = try StagedChangeset(from: old, to: now).stages
                    continuation.yield(.changes(try Self.changesJSON(db, gallery, from: since, to: current, stages: StageJSON.stages(stages, from: old),
                                                                      touched: Self.touched(from: old, to: now))))
                } else {
                    continuation.yield(.snapshot(try Self.snapshot(db, gallery)))
                }
            } else if since == nil {
                continuation.yield(.snapshot(try Self.snapshot(db, gallery)))
            }
            self.live.withLock { state in state[gallery]?.subscribers[id] = continuation }
        }
        let cancel: @Sendable () -> Void = { [weak self] in
            _ = self?.live.withLock { state in state[gallery]?.subscribers.removeValue(forKey: id) }
            continuation.finish()
        }
        continuation.onTermination = { _ in cancel() }
        return (stream, cancel)
    }
}

extension Optional {
    func asyncFlatMap<U>(_ transform: (Wrapped) async throws -> U?) async rethrows -> U? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
