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
            try dropLogBehindWindow(db, gallery: gallery, atMost: nil)
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
        try dropLogBehindWindow(db, gallery: gallery, atMost: compactRows)
    }

    /// The log rows up to the oldest checkpoint kept (never replayed again): all of them, or the
    /// oldest `atMost` versions of them.
    static func dropLogBehindWindow(_ db: any SQLConnection, gallery: Int64, atMost: Int?) throws {
        let behind = "DELETE FROM operation WHERE galleryId = ? AND version <= (SELECT MIN(version) FROM checkpoint WHERE galleryId = ?)"
        if let atMost {
            try db.execute(behind + " AND version < (SELECT MIN(version) FROM operation WHERE galleryId = ?) + ?",
                           [gallery, gallery, gallery, atMost])
        } else {
            try db.execute(behind, [gallery, gallery])
        }
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

    /// The blob of a checkpoint, "GS2\0" then unsigned LEB128 varints: the section count; per
    /// section its id, its item count, each item id as the zigzag-encoded difference from the id
    /// before it in the section (the first from 0), then each item's content version. A library
    /// mostly keeps the order it was imported in (neighbours' ids one apart) and its items' first
    /// versions: ~2 bytes an item, where GS1's fixed 12 wrote 1.2 MB at 100k items and 12 MB at 1M
    /// every checkpoint interval; a 100k gallery shuffled at random ~4–5 (issue 15.3: the
    /// checkpoint's insert and its later delete were the longest steps of the writer's turn).
    /// Blobs written before session 32 ("GS1\0", below) still decode.
    static func encode(_ snapshot: Snapshot) -> Data {
        var sections: [(id: SectionID, items: ArraySlice<ItemID>, versions: ArraySlice<UInt32>)] = []
        sections.reserveCapacity(snapshot.sectionCount)
        for s in 0..<snapshot.sectionCount {
            sections.append((snapshot.sectionID(at: s), snapshot.items(inSection: s)[...], snapshot.versions(inSection: s)[...]))
        }
        return encode(sections)
    }

    /// `encode` of sections that need not make a snapshot (a test writes damaged blobs with it).
    static func encode(sections: [(id: SectionID, items: [ItemID], versions: [UInt32])]) -> Data {
        encode(sections.map { ($0.id, $0.items[...], $0.versions[...]) })
    }

    private static func encode(_ sections: [(id: SectionID, items: ArraySlice<ItemID>, versions: ArraySlice<UInt32>)]) -> Data {
        // Room for the longest varints (10 bytes a 64-bit value, 5 a version), written without
        // bounds checks into one allocation that becomes the Data (no copy, never zeroed).
        var worst = 4 + 10
        for s in sections {
            precondition(s.items.count == s.versions.count, "a section's items and versions differ in count")
            worst += 20 + s.items.count * 10 + s.versions.count * 5
        }
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: worst)
        var at = 0
        @inline(__always) func put(_ value: UInt64) {
            var v = value
            while v >= 0x80 {
                out[at] = UInt8(truncatingIfNeeded: v) | 0x80
                v &>>= 7
                at &+= 1
            }
            out[at] = UInt8(truncatingIfNeeded: v)
            at &+= 1
        }
        out[0] = 0x47; out[1] = 0x53; out[2] = 0x32; out[3] = 0
        at = 4
        put(UInt64(sections.count))
        for s in sections {
            put(s.id.rawValue)
            put(UInt64(s.items.count))
            var previous: UInt64 = 0
            s.items.withUnsafeBufferPointer { ids in
                for id in ids {
                    let d = Int64(bitPattern: id.rawValue &- previous)
                    put(UInt64(bitPattern: (d &<< 1) ^ (d >> 63)))
                    previous = id.rawValue
                }
            }
            s.versions.withUnsafeBufferPointer { versions in
                for v in versions { put(UInt64(v)) }
            }
        }
        precondition(at <= worst)
        return Data(bytesNoCopy: out, count: at, deallocator: .custom { pointer, _ in
            pointer.assumingMemoryBound(to: UInt8.self).deallocate()
        })
    }

    /// nil when the blob is not one `encode` wrote (wrong tag, truncated, trailing bytes, invalid snapshot).
    static func decode(_ data: Data) -> Snapshot? {
        decodeSections(data).flatMap { try? Snapshot($0) }
    }

    /// The sections of a blob `encode` wrote (GS2, or GS1 from before session 32), not checked
    /// for repeated ids; nil when it is not one (wrong tag, truncated, trailing bytes, a varint
    /// too long or out of range).
    static func decodeSections(_ data: Data) -> [(id: SectionID, items: [ItemID], versions: [UInt32])]? {
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> [(id: SectionID, items: [ItemID], versions: [UInt32])]? in
            guard raw.count >= 4, raw[0] == 0x47, raw[1] == 0x53, raw[3] == 0 else { return nil }
            switch raw[2] {
            case 0x32: return decodeGS2(raw)
            case 0x31: return decodeGS1(raw)
            default: return nil
            }
        }
    }

    private static func decodeGS2(_ raw: UnsafeRawBufferPointer) -> [(id: SectionID, items: [ItemID], versions: [UInt32])]? {
        var at = 4
        var damaged = false
        // One unsigned LEB128 varint; at most 10 bytes, the tenth 0 or 1. Sets `damaged` and
        // answers 0 when the bytes run out or the value does not fit in 64 bits.
        @inline(__always) func varint() -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while at < raw.count {
                let byte = raw[at]
                at &+= 1
                if shift == 63 && byte > 1 { break }
                value |= UInt64(byte & 0x7F) &<< shift
                if byte < 0x80 { return value }
                shift &+= 7
            }
            damaged = true
            return 0
        }
        let count = varint()
        // Each section takes at least 2 bytes (id, count): a damaged count allocates nothing big.
        guard !damaged, count <= UInt64(raw.count - at) / 2 else { return nil }
        var sections: [(id: SectionID, items: [ItemID], versions: [UInt32])] = []
        sections.reserveCapacity(Int(count))
        for _ in 0..<count {
            let id = varint(), n64 = varint()
            // Each item takes at least 2 bytes (its id's difference, its version).
            guard !damaged, n64 <= UInt64(raw.count - at) / 2 else { return nil }
            let n = Int(n64)
            var previous: UInt64 = 0
            let items = [ItemID](unsafeUninitializedCapacity: n) { buffer, done in
                for k in 0..<n {
                    let z = varint()
                    previous &+= UInt64(bitPattern: Int64(bitPattern: z &>> 1) ^ -Int64(bitPattern: z & 1))
                    buffer[k] = ItemID(previous)
                }
                done = n
            }
            let versions = [UInt32](unsafeUninitializedCapacity: n) { buffer, done in
                for k in 0..<n {
                    let v = varint()
                    if v > UInt64(UInt32.max) { damaged = true }
                    buffer[k] = UInt32(truncatingIfNeeded: v)
                }
                done = n
            }
            guard !damaged else { return nil }
            sections.append((SectionID(id), items, versions))
        }
        guard at == raw.count else { return nil }
        return sections
    }

    /// Blobs written before session 32, little-endian: "GS1\0", section count (4 bytes), then per
    /// section its id (8), item count (4), item ids (8 each) and content versions (4 each).
    private static func decodeGS1(_ raw: UnsafeRawBufferPointer) -> [(id: SectionID, items: [ItemID], versions: [UInt32])]? {
        var at = 4
        func get<T: FixedWidthInteger>(_: T.Type) -> T? {
            guard at + MemoryLayout<T>.size <= raw.count else { return nil }
            defer { at += MemoryLayout<T>.size }
            return T(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: T.self))
        }
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
