import Foundation
import GridEngine
import GalleryCore

extension GalleryStore {
    /// Applies a batch atomically: all operations or none, one new version, one log row.
    /// With `baseVersion`, a gallery that moved on since throws `StoreError.stale`.
    /// With `maxItems` (the server's batch limit), a batch whose operations name more items than
    /// that, counting the live items of each section it deletes (a section delete puts them all in
    /// the trash: its rows are what holds the writer), throws `StoreError.tooManyItems` and
    /// nothing is written; the caller sends such a section's items to the trash in parts first.
    public func apply(gallery: Int64, baseVersion: Int64? = nil, _ ops: [BatchEdit], maxItems: Int? = nil) async throws -> BatchResult {
        try await apply(gallery: gallery, baseVersion: baseVersion, ops.map(StoreWrite.client), payload: ops, maxItems: maxItems)
    }

    /// The log row's text of a batch: a drag's single move written directly (JSONEncoder's key
    /// order is its dictionary's, not fixed, so any order is as good; the hot path, issue 15.3).
    static func payloadText(_ payload: some Encodable) throws -> String {
        if let ops = payload as? [BatchEdit], ops.count == 1, case let .move(items, .index(section, index)) = ops[0], items.count == 1 {
            var w = AnswerJSONWriter(capacity: 96)
            w.raw("[{\"items\":["); w.int(items[0])
            w.raw("],\"op\":\"move\",\"to\":{\"index\":"); w.int(index)
            w.raw(",\"section\":"); w.int(section)
            w.raw("}}]")
            return String(decoding: w.bytes, as: UTF8.self)
        }
        return String(decoding: try JSONEncoder().encode(payload), as: UTF8.self)
    }

    public func apply(gallery: Int64, baseVersion: Int64? = nil, _ ops: [StoreWrite], payload: some Encodable & Sendable,
                      maxItems: Int? = nil) async throws -> BatchResult {
        guard !ops.isEmpty else { throw StoreError.invalid("\"operations\" must not be empty") }
        let batch = PendingBatch(gallery: gallery, baseVersion: baseVersion, ops: ops,
                                 payload: try Self.payloadText(payload), maxItems: maxItems)
        return try await enqueue(batch)
    }

    /// Runs a batch in one write transaction; memory (the live snapshot, the catch-up window,
    /// live streams) follows only after the commit. If the transaction fails, nothing of it is
    /// in memory.
    func commit(_ db: any SQLConnection, _ batch: PendingBatch) throws -> BatchResult {
        let gallery = batch.gallery
        var before = try _loadLive(db, gallery)
        // Taken out of the live map meanwhile, so that a single move is made in place without a
        // copy (only this writer turn reads a live snapshot; catch-up copies read the window's
        // checkpoints and log). Put back after the commit; after a failure, the one it was.
        live.withLock { state in state[gallery]?.snapshot = Snapshot() }
        var outcome: (CommittedBatch, Snapshot)?
        var lost = false
        do {
            try db.transaction {
                // PostgreSQL: the row locked and another instance's versions followed first.
                let locked = try self.followRow(db, gallery, snapshot: &before)
                outcome = try self.run(db, batch, before: &before, lockedVersion: locked, lost: &lost,
                                       known: self.live.withLock { $0[gallery]?.sectionsAndName })
                try self.announce(db, gallery: gallery, version: outcome!.0.version) // PostgreSQL: NOTIFY, sent at the commit
            }
        } catch {
            // `before` is intact unless the batch ran to its end (then the commit itself failed)
            // or a batch made in place failed after its first change (`lost`: only the database
            // can fail then, every check that refuses a batch ran before it): the rows are as
            // they were, so read them again.
            let reread = outcome != nil || lost
            if reread { batchRereads.add(1, ordering: .relaxed) }
            putBack(gallery, reread ? try? Self.engineSnapshot(db, gallery) : before)
            throw error
        }
        guard let (done, after) = outcome else { throw StoreError.corrupt("a batch committed without an answer") }
        reachMemory(gallery, [done], snapshot: after)
        return done.result
    }

    /// Memory after a commit: each batch's version into the catch-up window and its changes to the
    /// live streams, in order, then the snapshot after the last.
    func reachMemory(_ gallery: Int64, _ batches: [CommittedBatch], snapshot: Snapshot) {
        live.withLock { state in
            for done in batches {
                if let wrote = done.wroteCheckpoint, state[gallery]?.pendingCheckpoint == wrote { state[gallery]?.pendingCheckpoint = nil }
                state[gallery]?.commit(version: done.version, stages: done.stages, isCheckpoint: done.isCheckpoint)
                for (_, c) in state[gallery]?.subscribers ?? [:] { c.yield(.changes(done.result.changes)) }
            }
            if let last = batches.last { state[gallery]?.sectionsAndName = SectionsAndName(last) }
            state[gallery]?.snapshot = snapshot
            state[gallery]?.itemCount = snapshot.itemCount
        }
    }

    /// Memory after a transaction that did not commit: the live snapshot as the rows are (nil:
    /// unreadable now — forgotten, read again on next use; its streams reconnect).
    func putBack(_ gallery: Int64, _ rows: Snapshot?) {
        live.withLock { state in
            if let rows { state[gallery]?.snapshot = rows } else {
                for (_, c) in state.removeValue(forKey: gallery)?.subscribers ?? [:] { c.finish() }
            }
        }
    }

    /// A batch inside its transaction: the rows, the new version, the log row (the stages with
    /// their ids), the previous version's checkpoint when it was one, and the answer. `before` is the gallery's snapshot at the previous version; it is consumed
    /// (left empty) when the batch is made in place (a single move, an insert, an outcome; one
    /// move of several items, copy, trash or restore: `changesInPlace`). Answers the snapshot after.
    /// `lockedVersion`: the gallery's version already read under its row lock in this transaction
    /// (PostgreSQL's `followRow`), so it is not read twice.
    /// `lost` is set when it throws with `before` consumed and changed half way (a batch made in
    /// place that failed after its first change: the caller reads the rows again).
    /// `known`: the sections and name at a version, from the last batch committed or the one
    /// before in this transaction (a hot-path batch at that version answers them without reading).
    /// `writesVersion` false: the gallery row's version is left to the caller (a group writes the
    /// last batch's once, before its commit: `commitGroup`).
    func run(_ db: any SQLConnection, _ batch: PendingBatch, before: inout Snapshot, lockedVersion: Int64?, lost: inout Bool,
             known: SectionsAndName? = nil, writesVersion: Bool = true) throws -> (CommittedBatch, Snapshot) {
        let gallery = batch.gallery, ops = batch.ops
        let pendingCheckpoint = live.withLock { $0[gallery]?.pendingCheckpoint }
        var ctx = BatchContext(db: db, gallery: gallery, work: before, now: Self.now())
        // The hot path, the commit of a drag: one item moved. It is made on the snapshot in place
        // (uniquely referenced: at 100k items a copy-on-write of the id table per move was a
        // quarter of the server's CPU under 50 clients moving, issue 15).
        // The same for one upload's file (an insert) and one photo becoming ready (a reload): at a
        // million items a copy and a diff of the whole gallery per version made an upload of 1,000
        // files take minutes and gigabytes (issue 15's limits).
        if ops.count == 1 {
            switch ops[0] {
            case let .client(.move(ids, _)) where ids.count == 1: ctx.defersInPlace = true
            case .insert, .finish: ctx.defersInPlace = true
            default: break
            }
            ctx.soleOperation = !ctx.defersInPlace && Self.recordsStages
        }
        ctx.startChanges = db.totalChanges
        if let maxItems = batch.maxItems {
            let named = ops.reduce(0) { n, op in if case let .client(o) = op { n + o.itemCount } else { n } }
            guard named <= maxItems else { throw StoreError.tooManyItems(limit: maxItems, named: named) }
            ctx.sectionItemsAllowed = (limit: maxItems, left: maxItems - named)
        }
        // PostgreSQL: the gallery's row is locked until the commit, so versions stay serial
        // whatever else writes (SQLite has one writer anyway).
        guard let current = try lockedVersion ?? db.value("SELECT version FROM gallery WHERE id = ? AND deleting = 0" + db.dialect.lockRow, [gallery], as: Int64.self) else {
            throw StoreError.galleryNotFound(gallery)
        }
        if let baseVersion = batch.baseVersion, baseVersion != current {
            throw StoreError.stale(baseVersion: baseVersion, currentVersion: current)
        }
        // A move of several items, a copy, a trash or a restore as the batch's one operation is
        // made on the live snapshot in place too: `before` handed over, not copied (at 1M items
        // the copy-on-write of the id table was most of a 10-item batch's 18 ms, issue 15). Its
        // checks all run before its first change to `work` (`BatchContext.changedWork`), so a
        // refused batch leaves it as it was; after that only the database can fail, and then the
        // rows are read again (`lost`). Not when the previous version's checkpoint is due (it
        // is written from `before`: one version in many, which writes the whole gallery anyway).
        let itemCountBefore = before.itemCount
        // A batch of several operations is made in place as well, its sections before kept
        // (O(sections): their arrays are shared until an operation changes one): its stages are
        // the diff of the sections it changed (`StagedChangeset(from:to:)` on them), and a refusal
        // or a failure half way puts the snapshot back the same way (`Snapshot.revert(to:)`).
        // At 1M items the copy of the id table was 13–50 ms of a batch of two moves. The items
        // its operations name are the only ones that can leave their order (`namedItems`), so the
        // diff walks the changed sections without an id table (`Snapshot.sections(naming:)`).
        // Sections added, removed or moved too (session 18: a section op or a restore past 50,000
        // items copied the snapshot and diffed the whole gallery), and so is a sole operation that
        // records no stage of its own (a section op, a swap, a purge, a rename).
        let several = ops.count > 1
            || (Self.sectionsInPlace && ctx.soleOperation && Self.restoresBySeek && !Self.changesInPlace(ops[0]))
        let named = several && Self.batchesInPlace && Self.recordsStages && Self.diffsChangedSectionsOnly
            && pendingCheckpoint != current ? Self.namedItems(ops, itemCount: before.itemCount) : nil
        let severalInPlace = named != nil
        let madeInPlace = severalInPlace
            || (ctx.soleOperation && Self.batchesInPlace && pendingCheckpoint != current && Self.changesInPlace(ops[0]))
        let sectionsBefore = named.map { before.sections(naming: $0.items, wholeSections: $0.sections) }
        // Debug builds keep the snapshot before to check the recorded stage against it.
        var checked: Snapshot?
        if madeInPlace {
            assert({ checked = before; return true }())
            before = Snapshot()
            inPlaceBatches.add(1, ordering: .relaxed)
        }
        do {
            for op in ops {
                do { try ctx.apply(op) } catch let e as SnapshotError { throw StoreError.invalid(e.message) }
            }
            return try finish(db, batch, ctx: &ctx, before: &before, madeInPlace: madeInPlace, sectionsBefore: sectionsBefore,
                              checked: checked, itemCountBefore: itemCountBefore, current: current, pendingCheckpoint: pendingCheckpoint,
                              known: known, writesVersion: writesVersion)
        } catch {
            if let sectionsBefore {
                ctx.work.revert(to: sectionsBefore)
                assert(checked.map { $0 == ctx.work } ?? true, "a batch put back is not the snapshot before")
                before = ctx.work
            } else if madeInPlace {
                if ctx.changedWork { lost = true } else { before = ctx.work }
            }
            throw error
        }
    }

    /// The items a batch of several operations names — moved, swapped, trashed, copied from,
    /// renamed, settled, resized, anchors — when it is one `run` makes in place: its other items
    /// keep their order and section, so its diff needs to look up only these. A section it deletes
    /// is named whole (`sections`: a restore in the same batch may bring it back with some of its
    /// items); a section it creates or moves, and a restore (its items come back as new ones,
    /// reviving their section if it was deleted), name nothing: the diff matches sections by id
    /// (`StagedChangeset(from:to:)` on `Snapshot.Sections`, O(sections + the items of the sections
    /// changed)). Nil (the snapshot copied and the whole gallery diffed) only for outcomes settled
    /// by address (`finishURL`: the items it settles are found in the rows), and in the baseline
    /// (`sectionsInPlace` false) for a section op or a restore past 50,000 items.
    static func namedItems(_ ops: [StoreWrite], itemCount: Int) -> (items: [ItemID], sections: [SectionID])? {
        var ids: [Int64] = [], sections: [SectionID] = []
        let copiesPastThreshold = !sectionsInPlace && itemCount > 50_000 // the baseline before session 18
        func destination(_ d: Destination) {
            switch d {
            case .index, .end: break
            case let .before(anchor), let .after(anchor): ids.append(anchor)
            }
        }
        for op in ops {
            switch op {
            case let .client(.move(items, to)), let .client(.copy(items, to)): ids += items; destination(to)
            case let .client(.swap(a, b)): ids += [a, b]
            case let .client(.trash(items)), let .client(.purge(items)): ids += items
            case let .client(.renameItem(id, _)), let .finish(id, _, _), let .resize(id, _, _): ids.append(id)
            case let .insert(_, to): destination(to)
            case .renameGallery: break
            case .client(.restore), .client(.createSection), .client(.renameSection), .client(.moveSection):
                if copiesPastThreshold { return nil }
            case let .client(.deleteSection(id)):
                if copiesPastThreshold { return nil }
                sections.append(SectionID(UInt64(bitPattern: id)))
            case .finishURL: return nil
            }
        }
        return (ids.map { ItemID(UInt64(bitPattern: $0)) }, sections)
    }

    /// The stages of a diff from `before`'s sections (`StagedChangeset`: deletes and reloads
    /// in its first stage, at positions before; moves in its last, to positions after) as JSON
    /// with the ids they name, read from the sections before and the snapshot after — a batch
    /// made in place has no whole snapshot before.
    static func stagesJSON(_ updates: [BatchUpdate], before: Snapshot.Sections, after: Snapshot) -> [StageJSON] {
        updates.enumerated().map { k, u in
            var json = StageJSON(u)
            if (k == 0 || (u.itemDeletes.isEmpty && u.itemReloads.isEmpty)) && (k == updates.count - 1 || u.itemMoves.isEmpty)
                && u.itemDeletes.allSatisfy(before.isValid) && u.itemReloads.allSatisfy({ before.isValid($0.at) })
                && u.itemMoves.allSatisfy({ after.isValid($0.to) }) {
                json.deletedIDs = u.itemDeletes.map { before.itemID(at: $0).rawValue }
                json.movedIDs = u.itemMoves.map { after.itemID(at: $0.to).rawValue }
                json.reloadedIDs = u.itemReloads.map { before.itemID(at: $0.at).rawValue }
            }
            return json
        }
    }

    /// Whether a sole operation is one `run` makes on the live snapshot in place (it records its stage).
    static func changesInPlace(_ op: StoreWrite) -> Bool {
        switch op {
        case .client(.move), .client(.copy), .client(.trash): true
        case .client(.restore): restoresBySeek // the baseline before session 15 diffs its stage from the snapshot before
        default: false
        }
    }

    /// The rest of `run` once the operations are made: the stages, the version, the log row, the answer.
    private func finish(_ db: any SQLConnection, _ batch: PendingBatch, ctx: inout BatchContext, before: inout Snapshot, madeInPlace: Bool,
                        sectionsBefore: Snapshot.Sections?, checked: Snapshot?, itemCountBefore: Int, current: Int64,
                        pendingCheckpoint: Int64?, known: SectionsAndName?, writesVersion: Bool) throws -> (CommittedBatch, Snapshot) {
        let gallery = batch.gallery
        let startChanges = ctx.startChanges
        let newVersion = current + 1
        let inPlace = ctx.deferred
        let stages: [StageJSON]
        if let inPlace {
            let updates = inPlace.stages(in: ctx.work)
            stages = StageJSON.stages(updates, from: ctx.work)
            assert({
                var after = before, replayed: Snapshot? = before
                try? inPlace.apply(to: &after)
                for u in updates { replayed = try? replayed?.applying(u) }
                return replayed == after
            }(), "an in-place change's stage does not replay")
            ctx.work = Snapshot()
        } else if ctx.defersInPlace {
            stages = [] // an outcome for an item no longer pending, an empty insert: nothing changed
            ctx.work = Snapshot()
        } else if var known = ctx.stage, madeInPlace {
            // Made in place: the stage's ids as the operation took them, before its change.
            known.itemCountsAfter = (0..<ctx.work.sectionCount).map { ctx.work.itemCount(inSection: $0) }
            var json = StageJSON(known)
            json.deletedIDs = ctx.stageDeletedIDs
            json.movedIDs = ctx.stageMovedIDs
            json.reloadedIDs = []
            stages = [json]
            assert(checked.map { (try? $0.applying(known)) == ctx.work } ?? true, "a recorded stage does not replay")
            assert(checked.map { StageJSON.stages([known], from: $0) == stages } ?? true, "a recorded stage's ids are not the snapshot's")
        } else if var known = ctx.stage {
            // A move, copy, trash or restore of several items, its stage recorded as it was made.
            known.itemCountsAfter = (0..<ctx.work.sectionCount).map { ctx.work.itemCount(inSection: $0) }
            assert((try? before.applying(known)) == ctx.work, "a recorded stage does not replay")
            stages = StageJSON.stages([known], from: before)
        } else if let sectionsBefore {
            // Several operations made in place: the diff of the sections they changed.
            let updates = (try? StagedChangeset(from: sectionsBefore, to: ctx.work).stages) ?? []
            stages = Self.stagesJSON(updates, before: sectionsBefore, after: ctx.work)
            assert(checked.map { StageJSON.stages(updates, from: $0) == stages } ?? true, "a batch's stage ids are not the snapshot's")
            assert(checked.map { c in (try? updates.reduce(c) { try $0.applying($1) }) == ctx.work } ?? true, "a batch's stages do not replay")
        } else {
            stages = StageJSON.stages(Self.stages(from: before, to: ctx.work), from: before)
        }
        // The checkpoint of the previous version, if it was one: `before` is its snapshot.
        if pendingCheckpoint == current {
            let started = DispatchTime.now().uptimeNanoseconds
            let bytes = try CatchUpLog.writeCheckpoint(db, gallery: gallery, version: current, snapshot: before, compact: false)
            let took = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            historyCheckpoints.withLock { $0.add(seconds: took, bytes: bytes) }
        }
        let isCheckpoint = LiveGallery.isCheckpoint(newVersion, itemCount: itemCountBefore, every: historyEvery)
        if writesVersion { try db.execute("UPDATE gallery SET version = ? WHERE id = ?", [newVersion, gallery]) }
        // The stages go into the log row with the version, so catch-up survives a restart (CatchUpLog).
        try db.execute("INSERT INTO operation (galleryId, version, payload, createdAt, stages) VALUES (?, ?, ?, ?, ?)",
                       [gallery, newVersion, batch.payload, ctx.now, try CatchUpLog.encodeStages(stages)])
        let rows = db.totalChanges - startChanges + (writesVersion ? 0 : 1) // the version's row, written by the group
        // The window's compaction, a step every few versions (not counted in the batch's rows).
        if newVersion % CatchUpLog.compactEvery == 0 { try CatchUpLog.compactStep(db, gallery: gallery) }
        // A hot-path batch (one item moved, an insert, an outcome) changes neither the sections nor
        // the name, and every change to them is a batch's, which makes a new version: at the
        // version they were read at they are still so. Under 50 clients moving, reading them
        // was ~7 % of the writer's time (issue 15.3).
        let reused = ctx.defersInPlace ? known.flatMap { $0.version == current ? $0 : nil } : nil
        assert(reused.map { r in (try? Self.sectionsAndName(db, gallery, version: current)) == r } ?? true,
               "the sections and name kept for version \(current) are not the rows'")
        let changes = try Self.changesJSON(db, gallery, from: current, to: newVersion, stages: stages, touched: ctx.touched, known: reused)
        var orphaned: [String] = []
        for hash in ctx.purgedHashes.sorted() {
            if try !db.exists("SELECT 1 FROM item WHERE fileHash = ?", [hash]) {
                orphaned.append(hash)
            }
        }
        let result = BatchResult(version: newVersion, changes: changes, createdItems: ctx.createdItems,
                                 createdSections: ctx.createdSections, rowsWritten: rows, orphanedHashes: orphaned)
        let after: Snapshot
        if ctx.defersInPlace {
            // Last, when nothing can fail any more: nothing else holds the snapshot, so the change
            // is made in place.
            var changed = before
            before = Snapshot()
            do { try inPlace?.apply(to: &changed) } catch {
                before = changed
                throw error
            }
            after = changed
        } else {
            after = ctx.work
        }
        return (CommittedBatch(version: newVersion, stages: stages, isCheckpoint: isCheckpoint,
                               wroteCheckpoint: pendingCheckpoint == current ? current : nil, result: result), after)
    }

    /// Whether a batch of one move, copy or trash records its stage as it goes (`BatchContext.stage`);
    /// false only for `gallery-bench limits`' baseline, which diffs the whole gallery instead.
    nonisolated(unsafe) public static var recordsStages = true

    /// Whether a batch of one move of several items, copy, trash or restore is made on the live
    /// snapshot in place (`run`); false only for `gallery-bench limits`' baseline, which copies
    /// the whole snapshot first (before session 16).
    nonisolated(unsafe) public static var batchesInPlace = true

    /// Whether a restore finds each item's place by index seeks (`BatchContext.restoreMany`) and
    /// records its stage; false only for `gallery-bench limits --restore`'s baseline, which reads
    /// each touched section's live rows and diffs the whole gallery (before session 15).
    nonisolated(unsafe) public static var restoresBySeek = true

    /// The staged changes of a batch that is not one of the in-place hot paths (`InPlaceChange`):
    /// the engine's diff. `after` is a copy of `before` edited, so it compares only the sections
    /// the batch changed (`StagedChangeset(from:to:)`): a batch of two moves at 1M items took
    /// 30 ms when it walked the whole gallery (issue 15's limits).
    static func stages(from before: Snapshot, to after: Snapshot) -> [BatchUpdate] {
        guard diffsChangedSectionsOnly else { return (try? StagedChangeset(wholeFrom: before, to: after).stages) ?? [] }
        return (try? StagedChangeset(from: before, to: after).stages) ?? []
    }

    /// Whether a batch that adds, removes or moves a section, or restores items, is made in place
    /// (`namedItems`), and so is a sole operation that records no stage of its own; false only for
    /// `gallery-bench limits --section-ops`' baseline: past 50,000 items such a batch copied the
    /// snapshot and diffed the whole gallery with id tables (before session 18), and a sole one always did.
    nonisolated(unsafe) public static var sectionsInPlace = true

    /// Whether a batch's diff compares only the sections it changed; false only for
    /// `gallery-bench limits --whole-diff-baseline` (every section compared, before session 17).
    nonisolated(unsafe) public static var diffsChangedSectionsOnly = true

    /// The live engine snapshot of a gallery, loaded from rows on first use. Runs on the writer
    /// queue, so no commit can slip between the read and the cache.
    func _loadLive(_ db: any SQLConnection, _ gallery: Int64) throws -> Snapshot {
        if let s = live.withLock({ $0[gallery]?.snapshot }) { return s }
        // PostgreSQL: in a transaction holding the row (`FOR SHARE`), so that no other instance
        // commits between the version read and the rows read.
        if db.dialect.fansOut, let pg = db as? PGConnection, !pg.inTransaction { return try db.transaction { try self._loadLive(db, gallery) } }
        guard let version = try db.value("SELECT version FROM gallery WHERE id = ? AND deleting = 0" + db.dialect.shareRow, [gallery], as: Int64.self) else {
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

    /// `known`: the gallery's sections and name as they are now (then not read).
    static func changesJSON(_ db: any SQLConnection, _ gallery: Int64, from: Int64, to: Int64, stages: [StageJSON], touched: Set<Int64>,
                            known: SectionsAndName? = nil) throws -> ChangesJSON {
        let items: [ItemJSON]
        if touched.isEmpty {
            items = []
        } else {
            items = try db.fetchAll("SELECT * FROM item WHERE id IN (\(touched.sorted().map(String.init).joined(separator: ","))) ORDER BY id",
                                    [], cached: false).map { ItemRecord($0).json }
        }
        let now = try known ?? sectionsAndName(db, gallery, version: to)
        return ChangesJSON(fromVersion: from, toVersion: to, stages: stages, items: items, sections: now.sections, name: now.name)
    }

    /// The gallery's sections in order and its name, read now (`version`: the version they are read at).
    static func sectionsAndName(_ db: any SQLConnection, _ gallery: Int64, version: Int64) throws -> SectionsAndName {
        let sections = try db.fetchAll("SELECT id, title FROM section WHERE galleryId = ? AND deleted = 0 ORDER BY rank, id", [gallery])
            .map { SectionInfoJSON(id: $0["id"], title: $0["title"]) }
        let name = try db.value("SELECT name FROM gallery WHERE id = ?", [gallery], as: String.self)
        return SectionsAndName(version: version, sections: sections, name: name)
    }

    /// What changed since `version`: the stages of every version since, as they were streamed
    /// (the window survives restarts: CatchUpLog), with the data of the items they insert or
    /// reload — O(changes), not O(gallery) — or nil when the version is outside the window.
    public func changes(gallery: Int64, since version: Int64) async throws -> ChangesJSON? {
        guard try await checkHistory(gallery: gallery, from: version) else { return nil }
        return try await database.writeWithoutTransaction { db in try self.catchUp(db, gallery, since: version) }
    }

    /// The catch-up from `version` to now, on the writer's queue (nothing commits meanwhile);
    /// nil outside the window.
    func catchUp(_ db: any SQLConnection, _ gallery: Int64, since version: Int64) throws -> ChangesJSON? {
        let (current, _) = try self.current(db, gallery)
        // The log taken under the lock, its stages copied outside it (the gallery list reads the lock).
        guard let entries = live.withLock({ $0[gallery]?.logAfter(version) }) else { return nil }
        let all = LiveGallery.parts(of: entries, versions: .max, now: current)[0]
        return try Self.changesJSON(db, gallery, from: version, to: current, stages: all.stages, touched: all.arriving)
    }

    /// Versions in one `changes` event of a live stream's catch-up. A window back after 10,000
    /// versions of a 1M gallery got them as one event of 7.9 MB, which its page parsed in one task;
    /// in parts of 256 versions (~200 KB at 1M items) each is parsed and applied on its own.
    public static let streamCatchUpVersions = 256

    /// The catch-up from `version` to now as the live stream sends it: changes of at most
    /// `streamCatchUpVersions` versions each, chained (each from the previous one's `toVersion`,
    /// the first from `version`, the last to now); nil outside the window. On the writer's queue.
    ///
    /// Ten windows back at the same version at once made it ten times on the writer's queue
    /// (10,000 versions at 1M items: the log's stages copied, 40 parts each reading the sections
    /// and the name), and a move waited behind them (BENCHMARKS.md, "Ten windows at once").
    /// Now the log is cut outside the lock, the rows are read once for all parts, and the parts
    /// are kept for the next stream that asks for the same versions (`sharedCatchUp`: the last
    /// one, whatever its gallery; nothing commits between two turns of the writer's queue at the
    /// same version, and a catch-up is the same for the same gallery and versions).
    func catchUpParts(_ db: any SQLConnection, _ gallery: Int64, since version: Int64) throws -> [ChangesJSON]? {
        let (current, _) = try self.current(db, gallery)
        let key = SharedCatchUp.Key(gallery: gallery, from: version, to: current)
        if let shared = sharedCatchUp.withLock({ $0?.key == key ? $0?.parts : nil }) { return shared }
        guard let entries = live.withLock({ $0[gallery]?.logAfter(version) }) else { return nil }
        let parts = LiveGallery.parts(of: entries, versions: Self.streamCatchUpVersions, now: current)
        let out = try Self.changesJSON(db, gallery, from: version, parts: parts)
        sharedCatchUp.withLock { $0 = SharedCatchUp(key: key, parts: out) }
        return out
    }

    /// `changesJSON` for each of chained parts (the first from `from`), the rows read once: the
    /// sections and the name at now, and the items any part inserts or reloads.
    static func changesJSON(_ db: any SQLConnection, _ gallery: Int64, from: Int64,
                            parts: [(to: Int64, stages: [StageJSON], arriving: Set<Int64>)]) throws -> [ChangesJSON] {
        let arriving = parts.reduce(into: Set<Int64>()) { $0.formUnion($1.arriving) }
        var items: [Int64: ItemJSON] = [:]
        if !arriving.isEmpty {
            for row in try db.fetchAll("SELECT * FROM item WHERE id IN (\(arriving.sorted().map(String.init).joined(separator: ",")))", [], cached: false) {
                let item = ItemRecord(row).json
                items[item.id] = item
            }
        }
        let now = try sectionsAndName(db, gallery, version: parts.last?.to ?? from)
        var out: [ChangesJSON] = []
        out.reserveCapacity(parts.count)
        var from = from
        for part in parts {
            // As one part's own query answered: its items in id order.
            let own = part.arriving.sorted().compactMap { items[$0] }
            out.append(ChangesJSON(fromVersion: from, toVersion: part.to, stages: part.stages, items: own, sections: now.sections, name: now.name))
            from = part.to
        }
        return out
    }

    /// The version and engine snapshot of a gallery now (on the writer's queue: nothing commits meanwhile).
    func current(_ db: any SQLConnection, _ gallery: Int64) throws -> (Int64, Snapshot) {
        _ = try _loadLive(db, gallery)
        try syncWithRow(db, gallery) // PostgreSQL: another instance's versions not followed yet
        guard let now = live.withLock({ state in state[gallery].map { ($0.version, $0.snapshot) } }) else {
            throw StoreError.galleryNotFound(gallery)
        }
        return now
    }

    /// Whether catch-up from `version` can be served: inside the window, and the history from
    /// there known to replay exactly. A stretch rebuilt from SQLite and not yet checked is
    /// replayed once to the checkpoint after it (the first time a catch-up reaches into it after
    /// a restart; in place, O(changes + touched sections) a version); that runs on a copy of the
    /// window, outside the lock and off the writer's queue — the history below the current
    /// version never changes — and what the replay learned (a stretch checked, or cut) is kept.
    ///
    /// Ten windows back at an old version after a restart of a 1M-item gallery each replayed
    /// their own copy of 10,000 versions, a whole new snapshot per stage, on Swift's shared
    /// threads: the server answered nothing, not even /api/health, for over ten minutes (issue
    /// 15). Now one check runs per gallery at a time (`historyChecks`; the others wait for it and
    /// look again), on a queue of its own (`historyCheckQueue`).
    func checkHistory(gallery: Int64, from version: Int64) async throws -> Bool {
        try await database.writeWithoutTransaction { db in _ = try self._loadLive(db, gallery) }
        while true {
            guard let window = live.withLock({ state in state[gallery].map { ($0.oldestVersion, $0.verifiedFrom, $0.version) } }) else {
                throw StoreError.galleryNotFound(gallery)
            }
            guard version >= window.0 else { return false }
            if version >= window.1 || version >= window.2 { return true }
            if Self.historyCheckBaseline.load(ordering: .relaxed) { return try baselineCheckHistory(gallery: gallery, from: version) }
            // The check running for this gallery, or a new one; either way, then look again (a
            // check from a later version covers only part of this one's stretch; a cut leaves
            // this version outside the window).
            let task = historyChecks.withLock { checks -> Task<Void, any Error> in
                if let running = checks[gallery] { return running.task }
                let id = nextHistoryCheck.add(1, ordering: .relaxed).newValue
                let task = Task<Void, any Error> {
                    defer {
                        self.historyChecks.withLock { checks in
                            if checks[gallery]?.id == id { checks[gallery] = nil }
                        }
                    }
                    try await self.replayHistory(gallery: gallery, from: version)
                }
                checks[gallery] = (id, task)
                return task
            }
            try await task.value
        }
    }

    /// The gallery's window for a history check, without the live snapshot (kept, it would make
    /// the writer's next in-place change copy it) and its subscribers.
    func windowCopy(_ gallery: Int64) throws -> LiveGallery {
        guard let copy = live.withLock({ state -> LiveGallery? in
            var c = state[gallery]
            c?.snapshot = Snapshot()
            c?.subscribers = [:]
            return c
        }) else { throw StoreError.galleryNotFound(gallery) }
        return copy
    }

    /// One history check (`checkHistory`): `LiveGallery.verifyHistory` on a copy of the window,
    /// on `historyCheckQueue`; what it learned goes back into the window.
    func replayHistory(gallery: Int64, from version: Int64) async throws {
        let copy = try windowCopy(gallery)
        historyCheckRuns.add(1, ordering: .relaxed)
        let database = self.database
        let checked: LiveGallery = try await withCheckedThrowingContinuation { continuation in
            historyCheckQueue.async {
                continuation.resume(with: Result {
                    var copy = copy
                    _ = try copy.verifyHistory(from: version) { v in
                        try database.readNow { db in try CatchUpLog.loadCheckpoint(db, gallery: gallery, version: v) }
                    }
                    return copy
                })
            }
        }
        live.withLock { state in state[gallery]?.learn(from: checked) }
    }

    /// The check as it was before session 15 (`setHistoryCheckBaseline`, benchmarks only): this
    /// request's own replay, a whole new snapshot per stage, on the caller's thread.
    func baselineCheckHistory(gallery: Int64, from version: Int64) throws -> Bool {
        var copy = try windowCopy(gallery)
        historyCheckRuns.add(1, ordering: .relaxed)
        let checked = try copy.verifyHistory(from: version, inPlace: false) { v in
            try database.readNow { db in try CatchUpLog.loadCheckpoint(db, gallery: gallery, version: v) }
        }
        live.withLock { state in state[gallery]?.learn(from: copy) }
        return checked
    }

    /// A live stream of the gallery's versions. With `since`, it starts with the changes from
    /// that version to now, in parts of at most `streamCatchUpVersions` versions (or `.reload`
    /// when that version is outside the window); then
    /// every committed version, in order, with nothing skipped.
    public func subscribe(gallery: Int64, since: Int64?) async throws -> (AsyncStream<GalleryEvent>, cancel: @Sendable () -> Void) {
        let id = nextSubscriber.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream<GalleryEvent>.makeStream(bufferingPolicy: .unbounded)
        if let since { _ = try await checkHistory(gallery: gallery, from: since) }
        try await database.writeWithoutTransaction { db in
            // On the writer queue: no commit can happen between the catch-up and the registration.
            let (current, _) = try self.current(db, gallery)
            if let since, since != current {
                if let parts = try self.catchUpParts(db, gallery, since: since) {
                    for changes in parts { continuation.yield(.changes(changes)) }
                } else {
                    continuation.yield(.reload(version: current))
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

/// A live-stream catch-up from one version to another, cut into parts (`catchUpParts`).
struct SharedCatchUp: Sendable {
    struct Key: Equatable, Sendable {
        var gallery: Int64
        var from: Int64
        var to: Int64
    }
    var key: Key
    var parts: [ChangesJSON]
}

/// A batch on its way to the writer.
struct PendingBatch: Sendable {
    let gallery: Int64
    let baseVersion: Int64?
    let ops: [StoreWrite]
    let payload: String
    /// The most items the batch may name, a section deleted naming its live items (`apply`); nil: no limit.
    var maxItems: Int? = nil
}

/// A gallery's sections in order and its name at a version (as a batch's answer carries them).
struct SectionsAndName: Equatable {
    let version: Int64
    let sections: [SectionInfoJSON]
    let name: String?
}

extension SectionsAndName {
    init(_ batch: CommittedBatch) {
        self.init(version: batch.version, sections: batch.result.changes.sections, name: batch.result.changes.name)
    }
}

/// A batch run inside its transaction, waiting for the commit to reach memory.
struct CommittedBatch {
    let version: Int64
    let stages: [StageJSON]
    /// The new version is a checkpoint (its snapshot goes into SQLite with the next batch).
    let isCheckpoint: Bool
    /// The pending checkpoint this batch wrote.
    let wroteCheckpoint: Int64?
    let result: BatchResult
}
