import Foundation
import GridEngine
import GalleryCore

/// The persisted side of the catch-up window (migration "v2 persisted catch-up"), so that a
/// client that reconnects with `?since=V` after a server restart still gets the staged diff
/// from V to now instead of a full snapshot.
///
/// - Every batch writes its stages (JSON `[StageJSON]`, with the ids of the items each stage
///   deletes, moves and reloads — what the live stream sent) into its own `operation` row, in
///   the batch's transaction: a version is never committed without them. Catch-up serves them
///   as they are, one version after another (O(changes)).
/// - A checkpoint snapshot (the engine snapshot: section ids, item ids, content versions, in a
///   compact binary form) is kept for every version that is a multiple of the gallery's
///   `LiveGallery.checkpointInterval` (250 versions up to 50k items, 1,000 at 100k, at most 2,000),
///   written by the transaction of the batch after it (from that batch's snapshot before: no
///   copy), and once when a process first loads a gallery (at the version it finds). All but the
///   newest `maxCheckpoints + 1` are deleted, and the log rows up to the oldest kept: at once by
///   a first load that writes its checkpoint, behind batches a step every `compactEvery` versions
///   (`compactStep`).
/// - On a gallery's first load in a process, the in-memory `LiveGallery` window is rebuilt from
///   the checkpoints inside the window and the stages after the oldest of them. The newest
///   stretch (from the newest checkpoint) is replayed at once and must land exactly on the
///   snapshot read from the rows; each older stretch must land exactly on the checkpoint after
///   it, checked the first time a catch-up needs it. Where the history does not add up — a hole
///   in the log, an undecodable row, a version written by older code, a wrong stage — the
///   window is cut after it: the client gets a full snapshot, never a wrong diff.
enum CatchUpLog {
    /// The window of a gallery up to `LiveGallery.itemsPerInterval` items, in versions (bigger
    /// galleries: longer), for a store's `historyEvery`.
    static func window(every: Int64 = LiveGallery.checkpointEvery) -> Int64 { Int64(LiveGallery.maxCheckpoints) * every }

    // MARK: Writing (inside the batch transaction)

    static func encodeStages(_ stages: [StageJSON]) throws -> String {
        String(decoding: StageJSON.json(stages), as: UTF8.self)
    }

    /// nil unless every stage is well formed and names its items (rows written before the ids
    /// were logged do not: the window is cut there, as at a hole).
    static func decodeStages(_ text: String) -> [StageJSON]? {
        guard let json = try? JSONDecoder().decode([StageJSON].self, from: Data(text.utf8)) else { return nil }
        for s in json {
            guard s.batchUpdate != nil, s.deletedIDs != nil, s.movedIDs != nil, s.reloadedIDs != nil else { return nil }
        }
        return json
    }

    /// Writes the checkpoint of a version. With `compact` (a gallery's first load; never a batch) it then drops
    /// the checkpoints that fell out of the window (all but the newest `maxCheckpoints + 1`: the
    /// interval depends on the gallery's size) and every log row behind them; a batch leaves that
    /// to `compactStep` (the rebuilt window reads the newest checkpoints and the rows after the
    /// oldest of them: older ones are never read). Answers the blob's size in bytes.
    @discardableResult
    static func writeCheckpoint(_ db: any SQLConnection, gallery: Int64, version: Int64, snapshot: Snapshot, compact: Bool) throws -> Int {
        let blob = encode(snapshot)
        try db.execute("""
            INSERT INTO checkpoint (galleryId, version, snapshot) VALUES (?, ?, ?)
            ON CONFLICT (galleryId, version) DO UPDATE SET snapshot = excluded.snapshot
            """, [gallery, version, blob])
        if compact {
            try dropOldCheckpoints(db, gallery: gallery)
            try db.execute("""
                DELETE FROM operation WHERE galleryId = ? AND version <= (SELECT MIN(version) FROM checkpoint WHERE galleryId = ?)
                """, [gallery, gallery])
        }
        return blob.count
    }

    /// Versions from one step of the log's compaction to the next (`compactStep`), and the most
    /// log rows one step deletes.
    static let compactEvery: Int64 = 16
    static let compactRows = 64

    /// One step of the compaction behind the window, made by the batch of every `compactEvery`-th
    /// version: the checkpoints that fell out of the window, and at most `compactRows` of the log
    /// rows up to the oldest checkpoint kept — never replayed again (catch-up from further back
    /// answers the snapshot). Four times as fast as the log grows, so it stays at about `window`
    /// rows per gallery (plus a quarter interval) however long the gallery lives.
    ///
    /// It was all done by the batch that wrote a checkpoint: at 100k items under 50 clients moving
    /// (session 31) 7.7 ms a checkpoint on average, longest 30 ms — the blob 0.5 ms to encode
    /// and 1.9 ms to insert, the old one 2.4 ms to delete, ~1,000 log rows 3.0 ms — while every
    /// batch queued behind it waited. Now the old checkpoint goes in a later turn of the writer
    /// and the rows 64 at a time (~0.2 ms).
    static func compactStep(_ db: any SQLConnection, gallery: Int64) throws {
        try dropOldCheckpoints(db, gallery: gallery)
        try db.execute("""
            DELETE FROM operation WHERE galleryId = ? AND version <= (SELECT MIN(version) FROM checkpoint WHERE galleryId = ?)
              AND version < (SELECT MIN(version) FROM operation WHERE galleryId = ?) + ?
            """, [gallery, gallery, gallery, compactRows])
    }

    /// All but the newest `maxCheckpoints + 1` checkpoints of a gallery go.
    static func dropOldCheckpoints(_ db: any SQLConnection, gallery: Int64) throws {
        try db.execute("""
            DELETE FROM checkpoint WHERE galleryId = ? AND version < (
              SELECT MIN(version) FROM (SELECT version FROM checkpoint WHERE galleryId = ? ORDER BY version DESC LIMIT ?) AS newest)
            """, [gallery, gallery, LiveGallery.maxCheckpoints + 1])
    }

    /// A checkpoint's snapshot; nil when there is none at `version` or its blob does not decode.
    static func loadCheckpoint(_ db: any SQLConnection, gallery: Int64, version: Int64) throws -> Checkpoint? {
        guard let data = try db.value("SELECT snapshot FROM checkpoint WHERE galleryId = ? AND version = ?",
                                      [gallery, version], as: Data.self) else { return nil }
        return decodeSections(data).map(Checkpoint.init)
    }

    /// A checkpoint as read: its sections' arrays, not yet a `Snapshot` (whose id table costs
    /// ~1M hash inserts at 1M items): a history check compares the arrays it arrives at with
    /// them (`SnapshotReplay.hasSections`) and builds a snapshot only of the one it starts from.
    struct Checkpoint {
        var sections: [(id: SectionID, items: [ItemID], versions: [UInt32])]
        /// The snapshot, or nil when the blob is not a valid one (an id twice).
        var snapshot: Snapshot? { try? Snapshot(sections) }
    }

    // MARK: Rebuilding the window (a gallery's first load in this process)

    /// The live gallery at `version` with as much of the window as the database holds.
    static func restore(_ db: any SQLConnection, gallery: Int64, version: Int64, snapshot: Snapshot) throws -> LiveGallery {
        // The version found at load is a checkpoint of its own, so that after the next restart
        // catch-up reaches back at least to here. Written first: it may push the oldest checkpoint
        // out, and the rebuilt window must not name a checkpoint that is gone.
        if try !db.exists("SELECT 1 FROM checkpoint WHERE galleryId = ? AND version = ?", [gallery, version]) {
            try writeCheckpoint(db, gallery: gallery, version: version, snapshot: snapshot, compact: true)
        }
        return try rebuild(db, gallery: gallery, version: version, snapshot: snapshot) ?? LiveGallery(version: version, snapshot: snapshot)
    }

    static func rebuild(_ db: any SQLConnection, gallery: Int64, version: Int64, snapshot: Snapshot) throws -> LiveGallery? {
        // The newest checkpoints at or before now (`compactStep` keeps maxCheckpoints + 1; one more
        // can be there until the next step).
        let versions = try db.values("""
            SELECT version FROM checkpoint WHERE galleryId = ? AND version <= ? ORDER BY version DESC LIMIT ?
            """, [gallery, version, LiveGallery.maxCheckpoints + 1], as: Int64.self).reversed()
        guard let oldest = versions.first else { return nil }
        // The complete tail of the log: every version from `complete + 1` to now, with its stages.
        let rows = try db.fetchAll("""
            SELECT version, stages FROM operation WHERE galleryId = ? AND version > ? AND version <= ? ORDER BY version
            """, [gallery, oldest, version])
        var log: [(version: Int64, stages: [StageJSON])] = []
        var expected = version
        for row in rows.reversed() {
            let v: Int64 = row["version"]
            guard v == expected, let text = row["stages"] as String?, let stages = decodeStages(text) else { break }
            log.append((v, stages))
            expected -= 1
        }
        log.reverse()
        let complete = expected
        let checkpoints = versions.filter { $0 >= complete }
        guard let first = checkpoints.first, let newestVersion = checkpoints.last,
              let newest = try loadCheckpoint(db, gallery: gallery, version: newestVersion) else { return nil }
        log.removeAll { $0.version <= first }
        // Usually the newest checkpoint is the version found (`restore` writes it first): then it
        // must be the rows' snapshot item for item, compared as read, without building a second
        // snapshot of 1M items with its id table (~40 ms at 1M, session 16).
        guard newestVersion < version else {
            return SnapshotReplay(snapshot).hasSections(newest.sections) ? live(log) : nil
        }
        // Replayed without the snapshot's id → position table (`SnapshotReplay`, session 16;
        // session 15's in-place `Snapshot` only for a benchmark's baseline).
        guard var s = HistoryReplayer(newest, LiveGallery.historyReplay) else { return nil }
        // The newest stretch must arrive exactly at the rows' snapshot (at most one interval of
        // versions is replayed here, on the writer's queue); older stretches are checked against
        // the checkpoint after them when a catch-up first reaches into them
        // (LiveGallery.verifyHistory, reading the checkpoints from SQLite then).
        for entry in log where entry.version > newestVersion {
            for stage in entry.stages {
                guard s.applyChecked(stage) else { return nil }
            }
        }
        guard s.matches(snapshot) else { return nil }
        return live(log)

        func live(_ log: [(version: Int64, stages: [StageJSON])]) -> LiveGallery {
            var g = LiveGallery(version: version, snapshot: snapshot)
            g.checkpoints = checkpoints
            g.log = log
            g.verifiedFrom = newestVersion
            return g
        }
    }

    // MARK: Snapshot blobs

    /// Little-endian: "GS1\0", section count, then per section its id, item count, item ids and
    /// content versions (12 bytes an item: 1.2 MB for 100k items). Written a section's ids and
    /// versions at a time (a 1M gallery's blob byte by byte showed up on the writer, issue 15).
    static func encode(_ snapshot: Snapshot) -> Data {
        var size = 8
        for s in 0..<snapshot.sectionCount { size += 12 + snapshot.items(inSection: s).count * 12 }
        var out = Data(count: size)
        out.withUnsafeMutableBytes { (raw: UnsafeMutableRawBufferPointer) in
            var at = 0
            func put<T: FixedWidthInteger>(_ v: T) {
                withUnsafeBytes(of: v.littleEndian) { raw.baseAddress!.advanced(by: at).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                at += MemoryLayout<T>.size
            }
            for (k, b) in [0x47, 0x53, 0x31, 0].enumerated() { raw[k] = UInt8(b) }
            at = 4
            put(UInt32(snapshot.sectionCount))
            for s in 0..<snapshot.sectionCount {
                let items = snapshot.items(inSection: s), versions = snapshot.versions(inSection: s)
                put(snapshot.sectionID(at: s).rawValue)
                put(UInt32(items.count))
                #if _endian(little)
                items.withUnsafeBytes { raw.baseAddress!.advanced(by: at).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                at += items.count * 8
                versions.withUnsafeBytes { raw.baseAddress!.advanced(by: at).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                at += versions.count * 4
                #else
                for id in items { put(id.rawValue) }
                for v in versions { put(v) }
                #endif
            }
            precondition(at == size)
        }
        return out
    }

    /// nil when the blob is not one `encode` wrote (wrong tag, truncated, trailing bytes, invalid snapshot).
    static func decode(_ data: Data) -> Snapshot? {
        decodeSections(data).flatMap { try? Snapshot($0) }
    }

    /// The sections of a blob `encode` wrote, not checked for repeated ids; nil when it is not one
    /// (wrong tag, truncated, trailing bytes).
    static func decodeSections(_ data: Data) -> [(id: SectionID, items: [ItemID], versions: [UInt32])]? {
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> [(id: SectionID, items: [ItemID], versions: [UInt32])]? in
            var at = 0
            func get<T: FixedWidthInteger>(_: T.Type) -> T? {
                guard at + MemoryLayout<T>.size <= raw.count else { return nil }
                defer { at += MemoryLayout<T>.size }
                return T(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: T.self))
            }
            guard raw.count >= 4, raw[0] == 0x47, raw[1] == 0x53, raw[2] == 0x31, raw[3] == 0 else { return nil }
            at = 4
            guard let count = get(UInt32.self) else { return nil }
            var sections: [(id: SectionID, items: [ItemID], versions: [UInt32])] = []
            for _ in 0..<count {
                guard let id = get(UInt64.self), let n32 = get(UInt32.self) else { return nil }
                let n = Int(n32)
                guard at + n * 12 <= raw.count else { return nil }
                let base = at
                let items = [ItemID](unsafeUninitializedCapacity: n) { buffer, done in
                    for k in 0..<n { buffer[k] = ItemID(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: base + 8 * k, as: UInt64.self))) }
                    done = n
                }
                let vbase = base + 8 * n
                let versions = [UInt32](unsafeUninitializedCapacity: n) { buffer, done in
                    for k in 0..<n { buffer[k] = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: vbase + 4 * k, as: UInt32.self)) }
                    done = n
                }
                at = base + 12 * n
                sections.append((SectionID(id), items, versions))
            }
            guard at == raw.count else { return nil }
            return sections
        }
    }
}
