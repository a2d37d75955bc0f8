import Foundation
import Logging

extension GalleryStore {
    static let deleteLogger = Logger(label: "gallery.delete")

    /// Deletes a gallery for everyone at once, in one short transaction: the row is marked
    /// `deleting` (every read by id answers "not found" from then on, the list leaves it out, no
    /// batch is taken), its members and share links go (nobody's role names it), other instances
    /// are told and its live streams end with `deleted`. Its sections, items, log and checkpoints
    /// are removed afterwards a part at a time (`startPurge`, `purgeGallery`), the row last: at a
    /// million items one transaction held every gallery's writes ~7 s (issue 15's limits).
    public func deleteGallery(_ id: Int64) async throws {
        try await database.write { db in
            guard try db.execute("UPDATE gallery SET deleting = 1 WHERE id = ? AND deleting = 0", [id]) == 1 else {
                throw StoreError.galleryNotFound(id)
            }
            try db.execute("DELETE FROM member WHERE galleryId = ?", [id])
            try db.execute("DELETE FROM share_link WHERE galleryId = ?", [id])
            try self.announce(db, deleted: id)
        }
        let subscribers = live.withLock { state in state.removeValue(forKey: id)?.subscribers ?? [:] }
        counts.withLock { _ = $0.removeValue(forKey: id) }
        for (_, c) in subscribers { c.yield(.deleted); c.finish() }
        startPurge()
    }

    /// Removes the rows of every gallery marked `deleting` (deleted here or by another instance,
    /// or left half way by a server that stopped), in the background; one run at a time per
    /// store. A server calls it at start.
    public func startPurge() {
        purge.withLock { state in
            if state.task != nil { state.again = true; return }
            state.task = Task.detached(priority: .utility) { [self] in await self.purgeLoop() }
        }
    }

    /// Waits until the purge running now (and any it was asked to repeat) is done. Tests.
    public func finishPurge() async {
        while let task = purge.withLock({ $0.task }) { await task.value }
    }

    /// Galleries marked deleted whose rows are still there (tests).
    public func galleriesBeingDeleted() async throws -> [Int64] {
        try await database.read { db in try db.values("SELECT id FROM gallery WHERE deleting = 1 ORDER BY id", as: Int64.self) }
    }

    private func purgeLoop() async {
        while true {
            do {
                while let gallery = try await database.read({ db in
                    try db.value("SELECT id FROM gallery WHERE deleting = 1 ORDER BY id LIMIT 1", as: Int64.self)
                }) {
                    try await purgeGallery(gallery)
                }
            } catch {
                // The database closed (shutdown, a test's store) or failed: the next start goes on.
                Self.deleteLogger.warning("a deleted gallery's rows are not all removed yet", metadata: ["error": "\(error)"])
                purge.withLock { $0 = (nil, false) }
                return
            }
            let done = purge.withLock { state in
                if state.again { state.again = false; return false }
                state.task = nil
                return true
            }
            if done { return }
        }
    }

    /// How long one part of a purge may hold the writer (other galleries' writes wait that long at most).
    static let purgePartTime = Duration.milliseconds(10)

    /// One deleted gallery's rows, a part at a time, each part its own transaction sized to take
    /// about `purgePartTime`: the items (their indexes are most of the work), the log, the
    /// checkpoints and the sections, then the row, which takes what is left with it.
    ///
    /// Several purges of one gallery may run at once on PostgreSQL (instances starting together,
    /// or the others joining on `d <gallery>`): a part skips rows another purge has locked, and a
    /// table is left only once none of its rows is there, so no purge gets to the sections (whose
    /// delete would cascade to the items left) while another still deletes items.
    func purgeGallery(_ gallery: Int64) async throws {
        let began = ContinuousClock.now
        var removed = 0
        // `skip`: the dialect's row-lock skip (PostgreSQL's `FOR UPDATE SKIP LOCKED`; none on SQLite, one writer).
        let parts: [(table: String, sql: @Sendable (_ skip: String) -> String, smallest: Int, largest: Int)] = [
            ("item", { "DELETE FROM item WHERE id IN (SELECT id FROM item WHERE galleryId = ? LIMIT ?\($0))" }, 100, 20_000),
            ("operation", { "DELETE FROM operation WHERE galleryId = ? AND version IN (SELECT version FROM operation WHERE galleryId = ? LIMIT ?\($0))" }, 100, 20_000),
            // A checkpoint holds a whole gallery's arrangement (megabytes at 1M): one at a time.
            ("checkpoint", { "DELETE FROM checkpoint WHERE galleryId = ? AND version IN (SELECT version FROM checkpoint WHERE galleryId = ? LIMIT ?\($0))" }, 1, 1),
            ("section", { "DELETE FROM section WHERE id IN (SELECT id FROM section WHERE galleryId = ? LIMIT ?\($0))" }, 100, 20_000),
        ]
        for part in parts {
            var size = min(max(1000, part.smallest), part.largest)
            while true {
                let start = ContinuousClock.now, limit = size
                let (n, left) = try await database.write { db -> (Int, Bool) in
                    // Still marked (a gallery is never unmarked; this guards against an id reused by another row).
                    guard try db.exists("SELECT 1 FROM gallery WHERE id = ? AND deleting = 1", [gallery]) else { return (0, false) }
                    let args: SQLArguments = part.table == "item" || part.table == "section" ? [gallery, limit] : [gallery, gallery, limit]
                    let n = try db.execute(part.sql(db.dialect.skipLocked), args)
                    return try (n, n > 0 || db.exists("SELECT 1 FROM \(part.table) WHERE galleryId = ?", [gallery]))
                }
                removed += n
                guard left else { break }
                if n == 0 {
                    // The rows left are another purge's, in a transaction not yet committed.
                    try await Task.sleep(for: .milliseconds(20))
                    continue
                }
                if let hook = afterPurgePart.withLock({ $0 }) { await hook(part.table, n) }
                let took = ContinuousClock.now - start  // with the wait for the writer: an upper bound
                if took < Self.purgePartTime / 2 { size = min(size * 2, part.largest) }
                else if took > Self.purgePartTime * 2 { size = max(size / 2, part.smallest) }
            }
        }
        try await database.write { db in _ = try db.execute("DELETE FROM gallery WHERE id = ? AND deleting = 1", [gallery]) }
        Self.deleteLogger.info("removed a deleted gallery's rows", metadata: [
            "gallery": "\(gallery)", "rows": "\(removed)", "seconds": "\((ContinuousClock.now - began).seconds)"])
    }
}

private extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
