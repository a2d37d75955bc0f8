import Foundation
import GRDB
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
///   compact binary form) is written in the batch's transaction at every version that is a
///   multiple of `LiveGallery.checkpointEvery`, and once when a process first loads a gallery
///   (at the version it finds). Checkpoints older than the window are deleted.
/// - On a gallery's first load in a process, the in-memory `LiveGallery` window is rebuilt from
///   the checkpoints inside the window and the stages after the oldest of them. The newest
///   stretch (from the newest checkpoint) is replayed at once and must land exactly on the
///   snapshot read from the rows; each older stretch must land exactly on the checkpoint after
///   it, checked the first time a catch-up needs it. Where the history does not add up — a hole
///   in the log, an undecodable row, a version written by older code, a wrong stage — the
///   window is cut after it: the client gets a full snapshot, never a wrong diff.
enum CatchUpLog {
    static var window: Int64 { Int64(LiveGallery.maxCheckpoints) * LiveGallery.checkpointEvery }

    // MARK: Writing (inside the batch transaction)

    static func encodeStages(_ stages: [StageJSON]) throws -> String {
        String(decoding: try JSONEncoder().encode(stages), as: UTF8.self)
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

    /// Writes the checkpoint of a version that is a multiple of `checkpointEvery`, and drops the
    /// checkpoints that fell out of the window.
    static func checkpointIfDue(_ db: Database, gallery: Int64, version: Int64, snapshot: Snapshot) throws {
        guard version % LiveGallery.checkpointEvery == 0 else { return }
        try writeCheckpoint(db, gallery: gallery, version: version, snapshot: snapshot)
    }

    static func writeCheckpoint(_ db: Database, gallery: Int64, version: Int64, snapshot: Snapshot) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO checkpoint (galleryId, version, snapshot) VALUES (?, ?, ?)",
                       arguments: [gallery, version, encode(snapshot)])
        try db.execute(sql: "DELETE FROM checkpoint WHERE galleryId = ? AND version < ?", arguments: [gallery, version - window])
        // The log is compacted behind the window: versions up to the oldest checkpoint kept are
        // never replayed again (catch-up from further back answers the snapshot), so their rows
        // go, and the log stays at about `window` rows per gallery however long it lives.
        try db.execute(sql: """
            DELETE FROM operation WHERE galleryId = ? AND version <= (SELECT MIN(version) FROM checkpoint WHERE galleryId = ?)
            """, arguments: [gallery, gallery])
    }

    // MARK: Rebuilding the window (a gallery's first load in this process)

    /// The live gallery at `version` with as much of the window as the database holds.
    static func restore(_ db: Database, gallery: Int64, version: Int64, snapshot: Snapshot) throws -> LiveGallery {
        let fresh = LiveGallery(version: version, snapshot: snapshot)
        let restored = try rebuild(db, gallery: gallery, version: version, snapshot: snapshot) ?? fresh
        // The version found at load is a checkpoint of its own, so that after the next restart
        // catch-up reaches back at least to here.
        if try !Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM checkpoint WHERE galleryId = ? AND version = ?)",
                              arguments: [gallery, version])! {
            try writeCheckpoint(db, gallery: gallery, version: version, snapshot: snapshot)
        }
        return restored
    }

    static func rebuild(_ db: Database, gallery: Int64, version: Int64, snapshot: Snapshot) throws -> LiveGallery? {
        let low = version - window
        let checkpointRows = try Row.fetchAll(db, sql: """
            SELECT version, snapshot FROM checkpoint WHERE galleryId = ? AND version >= ? AND version <= ? ORDER BY version
            """, arguments: [gallery, low, version])
        guard let oldestRow = checkpointRows.first else { return nil }
        let oldest: Int64 = oldestRow["version"]
        // The complete tail of the log: every version from `complete + 1` to now, with its stages.
        let rows = try Row.fetchAll(db, sql: """
            SELECT version, stages FROM operation WHERE galleryId = ? AND version > ? AND version <= ? ORDER BY version
            """, arguments: [gallery, oldest, version])
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
        var checkpoints: [(version: Int64, snapshot: Snapshot)] = []
        for row in checkpointRows {
            let v: Int64 = row["version"]
            guard v >= complete, let data = row["snapshot"] as Data?, let s = decode(data) else { continue }
            checkpoints.append((v, s))
        }
        guard let first = checkpoints.first, let newest = checkpoints.last else { return nil }
        log.removeAll { $0.version <= first.version }
        // The newest stretch must arrive exactly at the rows' snapshot (at most 249 versions are
        // replayed here, on the writer's queue); older stretches are checked against the
        // checkpoint after them when a catch-up first reaches into them (LiveGallery.snapshot(at:)).
        var s = newest.snapshot
        for entry in log where entry.version > newest.version {
            for stage in entry.stages {
                guard s.applyChecked(stage) else { return nil }
            }
        }
        guard s == snapshot else { return nil }
        var live = LiveGallery(version: first.version, snapshot: first.snapshot)
        live.checkpoints = checkpoints
        live.log = log
        live.version = version
        live.snapshot = snapshot
        live.itemCount = snapshot.itemCount
        live.verifiedFrom = newest.version
        return live
    }

    // MARK: Snapshot blobs

    /// Little-endian: "GS1\0", section count, then per section its id, item count, item ids and
    /// content versions (12 bytes an item: 1.2 MB for 100k items).
    static func encode(_ snapshot: Snapshot) -> Data {
        var out = [UInt8]()
        out.reserveCapacity(8 + snapshot.sectionCount * 12 + snapshot.itemCount * 12)
        func put64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        func put32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        out.append(contentsOf: [0x47, 0x53, 0x31, 0])
        put32(UInt32(snapshot.sectionCount))
        for s in 0..<snapshot.sectionCount {
            let items = snapshot.items(inSection: s), versions = snapshot.versions(inSection: s)
            put64(snapshot.sectionID(at: s).rawValue)
            put32(UInt32(items.count))
            for id in items { put64(id.rawValue) }
            for v in versions { put32(v) }
        }
        return Data(out)
    }

    /// nil when the blob is not one `encode` wrote (wrong tag, truncated, trailing bytes, invalid snapshot).
    static func decode(_ data: Data) -> Snapshot? {
        let bytes = [UInt8](data)
        var at = 0
        func get(_ n: Int) -> UInt64? {
            guard at + n <= bytes.count else { return nil }
            var v: UInt64 = 0
            for k in 0..<n { v |= UInt64(bytes[at + k]) << (8 * UInt64(k)) }
            at += n
            return v
        }
        guard bytes.starts(with: [0x47, 0x53, 0x31, 0]) else { return nil }
        at = 4
        guard let count = get(4) else { return nil }
        var sections: [(id: SectionID, items: [ItemID], versions: [UInt32])] = []
        for _ in 0..<count {
            guard let id = get(8), let n = get(4), at + Int(n) * 12 <= bytes.count else { return nil }
            var items: [ItemID] = [], versions: [UInt32] = []
            items.reserveCapacity(Int(n)); versions.reserveCapacity(Int(n))
            for _ in 0..<n { items.append(ItemID(get(8)!)) }
            for _ in 0..<n { versions.append(UInt32(get(4)!)) }
            sections.append((SectionID(id), items, versions))
        }
        guard at == bytes.count else { return nil }
        return try? Snapshot(sections)
    }
}
