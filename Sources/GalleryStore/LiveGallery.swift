import GridEngine
import GalleryCore
import Synchronization

/// The in-memory side of one gallery: its engine snapshot at the current version and a bounded
/// window of recent versions, so that a client that reconnects at an old version gets the staged
/// changes from it to now instead of a full reload.
///
/// The window keeps the stages of every version since the oldest checkpoint (with the ids they
/// touch, as the live stream sent them) and the versions of the checkpoints, one every
/// `checkpointInterval` versions. Catching up from an old version is the stages logged since, one
/// after the other: O(changes), whatever the gallery's size (issue 15). Older than the oldest
/// checkpoint: the caller answers with the full snapshot instead.
///
/// The checkpoints' snapshots live only in SQLite (`CatchUpLog`), never in memory: a history this
/// process made is known to replay exactly, and a stretch rebuilt from SQLite after a restart is
/// checked by replaying it from the checkpoint before it to the one after it, both read from the
/// database then (`verifyHistory`). (A 1M gallery's snapshot is ~30 MB in memory; eight of them
/// per gallery, and a copy of the live one at every checkpoint, made moves at 1M slow and the
/// server big.)
struct LiveGallery {
    var version: Int64
    var snapshot: Snapshot
    /// Items in the arrangement at `version` (kept beside the snapshot, which a commit takes out
    /// of the map while it runs): the gallery list's count without a COUNT over the rows.
    var itemCount: Int
    /// The versions of the checkpoints in the window, oldest first (at least one).
    var checkpoints: [Int64]
    /// A checkpoint version whose snapshot is not in SQLite yet: the next batch writes it in its
    /// transaction from its `before` (the snapshot at that version), so that no batch copies the
    /// live snapshot to keep one. Lost on a crash before the next batch — harmless: a process
    /// that loads the gallery writes a checkpoint at the version it finds.
    var pendingCheckpoint: Int64?
    var log: [(version: Int64, stages: [StageJSON])] = []
    /// The history from this checkpoint version to now is known to replay exactly (this process
    /// built it, or it was checked). A window rebuilt from SQLite checks only its newest stretch
    /// when it is loaded; an older stretch is checked against the checkpoint after it the first
    /// time a catch-up reaches into it (`verifyHistory`).
    var verifiedFrom: Int64
    var subscribers: [Int: AsyncStream<GalleryEvent>.Continuation] = [:]
    /// The sections and name at the last version this process committed (the next hot-path
    /// batch's answer takes them from here: `GalleryStore.finish`).
    var sectionsAndName: SectionsAndName?

    /// Checkpoints at versions that are multiples of `checkpointInterval` (and where a process
    /// first loaded the gallery). Window: up to maxCheckpoints intervals.
    static let checkpointEvery: Int64 = 250
    static let maxCheckpoints = 8
    /// Up to this many items a checkpoint comes every `checkpointEvery` versions; the interval
    /// doubles each time the gallery doubles beyond (a power of two times 250: versions that are
    /// checkpoints stay multiples of every smaller interval). This bounds a checkpoint's bytes per
    /// version up to `maxInterval`: at 100k items one every 1,000 versions — 1.2 MB in the fixed
    /// layout of 12 bytes an item (GS1), ~250 KB in session 32's varints (GS2, ~2–5 bytes an
    /// item). (It was 100,000 items, ~5 KB a version: at 100k items under 50 clients moving, a
    /// 1.2 MB checkpoint every 250 versions was ~4 % of the writer's time and ~11 % of the WAL's
    /// bytes; one every 1,000 answered more moves at a lower p99 in the same run, BENCHMARKS.md
    /// "Catch-up checkpoints", issue 15.3.)
    static var itemsPerInterval: Int { itemsPerIntervalSetting.load(ordering: .relaxed) }
    static let itemsPerIntervalSetting = Atomic<Int>(25_000)
    /// The interval stops growing here (from 400k items; at 1M a 2 MB checkpoint every 2,000
    /// versions, as before): the window is `maxCheckpoints` intervals of stages kept in memory
    /// (~1 KB a version at 100 sections), so a longer interval at 1M would hold 64,000 versions'
    /// stages per gallery where 16,000 fit the server's memory budget (issue 15.5).
    static let maxInterval: Int64 = 2_000

    /// `every`: the store's `historyEvery` (`checkpointEvery` but in the test suite's history
    /// tests); the longest interval scales with it.
    static func checkpointInterval(itemCount: Int, every: Int64 = checkpointEvery) -> Int64 {
        let perInterval = Int64(itemsPerInterval)
        let longest = maxInterval / checkpointEvery * every
        var k: Int64 = 1
        while k * 2 * perInterval <= Int64(itemCount) && every * k * 2 <= longest { k *= 2 }
        return every * k
    }

    /// Whether `version` is a checkpoint for a gallery of `itemCount` items (the count before the batch).
    static func isCheckpoint(_ version: Int64, itemCount: Int, every: Int64 = checkpointEvery) -> Bool {
        version % checkpointInterval(itemCount: itemCount, every: every) == 0
    }

    init(version: Int64, snapshot: Snapshot) {
        self.version = version
        self.snapshot = snapshot
        itemCount = snapshot.itemCount
        checkpoints = [version]
        verifiedFrom = version
    }

    var oldestVersion: Int64 { checkpoints[0] }

    /// A committed version: its stages (with ids) into the log, and a checkpoint when the version
    /// is one (its snapshot goes into SQLite with the next batch: `pendingCheckpoint`). The live
    /// snapshot itself is set by the caller.
    mutating func commit(version newVersion: Int64, stages: [StageJSON], isCheckpoint: Bool) {
        log.append((newVersion, stages))
        version = newVersion
        if isCheckpoint, newVersion > checkpoints[checkpoints.count - 1] {
            checkpoints.append(newVersion)
            pendingCheckpoint = newVersion
            if checkpoints.count > LiveGallery.maxCheckpoints {
                // The oldest leaves; `maxCheckpoints` stay (up to that many intervals of versions,
                // as API.md says). Until session 32 this dropped the next one too (7 and 8 in turn).
                dropCheckpoints(before: checkpoints[1])
            }
        }
    }

    /// Keeps what a check on a copy of this window learned: a stretch it checked, or the cut
    /// after a stretch that did not add up. (Meanwhile this window may only have grown at the end
    /// or dropped its oldest checkpoints; the history they share is the same.)
    mutating func learn(from copy: LiveGallery) {
        if copy.oldestVersion > oldestVersion { dropCheckpoints(before: copy.oldestVersion) }
        if copy.verifiedFrom < verifiedFrom && checkpoints.contains(copy.verifiedFrom) {
            verifiedFrom = copy.verifiedFrom
        }
    }

    /// Forgets the checkpoints older than `v` (at least one stays) and the stages before the oldest.
    mutating func dropCheckpoints(before v: Int64) {
        checkpoints.removeAll { $0 < v }
        if checkpoints.isEmpty { checkpoints = [version] }
        let start = checkpoints[0]
        log.removeAll { $0.version <= start }
        verifiedFrom = max(verifiedFrom, start)
    }

    /// Checks that the history from `v` (inside the window) to now replays exactly: a stretch not
    /// yet checked is replayed from the checkpoint at or before `v` through each checkpoint after
    /// it up to `verifiedFrom`, and must arrive at each exactly (`load` reads a checkpoint from
    /// SQLite; nil when it is gone or unreadable). If it does not, the window is cut after the
    /// stretch and the answer is false (the caller sends the full snapshot, never a wrong diff).
    ///
    /// What it guards against: the log and checkpoints are rows a restarted process did not
    /// write itself (an earlier run's, or another instance's, or rows changed on disk since);
    /// a log row that does not take the checkpoint before it to the one after it — a stage
    /// lost, damaged or edited, a stage naming an item that is not where it says, a checkpoint
    /// blob that is not what the versions arrive at — must never reach a window as a diff.
    /// Every stage of the stretch is still applied with `applying`'s own validation and every
    /// checkpoint compared item for item (nothing is checked less); what changed in session 16
    /// is what the replay runs on: a `SnapshotReplay` (the arrangement's arrays and an id →
    /// section table) instead of a `Snapshot`, whose id → position table cost ~10,000 random
    /// writes a version at 1M items, and the checkpoints compared as read, without building a
    /// snapshot's tables for each (`HistoryCheckTests` damage a stage and a checkpoint on disk).
    /// (`inPlace: false`: each stage makes a whole new snapshot, as before session 15: the
    /// benchmark's same-run baseline only; `historyReplaySetting` picks session 15's in-place
    /// `Snapshot` replay for another.)
    mutating func verifyHistory(from v: Int64, inPlace: Bool = true, load: (Int64) throws -> CatchUpLog.Checkpoint?) rethrows -> Bool {
        guard v >= oldestVersion && v <= version else { return false }
        if v >= verifiedFrom { return true }
        let start = checkpoints.last { $0 <= v }!
        let mode: HistoryReplay = !inPlace ? .wholeSnapshots : LiveGallery.historyReplay
        guard let first = try load(start), var s = HistoryReplayer(first, mode) else {
            dropCheckpoints(before: verifiedFrom)
            return false
        }
        var next = checkpoints.firstIndex { $0 > start }!
        for entry in log where entry.version > start && entry.version <= verifiedFrom {
            for stage in entry.stages {
                guard s.applyChecked(stage) else {
                    dropCheckpoints(before: verifiedFrom)
                    return false
                }
            }
            if checkpoints[next] == entry.version {
                guard let expected = try load(entry.version), s.matches(expected) else {
                    dropCheckpoints(before: verifiedFrom)
                    return false
                }
                next += 1
                if next == checkpoints.count || checkpoints[next] > verifiedFrom { break }
            }
        }
        verifiedFrom = start
        return true
    }

    /// What a history check replays on (`verifyHistory`). Only `.replay` outside benchmarks.
    enum HistoryReplay: Int {
        /// `SnapshotReplay` (session 16): arrays and an id → section table.
        case replay
        /// `Snapshot.applyInPlace` (session 15): the touched sections and their id-table entries.
        case inPlace
        /// `Snapshot.applying`: a whole new snapshot per stage (before session 15).
        case wholeSnapshots
    }
    static var historyReplay: HistoryReplay { HistoryReplay(rawValue: historyReplaySetting.load(ordering: .relaxed)) ?? .replay }
    static let historyReplaySetting = Atomic<Int>(HistoryReplay.replay.rawValue)
}

/// The arrangement a history check carries from one checkpoint to the next (`verifyHistory`).
struct HistoryReplayer {
    var replay: SnapshotReplay?
    var snapshot: Snapshot
    let mode: LiveGallery.HistoryReplay

    /// nil when the checkpoint is not a valid snapshot (an id twice).
    init?(_ checkpoint: CatchUpLog.Checkpoint, _ mode: LiveGallery.HistoryReplay) {
        guard let s = checkpoint.snapshot else { return nil }
        self.mode = mode
        if mode == .replay {
            replay = SnapshotReplay(s)
            snapshot = Snapshot()
        } else {
            snapshot = s
        }
    }

    mutating func applyChecked(_ stage: StageJSON) -> Bool {
        switch mode {
        case .replay: return replay!.applyChecked(stage)
        case .inPlace: return snapshot.applyChecked(stage, inPlace: true)
        case .wholeSnapshots: return snapshot.applyChecked(stage, inPlace: false)
        }
    }

    /// Whether the replay arrived exactly at `checkpoint`. The earlier modes compared snapshots
    /// decoded with their tables, as they did.
    func matches(_ checkpoint: CatchUpLog.Checkpoint) -> Bool {
        if let replay { return replay.hasSections(checkpoint.sections) }
        return checkpoint.snapshot == snapshot
    }

    /// Whether the replay arrived exactly at `expected` (the snapshot read from the item rows).
    func matches(_ expected: Snapshot) -> Bool {
        if let replay { return replay == expected }
        return snapshot == expected
    }
}

extension LiveGallery {
    /// The stages of every version after `v`, in order (what a client at `v` applies to arrive
    /// now), and the ids of the items they insert or reload; nil outside the window or before
    /// the stretch of history known to replay exactly (`verifiedFrom`: check it first with
    /// `snapshot(at:)`). O(versions since `v` + their changes).
    func stages(since v: Int64) -> (stages: [StageJSON], arriving: Set<Int64>)? {
        stageParts(since: v, versions: .max).map { ($0[0].stages, $0[0].arriving) }
    }

    /// `stages(since:)` cut into parts of at most `versions` versions each, in order: each with the
    /// version it ends at (the last: now). At least one part.
    func stageParts(since v: Int64, versions per: Int) -> [(to: Int64, stages: [StageJSON], arriving: Set<Int64>)]? {
        logAfter(v).map { Self.parts(of: $0, versions: per, now: version) }
    }

    /// The entries of the log after version `v` — the log's own storage, not a copy: O(log n),
    /// what a caller takes under the lock to cut into parts outside it (`parts(of:)`) — or nil
    /// outside the window or before `verifiedFrom`.
    func logAfter(_ v: Int64) -> ArraySlice<(version: Int64, stages: [StageJSON])>? {
        guard v >= oldestVersion, v >= verifiedFrom, v <= version else { return nil }
        // The log is in version order and complete after the oldest checkpoint.
        var lo = 0, hi = log.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if log[mid].version <= v { lo = mid + 1 } else { hi = mid }
        }
        return log[lo...]
    }

    /// Entries of the log (`logAfter`) cut into parts of at most `per` versions, the last ending
    /// at `now`, with the ids of the items each part's stages insert or reload. At least one part.
    static func parts(of entries: ArraySlice<(version: Int64, stages: [StageJSON])>, versions per: Int,
                      now: Int64) -> [(to: Int64, stages: [StageJSON], arriving: Set<Int64>)] {
        var parts: [(to: Int64, stages: [StageJSON], arriving: Set<Int64>)] = []
        var out: [StageJSON] = []
        var arriving: Set<Int64> = []
        var count = 0
        for entry in entries {
            for stage in entry.stages {
                out.append(stage)
                for i in stage.itemInserts { arriving.insert(Int64(i.id)) }
                for s in stage.sectionInserts { for id in s.items { arriving.insert(Int64(id)) } }
                for id in stage.reloadedIDs ?? [] { arriving.insert(Int64(id)) }
            }
            count += 1
            if count == per {
                parts.append((entry.version, out, arriving))
                out = []
                arriving = []
                count = 0
            }
        }
        if count > 0 || parts.isEmpty { parts.append((now, out, arriving)) }
        return parts
    }
}

/// What a logged stage is checked against before it is applied (`applyChecked`).
protocol StagePositions {
    func isValid(_ indexPath: IndexPath) -> Bool
    func itemID(at indexPath: IndexPath) -> ItemID
}
extension Snapshot: StagePositions {}
extension SnapshotReplay: StagePositions {}

extension StagePositions {
    /// The stage's batch update when the items it names (deleted, moved, reloaded) are where it
    /// says; nil otherwise.
    func checkedBatch(_ stage: StageJSON) -> BatchUpdate? {
        guard let b = stage.batchUpdate, let deleted = stage.deletedIDs, let moved = stage.movedIDs, let reloaded = stage.reloadedIDs,
              deleted.count == b.itemDeletes.count, moved.count == b.itemMoves.count, reloaded.count == b.itemReloads.count else { return nil }
        func at(_ p: IndexPath, _ id: UInt64) -> Bool { isValid(p) && itemID(at: p).rawValue == id }
        guard zip(b.itemDeletes, deleted).allSatisfy(at), zip(b.itemMoves.map(\.from), moved).allSatisfy(at),
              zip(b.itemReloads.map(\.at), reloaded).allSatisfy(at) else { return nil }
        return b
    }
}

extension Snapshot {
    /// Applies a logged stage after checking that the items it names are where it says; false
    /// (and nothing changed) when they are not or the stage does not apply.
    mutating func applyChecked(_ stage: StageJSON, inPlace: Bool = true) -> Bool {
        guard let b = checkedBatch(stage) else { return false }
        // In place: O(changes + the touched sections), not a new snapshot per stage (a history
        // of 2,000 versions of a 1M-item gallery replayed after a restart, issue 15).
        return inPlace ? (try? applyInPlace(b)) != nil : (try? apply(b)) != nil
    }
}

extension SnapshotReplay {
    /// `Snapshot.applyChecked` on a replay (a history check: no id → position table to keep).
    mutating func applyChecked(_ stage: StageJSON) -> Bool {
        guard let b = checkedBatch(stage) else { return false }
        return (try? apply(b)) != nil
    }
}

/// What a live stream sends: the changes of one version (or of a catch-up), a full snapshot
/// (a stream opened without a version), or, when the client's version is outside the window,
/// word to read the gallery again (its columns, cached per version: a full snapshot of a big
/// gallery on every stale reconnect would cost the server seconds and the client as much).
public enum GalleryEvent: Sendable {
    case changes(ChangesJSON)
    case snapshot(GallerySnapshotJSON)
    /// The client's version is outside the catch-up window; the gallery is at this version now.
    case reload(version: Int64)
    /// The gallery was deleted; the stream ends.
    case deleted

    public var version: Int64? {
        switch self {
        case let .changes(c): return c.toVersion
        case let .snapshot(s): return s.version
        case let .reload(v): return v
        case .deleted: return nil
        }
    }
}

/// What the catch-up checkpoints cost the writer (`GalleryStore.historyCheckpointStats`).
public struct HistoryCheckpointStats: Sendable, Equatable {
    public var count = 0
    public var seconds = 0.0
    public var longest = 0.0
    public var bytes = 0

    mutating func add(seconds took: Double, bytes size: Int) {
        count += 1
        seconds += took
        longest = max(longest, took)
        bytes += size
    }
}

extension GalleryStore {
    /// For benchmarks in one process (`gallery-bench move --history-items`): galleries up to this
    /// many items get a catch-up checkpoint every 250 versions; the interval doubles each time a
    /// gallery doubles beyond. Takes effect for checkpoints decided after the call.
    public static func setHistoryItemsPerInterval(_ items: Int) {
        LiveGallery.itemsPerIntervalSetting.store(max(1, items), ordering: .relaxed)
    }
    public static var historyItemsPerInterval: Int { LiveGallery.itemsPerInterval }
    /// For benchmarks in one process (`gallery-bench restart-catchup`): check history as before
    /// session 15 — every request its own replay, a new snapshot per stage, on the caller's
    /// (cooperative) thread — for the same-run baseline. Never set by the server.
    public static func setHistoryCheckBaseline(_ on: Bool) { historyCheckBaseline.store(on, ordering: .relaxed) }
    static let historyCheckBaseline = Atomic<Bool>(false)
    /// For benchmarks in one process (`gallery-bench restart-catchup`): the history check replays
    /// on a `Snapshot` in place (`applyInPlace`, session 15) instead of a `SnapshotReplay`, and
    /// decodes each checkpoint into a snapshot: the same-run baseline of session 16's check.
    /// Never set by the server.
    public static func setHistoryCheckInPlaceSnapshot(_ on: Bool) {
        LiveGallery.historyReplaySetting.store((on ? LiveGallery.HistoryReplay.inPlace : .replay).rawValue, ordering: .relaxed)
    }
    public static func historyCheckpointInterval(itemCount: Int) -> Int64 { LiveGallery.checkpointInterval(itemCount: itemCount) }
}
