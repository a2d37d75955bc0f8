import Foundation
import GRDB
import GridEngine
import GalleryCore
import Synchronization

/// Galleries, sections and items in a database — SQLite (WAL, through a GRDB `DatabasePool`) in
/// the data folder by default, or PostgreSQL (`StoreDatabase`, docs/storage.md) — plus
/// content-addressed image files in the data folder:
///
///     let store = try GalleryStore(folder: URL(fileURLWithPath: "gallery-data"))
///     let g = try await store.createGallery(name: "Fruit")
///     let result = try await store.apply(gallery: g.id, baseVersion: g.version, [.move(items: [1], to: .end(section: 2))])
///
/// Every batch is one write transaction that also bumps the gallery version and appends to the
/// operation log; memory (snapshots, live streams) is updated only after the commit, on the
/// writer's queue, so versions reach subscribers in order.
public final class GalleryStore: Sendable {
    public let database: any StoreDatabase
    public let files: ImageFiles
    let live = Mutex<[Int64: LiveGallery]>([:])
    /// Batches waiting for the writer, committed in groups (`GalleryStore+Group.swift`).
    let batchQueue = Mutex(BatchQueue())
    let groupStats = Mutex(BatchGroupStats())
    let nextSubscriber = Atomic<Int>(0)
    /// The last live-stream catch-up made (`catchUpParts`), for the streams that ask for the same
    /// one next: windows that lost the network together come back at the same version at once.
    let sharedCatchUp = Mutex<SharedCatchUp?>(nil)
    /// Each gallery's item count at a version (every change of the count is a batch, so a new
    /// version): the gallery list counts a gallery's items once per version, not on every
    /// request (a COUNT over a million items takes ~0.1 s; the page waits for the list).
    let counts = Mutex<[Int64: (version: Int64, createdAt: Double, count: Int)]>([:])
    /// The removal of deleted galleries' rows (`GalleryStore+Delete`): the task running it, and
    /// whether a gallery was deleted while it ran (it looks again before it ends).
    let purge = Mutex<(task: Task<Void, Never>?, again: Bool)>((nil, false))
    /// Called between two parts of a purge with the table and the rows the part removed (tests:
    /// a write elsewhere gets in there).
    public let afterPurgePart = Mutex<(@Sendable (String, Int) async -> Void)?>(nil)
    /// The history check running for each gallery (`checkHistory`): a catch-up that needs the same
    /// gallery's history checked meanwhile waits for it instead of replaying its own copy.
    let historyChecks = Mutex<[Int64: (id: Int, task: Task<Void, any Error>)]>([:])
    let nextHistoryCheck = Atomic<Int>(0)
    /// Where history checks run: a thread of their own (a serial queue), not Swift's shared
    /// cooperative threads, so a long replay never stops the server answering other requests;
    /// one at a time, so at most one replay's two snapshots are in memory.
    let historyCheckQueue = DispatchQueue(label: "gallery.history-check")
    /// How many history replays ran (`checkHistory`): for tests and benchmarks.
    public var historyCheckCount: Int { historyCheckRuns.load(ordering: .relaxed) }
    let historyCheckRuns = Atomic<Int>(0)
    /// How many failed batches had their gallery's live snapshot read again from the rows (a
    /// batch made in place that failed after its first change, or whose commit failed): for tests.
    /// A refused batch (a bad operation) never is.
    public var batchRereadCount: Int { batchRereads.load(ordering: .relaxed) }
    let batchRereads = Atomic<Int>(0)
    /// How many batches `run` made on the live snapshot in place as several items' move, copy,
    /// trash or restore (`batchesInPlace`): for tests.
    public var inPlaceBatchCount: Int { inPlaceBatches.load(ordering: .relaxed) }
    let inPlaceBatches = Atomic<Int>(0)
    /// The catch-up checkpoints written by batches (the snapshot of every `checkpointInterval`-th
    /// version, in the next batch's transaction): how many, how long they held the writer, bytes.
    let historyCheckpoints = Mutex(HistoryCheckpointStats())
    public var historyCheckpointStats: HistoryCheckpointStats { historyCheckpoints.withLock { $0 } }
    /// This store's name in the notifications instances on one PostgreSQL database send each
    /// other (its own are ignored: memory has them already), and its listening side
    /// (GalleryStore+Fanout.swift).
    public let instance = String(UInt64.random(in: 1 ... .max), radix: 36)
    let fanout = Fanout()
    /// Versions between catch-up checkpoints of a small gallery (`LiveGallery.checkpointInterval`):
    /// 250 unless the store was opened with another (the test suite's history tests, to walk
    /// whole windows in a tenth of the versions). Every store on one database must use the same.
    public let historyEvery: Int64
    public static let defaultHistoryEvery: Int64 = LiveGallery.checkpointEvery

    /// The default: SQLite in `folder/gallery.sqlite`, images in `folder/images`. `checkpoints`:
    /// where SQLite's write-ahead log is copied back (`WALCheckpointer`); `.onWriter` is SQLite's
    /// default, kept for the benchmark's same-run baseline.
    public convenience init(folder: URL, checkpoints: WALCheckpoints = .background, historyEvery: Int64 = GalleryStore.defaultHistoryEvery) throws {
        try Self.makeDataFolder(folder)
        try self.init(folder: folder, database: SQLiteDatabase(path: folder.appendingPathComponent("gallery.sqlite").path, checkpoints: checkpoints),
                      historyEvery: historyEvery)
    }

    /// The rows in `database` (migrated already), the images in `folder/images`.
    public init(folder: URL, database: any StoreDatabase, historyEvery: Int64 = GalleryStore.defaultHistoryEvery) throws {
        precondition(historyEvery > 0)
        try Self.makeDataFolder(folder)
        self.database = database
        self.historyEvery = historyEvery
        files = try ImageFiles(root: folder.appendingPathComponent("images"))
    }

    /// The store on `databaseURL` when given (`postgres://…`: PostgreSQL, see `PostgresDatabase`),
    /// else SQLite in the data folder; images in the data folder either way.
    public convenience init(folder: URL, databaseURL: String?, checkpoints: WALCheckpoints = .background,
                            historyEvery: Int64 = GalleryStore.defaultHistoryEvery) throws {
        guard let databaseURL else { try self.init(folder: folder, checkpoints: checkpoints, historyEvery: historyEvery); return }
        try self.init(folder: folder, database: PostgresDatabase(url: databaseURL), historyEvery: historyEvery)
    }

    /// The same, opened on a thread of its own rather than Swift's cooperative pool: on PostgreSQL
    /// opening connects and migrates, waiting for the server's answers, and a process starting
    /// many servers or stores at once (the test suite) would hold the pool's few threads meanwhile.
    public static func open(folder: URL, databaseURL: String?, checkpoints: WALCheckpoints = .background,
                            historyEvery: Int64 = GalleryStore.defaultHistoryEvery) async throws -> GalleryStore {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    try GalleryStore(folder: folder, databaseURL: databaseURL, checkpoints: checkpoints, historyEvery: historyEvery)
                })
            }
        }
    }

    /// The SQLite pool (SQLite only: backups, benchmarks and tests that read SQLite itself).
    public var pool: DatabasePool {
        guard let sqlite = database as? SQLiteDatabase else { preconditionFailure("the store is on \(database.kind), not SQLite") }
        return sqlite.pool
    }

    /// Closes the database's connections (tests reopen a store; shutdown).
    public func close() throws {
        stopFollowing()
        try database.close()
    }

    deinit { stopFollowing() }

    /// Answers when the database answers (/readyz).
    public func ping() async throws {
        _ = try await database.read { c in try c.value("SELECT 1", as: Int64.self) }
    }

    static func now() -> Double { Date().timeIntervalSince1970 }

    /// Frames of SQLite's write-ahead log past which the writer finishes copying it back and it
    /// starts over (`WALCheckpointer`), for stores opened from now on: the move benchmark compares
    /// settings in one run (`--wal-restart-frames`); the server keeps the default. From 401 to
    /// `Int32.max / 2` (a store opened with another value stops at a precondition).
    public static var walRestartFrames: Int32 {
        get { WALCheckpointer.restartFramesOfNewStores }
        set { WALCheckpointer.restartFramesOfNewStores = newValue }
    }

    /// How many WAL checkpoints ran since the store opened and what they cost (SQLite; none on PostgreSQL).
    public var walCheckpointStats: WALCheckpointStats { (database as? SQLiteDatabase)?.checkpointer.stats ?? WALCheckpointStats() }

    // MARK: Galleries (documents, F25)

    public func listGalleries() async throws -> [GalleryInfo] {
        try await database.read { db in
            var list = try db.fetchAll("SELECT id, name, version, createdAt FROM gallery WHERE deleting = 0 ORDER BY id").map(Self.galleryInfo)
            for k in list.indices { list[k].itemCount = try self.itemCount(db, list[k]) }
            return list
        }
    }

    /// A gallery's item count at the version `g` names: from memory when the gallery is loaded
    /// at that version (a stream of uploads makes a version every few milliseconds: a COUNT over a
    /// million rows each time cost ~30 ms), else counted once per version.
    func itemCount(_ db: any SQLConnection, _ g: GalleryInfo) throws -> Int {
        // The live count also when the row read is a few versions from it: a batch's commit is
        // in the row before it is in memory (and a read that began before it sees the row's
        // older version). Counting instead took ~100 ms at 1M items — the gallery list's one
        // slow answer in three of four runs while 1,000 photos arrived (BENCHMARKS.md, "Limits").
        if let l = live.withLock({ $0[g.id].map { (version: $0.version, count: $0.itemCount) } }),
           abs(l.version - g.version) <= Self.liveCountSlack { return l.count }
        if let c = counts.withLock({ $0[g.id] }), c.version == g.version, c.createdAt == g.createdAt { return c.count }
        let n = try db.value("SELECT COUNT(*) FROM item WHERE galleryId = ? AND trashed = 0", [g.id], as: Int.self) ?? 0
        counts.withLock { $0[g.id] = (g.version, g.createdAt, n) }
        return n
    }

    /// How many versions apart the live count may be from the row read and still stand for it.
    static let liveCountSlack: Int64 = 16

    static func galleryInfo(_ row: SQLRow) -> GalleryInfo {
        GalleryInfo(id: row["id"], name: row["name"], version: row["version"],
                    itemCount: row.index(of: "itemCount").map { row[$0] } ?? 0, createdAt: row["createdAt"])
    }

    public func gallery(_ id: Int64) async throws -> GalleryInfo {
        try await database.read { db in
            guard let row = try db.fetchOne("SELECT id, name, version, createdAt FROM gallery WHERE id = ? AND deleting = 0", [id]) else {
                throw StoreError.galleryNotFound(id)
            }
            var g = Self.galleryInfo(row)
            g.itemCount = try self.itemCount(db, g)
            return g
        }
    }

    static func galleryInfo(_ db: any SQLConnection, _ id: Int64) throws -> GalleryInfo {
        guard let row = try db.fetchOne("""
            SELECT g.id, g.name, g.version, g.createdAt,
                   (SELECT COUNT(*) FROM item i WHERE i.galleryId = g.id AND i.trashed = 0) AS itemCount
            FROM gallery g WHERE g.id = ? AND g.deleting = 0
            """, [id]) else { throw StoreError.galleryNotFound(id) }
        return galleryInfo(row)
    }

    /// A new gallery with one empty section, owned by `owner` when given.
    public func createGallery(name: String, firstSection: String = "Section 1", owner: Int64? = nil) async throws -> GalleryInfo {
        let name = try Self.checkName(name)
        return try await database.write { db in
            let g = try db.insert("INSERT INTO gallery (name, version, createdAt) VALUES (?, 0, ?) RETURNING id", [name, Self.now()])
            _ = try db.insert("INSERT INTO section (galleryId, title, rank, deleted) VALUES (?, ?, ?, 0) RETURNING id",
                              [g, firstSection, RankKey.between(nil, nil)])
            try Self.makeOwner(db, gallery: g, account: owner)
            return try Self.galleryInfo(db, g)
        }
    }

    static func makeOwner(_ db: any SQLConnection, gallery: Int64, account: Int64?) throws {
        guard let account else { return }
        try db.execute("INSERT INTO member (galleryId, accountId, role) VALUES (?, ?, 'owner')", [gallery, account])
    }

    static func checkName(_ name: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw StoreError.invalid("name must not be empty") }
        guard trimmed.count <= 200 else { throw StoreError.invalid("name is longer than 200 characters") }
        guard !trimmed.utf8.contains(0) else { throw StoreError.invalid("name must not contain U+0000") }
        return trimmed
    }

    /// A new version (streamed, with the name in its changes) unless the name is unchanged.
    public func renameGallery(_ id: Int64, name: String) async throws -> GalleryInfo {
        let name = try Self.checkName(name)
        if try await gallery(id).name == name { return try await gallery(id) }
        _ = try await apply(gallery: id, [.renameGallery(name)], payload: ["op": "renameGallery", "name": name])
        return try await gallery(id)
    }

    /// A copy of the gallery: same sections, items (with new ids) in the same order, same images;
    /// the trash is not copied. The arrangement is read as it is when the copy starts; the copy is
    /// made a part at a time as an import is (`importGalleryInParts`: one transaction held every
    /// gallery's writes ~2.9 s for a copy of 300,000 items). An item trashed or purged meanwhile
    /// is left out; its content is read as it is when its part is copied.
    public func duplicateGallery(_ id: Int64, name: String?, owner: Int64? = nil,
                                 partTime: Duration = .milliseconds(10)) async throws -> GalleryInfo {
        let (sourceName, plan) = try await database.read { db -> (String, [(title: String, ids: [Int64])]) in
            guard let sourceName = try db.value("SELECT name FROM gallery WHERE id = ? AND deleting = 0", [id], as: String.self) else {
                throw StoreError.galleryNotFound(id)
            }
            let sections = try db.fetchAll("SELECT * FROM section WHERE galleryId = ? AND deleted = 0 ORDER BY rank, id", [id]).map(SectionRecord.init)
            return (sourceName, try sections.map { s in
                (title: s.title, ids: try db.values("SELECT id FROM item WHERE sectionId = ? AND trashed = 0 ORDER BY rank, id", [s.id!], as: Int64.self))
            })
        }
        let newName = try Self.checkName(name ?? "\(sourceName) copy")
        let gallery = try await createInParts(name: newName, sections: plan.map { ($0.title, $0.ids.count) }, owner: owner,
                                              partTime: partTime, operation: "duplicate") { s, range in
            let ids = Array(plan[s].ids[range])
            let rows = try await self.database.read { db in
                // Not kept prepared: the list's length changes from part to part.
                try db.fetchAll("SELECT * FROM item WHERE trashed = 0 AND id IN (\(ids.map { _ in "?" }.joined(separator: ", ")))",
                                ids.map { $0 as (any SQLArgument)? }, cached: false).map(ItemRecord.init)
            }
            let byId = Dictionary(rows.map { ($0.id!, $0) }, uniquingKeysWith: { a, _ in a })
            return ids.compactMap { byId[$0] }.map {
                NewItem(title: $0.title, sourceURL: $0.sourceURL, fileHash: $0.fileHash, width: $0.width, height: $0.height,
                        state: ItemState(rawValue: $0.state) ?? .failed, reason: $0.reason)
            }
        }
        return try await self.gallery(gallery)
    }

    // MARK: Reading

    /// The gallery's last section (where a drop or upload without a destination goes), nil when
    /// it has none. One row, whatever the gallery's size.
    public func lastSection(_ id: Int64) async throws -> Int64? {
        try await database.read { db in
            guard try db.exists("SELECT 1 FROM gallery WHERE id = ? AND deleting = 0", [id]) else {
                throw StoreError.galleryNotFound(id)
            }
            return try db.value("SELECT id FROM section WHERE galleryId = ? AND deleted = 0 ORDER BY rank DESC, id DESC LIMIT 1",
                                [id], as: Int64.self)
        }
    }

    /// The whole gallery at its current version, in one read transaction.
    public func snapshot(_ id: Int64) async throws -> GallerySnapshotJSON {
        try await database.read { db in try Self.snapshot(db, id) }
    }

    static func snapshot(_ db: any SQLConnection, _ id: Int64) throws -> GallerySnapshotJSON {
        let info = try galleryInfo(db, id)
        let sections = try db.fetchAll("SELECT * FROM section WHERE galleryId = ? AND deleted = 0 ORDER BY rank, id", [id]).map(SectionRecord.init)
        let items = try db.fetchAll("SELECT * FROM item WHERE galleryId = ? AND trashed = 0 ORDER BY sectionId, rank, id", [id]).map(ItemRecord.init)
        var bySection: [Int64: [ItemJSON]] = [:]
        for item in items { bySection[item.sectionId, default: []].append(item.json) }
        return GallerySnapshotJSON(gallery: info, version: info.version,
                                   sections: sections.map { SectionJSON(id: $0.id!, title: $0.title, items: bySection[$0.id!] ?? []) })
    }

    /// A gallery's version and name (cheap: one row), to check a cached snapshot.
    public func head(_ id: Int64) async throws -> (version: Int64, name: String) {
        try await database.read { db in
            guard let row = try db.fetchOne("SELECT version, name FROM gallery WHERE id = ? AND deleting = 0", [id]) else {
                throw StoreError.galleryNotFound(id)
            }
            return (row[0], row[1])
        }
    }

    /// The whole gallery at its current version as parallel columns (the page's first load), in
    /// one read transaction; rows are read with a cursor, not decoded into records.
    public func columns(_ id: Int64) async throws -> SnapshotColumns {
        try await database.read { db in
            var out = SnapshotColumns(gallery: try Self.galleryInfo(db, id))
            let sections = try db.fetchAll("SELECT id, title FROM section WHERE galleryId = ? AND deleted = 0 ORDER BY rank, id", [id])
            out.ids.reserveCapacity(out.gallery.itemCount)
            out.contentVersions.reserveCapacity(out.gallery.itemCount)
            out.aspects.reserveCapacity(out.gallery.itemCount)
            out.states.reserveCapacity(out.gallery.itemCount)
            out.titles.reserveCapacity(out.gallery.itemCount)
            out.widths.reserveCapacity(out.gallery.itemCount)
            out.heights.reserveCapacity(out.gallery.itemCount)
            for s in sections {
                let sectionId: Int64 = s[0]
                let before = out.ids.count
                // A cursor, not rows decoded into records (SQLite: its C API directly).
                try db.forEach("""
                    SELECT id, title, sourceURL, width, height, aspect, state, reason, contentVersion
                    FROM item WHERE sectionId = ? AND trashed = 0 ORDER BY rank, id
                    """, [sectionId]) { row in
                    let itemId = row.int64(0)
                    let state: ItemState
                    switch row.firstByte(6) {
                    case UInt8(ascii: "r"): state = .ready
                    case UInt8(ascii: "p"): state = .pending
                    default: state = .failed
                    }
                    out.ids.append(itemId)
                    out.titles.append(row.text(1) ?? "")
                    if let url = row.text(2) { out.sourceURLs[itemId] = url }
                    out.widths.append(Int32(clamping: row.int64(3)))
                    out.heights.append(Int32(clamping: row.int64(4)))
                    out.aspects.append(state == .ready ? row.double(5) : 1)
                    out.states.append(state)
                    if let reason = row.text(7) { out.reasons[itemId] = reason }
                    out.contentVersions.append(UInt32(truncatingIfNeeded: row.int64(8)))
                }
                out.sections.append(.init(id: sectionId, title: s[1], count: out.ids.count - before))
            }
            return out
        }
    }

    public func item(_ id: Int64) async throws -> ItemJSON {
        try await database.read { db in
            guard let r = try db.fetchOne("SELECT * FROM item WHERE id = ?", [id]).map(ItemRecord.init) else { throw StoreError.itemNotFound(id) }
            return r.json
        }
    }

    /// Trashed items of a gallery, newest first (F21).
    public func trash(_ id: Int64) async throws -> [ItemJSON] {
        try await database.read { db in
            _ = try Self.galleryInfo(db, id)
            return try db.fetchAll("SELECT * FROM item WHERE galleryId = ? AND trashed = 1 ORDER BY trashedAt DESC, id", [id]).map { ItemRecord($0).json }
        }
    }

    /// Items still pending (after a restart: fetches and thumbnails that were interrupted).
    public func pendingItems() async throws -> [ItemJSON] {
        try await database.read { db in
            try db.fetchAll("SELECT * FROM item WHERE state = 'pending' ORDER BY id").map { ItemRecord($0).json }
        }
    }

    /// Whether a maintenance task (migration "v4 maintenance") is still to do.
    public func maintenancePending(_ task: String) async throws -> Bool {
        try await database.read { db in try db.exists("SELECT 1 FROM maintenance WHERE task = ?", [task]) }
    }

    public func maintenanceDone(_ task: String) async throws {
        try await database.write { db in try db.execute("DELETE FROM maintenance WHERE task = ?", [task]) }
    }

    /// Ready items with a stored file, after `id`, in id order: (id, gallery, hash, width, height).
    public func readyItems(after id: Int64, limit: Int) async throws -> [(id: Int64, gallery: Int64, hash: String, width: Int, height: Int)] {
        try await database.read { db in
            try db.fetchAll("""
                SELECT id, galleryId, fileHash, width, height FROM item
                WHERE state = 'ready' AND fileHash IS NOT NULL AND id > ? ORDER BY id LIMIT ?
                """, [id, limit]).map { ($0["id"], $0["galleryId"], $0["fileHash"], ($0["width"] as Int?) ?? 0, ($0["height"] as Int?) ?? 0) }
        }
    }

    /// True when some item still refers to this image.
    public func isReferenced(hash: String) async throws -> Bool {
        try await database.read { db in
            try db.exists("SELECT 1 FROM item WHERE fileHash = ?", [hash])
        }
    }

    /// The engine snapshot of the live items, read from the database (cold start of a gallery).
    static func engineSnapshot(_ db: any SQLConnection, _ id: Int64) throws -> Snapshot {
        let sectionIds = try db.values("SELECT id FROM section WHERE galleryId = ? AND deleted = 0 ORDER BY rank, id", [id], as: Int64.self)
        var items: [Int64: ([ItemID], [UInt32])] = [:]
        try db.forEach("SELECT id, sectionId, contentVersion FROM item WHERE galleryId = ? AND trashed = 0 ORDER BY sectionId, rank, id", [id]) { row in
            let s = row.int64(1)
            items[s, default: ([], [])].0.append(ItemID(UInt64(row.int64(0))))
            items[s, default: ([], [])].1.append(UInt32(truncatingIfNeeded: row.int64(2)))
        }
        do {
            return try Snapshot(sectionIds.map { s in (id: SectionID(UInt64(s)), items: items[s]?.0 ?? [], versions: items[s]?.1 ?? []) })
        } catch {
            throw StoreError.corrupt(error.message)
        }
    }
}

extension GalleryStore {
    /// The gallery an item belongs to (trashed or not).
    /// The gallery an item is in, and whether it is in the trash (for the item routes' rule:
    /// a trashed item is there only for roles that see the trash).
    /// A new data folder is the server's own (0700): its database holds the accounts' second
    /// factors and its folders every photo, which other users of the machine have no business
    /// reading (under the usual umask 022 they could; the systemd unit sets UMask=0077 anyway).
    /// An existing folder keeps the permissions it was given.
    public static func makeDataFolder(_ folder: URL) throws {
        guard !FileManager.default.fileExists(atPath: folder.path) else { return }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    public func placeOf(item: Int64) async throws -> (gallery: Int64, trashed: Bool) {
        try await database.read { db in
            guard let row = try db.fetchOne("SELECT galleryId, trashed FROM item WHERE id = ?", [item]) else {
                throw StoreError.itemNotFound(item)
            }
            return (row["galleryId"] as Int64, row["trashed"] as Bool)
        }
    }

    public func galleryOf(item: Int64) async throws -> Int64 {
        try await database.read { db in
            guard let g = try db.value("SELECT galleryId FROM item WHERE id = ?", [item], as: Int64.self) else {
                throw StoreError.itemNotFound(item)
            }
            return g
        }
    }

    /// Galleries with items waiting for this URL's fetch.
    /// Galleries with items waiting for this URL's fetch that `lease` lets the caller settle.
    public func galleriesWaiting(for url: String, lease: LeaseCondition = .none) async throws -> [Int64] {
        try await database.read { db in
            let (held, args) = lease.sql(db.dialect)
            return try db.values("SELECT DISTINCT galleryId FROM item WHERE sourceURL = ? AND state = 'pending' AND fileHash IS NULL" + held,
                                 [url] + args, as: Int64.self)
        }
    }

    /// Ends every live stream (server shutdown: open streams would keep the server from draining).
    public func closeAllStreams() {
        let all = live.withLock { state -> [AsyncStream<GalleryEvent>.Continuation] in
            var out: [AsyncStream<GalleryEvent>.Continuation] = []
            for key in state.keys {
                out.append(contentsOf: state[key]!.subscribers.values)
                state[key]!.subscribers = [:]
            }
            return out
        }
        for c in all { c.finish() }
    }

    /// Items in a gallery's arrangement at its current version, from memory (the gallery loaded
    /// first if this process has not yet: on the writer, as its next batch would).
    public func liveItemCount(gallery: Int64) async throws -> Int {
        if let n = live.withLock({ $0[gallery]?.itemCount }) { return n }
        try await database.writeWithoutTransaction { db in _ = try self._loadLive(db, gallery) }
        guard let n = live.withLock({ $0[gallery]?.itemCount }) else { throw StoreError.galleryNotFound(gallery) }
        return n
    }

    /// Number of open live streams of a gallery (tests, logs).
    public func subscriberCount(gallery: Int64) -> Int {
        live.withLock { $0[gallery]?.subscribers.count ?? 0 }
    }
}

extension GalleryStore {
    /// Creates a whole gallery in one transaction: all of it or nothing. Holds the writer for the
    /// whole gallery (~25 s at 1M items): for seeding benchmarks and tests; an archive import that
    /// anyone may send goes in parts (`importGalleryInParts`).
    public func importGallery(name: String, sections: [(title: String, items: [NewItem])]) async throws -> (GalleryInfo, [ItemJSON]) {
        let (name, sections) = try Self.checkImport(name: name, sections: sections)
        return try await database.write { db in
            let (gallery, sectionIds) = try Self.insertGallery(db, name: name, sections: sections.map(\.title), owner: nil)
            var created: [Int64] = []
            for (section, sectionId) in zip(sections, sectionIds) {
                for (item, rank) in zip(section.items, RankKey.keys(section.items.count, between: nil, and: nil)) {
                    created.append(try ItemRows.insert(db, gallery: gallery, section: sectionId, rank: rank, title: item.title, item, at: Self.now()))
                }
            }
            let items = try db.fetchAll("SELECT * FROM item WHERE galleryId = ? ORDER BY id", [gallery]).map { ItemRecord($0).json }
            return (try Self.galleryInfo(db, gallery), items)
        }
    }

    /// Creates a gallery from an import without holding the writer long: the gallery, its owner
    /// and its sections in one transaction, then the items a part at a time, each part a version
    /// of its own at the end of its section (as a folder import adds files), sized so that a part
    /// takes about `partTime` (100 to 2,000 items; during an import of 300,000 items a write
    /// elsewhere waited at most 28–42 ms, BENCHMARKS.md "Session 28"). Between two parts
    /// every other gallery's writes run; windows open on the gallery see it fill. (One
    /// transaction of 300,000 items held every gallery's writes ~26 s: the attacker review of
    /// session 27.) Name and titles are checked before anything is written; if a part fails, the
    /// gallery is deleted again. A process killed meanwhile leaves the parts written so far.
    public func importGalleryInParts(name: String, sections: [(title: String, items: [NewItem])], owner: Int64? = nil,
                                     partTime: Duration = .milliseconds(10)) async throws -> (GalleryInfo, [ItemJSON]) {
        let (name, sections) = try Self.checkImport(name: name, sections: sections)
        let gallery = try await createInParts(name: name, sections: sections.map { ($0.title, $0.items.count) }, owner: owner,
                                              partTime: partTime, operation: "import") { s, range in Array(sections[s].items[range]) }
        return try await database.read { db in
            (try Self.galleryInfo(db, gallery), try db.fetchAll("SELECT * FROM item WHERE galleryId = ? ORDER BY id", [gallery]).map { ItemRecord($0).json })
        }
    }

    /// A new gallery with `sections` (title, item count), filled a part at a time: `items(s, range)`
    /// answers section `s`'s items in `range`. Each part is one version at the end of its section,
    /// sized to take about `partTime` on the writer. If a part fails, the gallery is deleted again.
    func createInParts(name: String, sections: [(title: String, count: Int)], owner: Int64?, partTime: Duration, operation: String,
                       items: (Int, Range<Int>) async throws -> [NewItem]) async throws -> Int64 {
        let (gallery, sectionIds) = try await database.write { db in
            try Self.insertGallery(db, name: name, sections: sections.map(\.title), owner: owner)
        }
        do {
            var part = 250
            for (s, sectionId) in sectionIds.enumerated() {
                var start = 0
                while start < sections[s].count {
                    let end = min(start + part, sections[s].count)
                    let chunk = try await items(s, start..<end)
                    let began = ContinuousClock.now
                    if !chunk.isEmpty {
                        _ = try await apply(gallery: gallery, [.insert(chunk, at: .end(section: sectionId))],
                                            payload: ["op": operation, "items": "\(chunk.count)"])
                    }
                    let took = ContinuousClock.now - began  // with the wait for the writer: an upper bound
                    if took < partTime / 2 { part = min(part * 2, 2000) } else if took > partTime * 2 { part = max(part / 2, 100) }
                    start = end
                }
            }
        } catch {
            try? await deleteGallery(gallery)
            throw error
        }
        return gallery
    }

    /// An import's name and titles as a batch takes them (an archive's manifest held 1 MiB titles,
    /// the attacker review of session 27): the whole import refused before anything is written.
    static func checkImport(name: String, sections: [(title: String, items: [NewItem])]) throws -> (String, [(title: String, items: [NewItem])]) {
        let name = try checkName(name)
        let sections = sections.isEmpty ? [(title: "Section 1", items: [NewItem]())] : sections
        for section in sections {
            _ = try BatchContext.checkTitle(section.title)
            for item in section.items { _ = try BatchContext.checkTitle(item.title) }
        }
        return (name, sections)
    }

    /// A gallery's row at version 0, its owner and its (empty) sections in order.
    static func insertGallery(_ db: any SQLConnection, name: String, sections: [String], owner: Int64?) throws -> (Int64, [Int64]) {
        let gallery = try db.insert("INSERT INTO gallery (name, version, createdAt) VALUES (?, 0, ?) RETURNING id", [name, now()])
        var ids: [Int64] = []
        for (title, key) in zip(sections, RankKey.keys(sections.count, between: nil, and: nil)) {
            ids.append(try db.insert("INSERT INTO section (galleryId, title, rank, deleted) VALUES (?, ?, ?, 0) RETURNING id",
                                     [gallery, title, key]))
        }
        try makeOwner(db, gallery: gallery, account: owner)
        return (gallery, ids)
    }
}
