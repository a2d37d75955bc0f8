import GridEngine
import GalleryCore

/// The in-memory side of one gallery: its engine snapshot at the current version and a bounded
/// window of recent versions, so that a client that reconnects at an old version gets the staged
/// changes from it to now instead of a full reload.
///
/// The window keeps the stages of every version since the oldest checkpoint (with the ids they
/// touch, as the live stream sent them) and a checkpoint snapshot at every `checkpointEvery`-th
/// version (a copy-on-write share of the live snapshot). Catching up from an old version is the
/// stages logged since, one after the other: O(changes), whatever the gallery's size (issue 15).
/// Older than the oldest checkpoint: the caller answers with the full snapshot instead. The
/// checkpoints serve to check a stretch of history rebuilt from SQLite before it is served.
/// The window survives restarts: on a gallery's first load it is rebuilt from the checkpoints
/// and per-version stages kept in SQLite (`CatchUpLog`).
struct LiveGallery {
    var version: Int64
    var snapshot: Snapshot
    /// Items in the arrangement at `version` (kept beside the snapshot, which a commit takes out
    /// of the map while it runs): the gallery list's count without a COUNT over the rows.
    var itemCount: Int
    var checkpoints: [(version: Int64, snapshot: Snapshot)]
    var log: [(version: Int64, stages: [StageJSON])] = []
    /// The history from this checkpoint version to now is known to replay exactly (this process
    /// built it, or it was checked). A window rebuilt from SQLite checks only its newest stretch
    /// when it is loaded; an older stretch is checked against the checkpoint after it the first
    /// time a catch-up reaches into it (`snapshot(at:)`).
    var verifiedFrom: Int64
    var subscribers: [Int: AsyncStream<GalleryEvent>.Continuation] = [:]

    /// Checkpoints at versions that are multiples of `checkpointEvery` (and where a process first
    /// loaded the gallery). Window: up to maxCheckpoints × checkpointEvery versions.
    static let checkpointEvery: Int64 = 250
    static let maxCheckpoints = 8

    init(version: Int64, snapshot: Snapshot) {
        self.version = version
        self.snapshot = snapshot
        itemCount = snapshot.itemCount
        checkpoints = [(version, snapshot)]
        verifiedFrom = version
    }

    var oldestVersion: Int64 { checkpoints[0].version }

    static func isCheckpoint(_ version: Int64) -> Bool { version % checkpointEvery == 0 }

    /// A committed version: its stages (with ids) into the log, and its snapshot as a checkpoint
    /// when the version is one (`isCheckpoint`; then `checkpoint` must be given). The live
    /// snapshot itself is set by the caller (a group of commits sets it once, at the end).
    mutating func commit(version newVersion: Int64, stages: [StageJSON], checkpoint: Snapshot?) {
        log.append((newVersion, stages))
        version = newVersion
        if LiveGallery.isCheckpoint(newVersion), let checkpoint, newVersion > checkpoints[checkpoints.count - 1].version {
            checkpoints.append((newVersion, checkpoint))
            if checkpoints.count > LiveGallery.maxCheckpoints {
                checkpoints.removeFirst()
                dropCheckpoints(before: checkpoints[1].version)
            }
        }
    }

    /// Keeps what a rebuild on a copy of this window learned: a stretch it checked, or the cut
    /// after a stretch that did not add up. (Meanwhile this window may only have grown at the end
    /// or dropped its oldest checkpoints; the history they share is the same.)
    mutating func learn(from copy: LiveGallery) {
        if copy.oldestVersion > oldestVersion { dropCheckpoints(before: copy.oldestVersion) }
        if copy.verifiedFrom < verifiedFrom && checkpoints.contains(where: { $0.version == copy.verifiedFrom }) {
            verifiedFrom = copy.verifiedFrom
        }
    }

    /// Forgets the checkpoints older than `v` (at least one stays) and the stages before the oldest.
    mutating func dropCheckpoints(before v: Int64) {
        checkpoints.removeAll { $0.version < v }
        if checkpoints.isEmpty { checkpoints = [(version, snapshot)] }
        let start = checkpoints[0].version
        log.removeAll { $0.version <= start }
        verifiedFrom = max(verifiedFrom, start)
    }

    /// The snapshot at an older version, rebuilt from the nearest checkpoint; nil outside the
    /// window. A stretch of history not yet checked is replayed to the next checkpoint first; if
    /// it does not arrive there exactly, the window is cut after it and the answer is nil (the
    /// caller sends the full snapshot, never a wrong diff).
    mutating func snapshot(at v: Int64) -> Snapshot? {
        if v == version { return snapshot }
        guard v >= oldestVersion && v < version else { return nil }
        let checkpoint = checkpoints.last { $0.version <= v }!
        if checkpoint.version < verifiedFrom {
            var s = checkpoint.snapshot
            var next = checkpoints.firstIndex { $0.version > checkpoint.version }!
            for entry in log where entry.version > checkpoint.version && entry.version <= verifiedFrom {
                for stage in entry.stages {
                    guard s.applyChecked(stage) else {
                        dropCheckpoints(before: verifiedFrom)
                        return nil
                    }
                }
                if checkpoints[next].version == entry.version {
                    guard checkpoints[next].snapshot == s else {
                        dropCheckpoints(before: verifiedFrom)
                        return nil
                    }
                    next += 1
                    if next == checkpoints.count { break }
                }
            }
            verifiedFrom = checkpoint.version
        }
        var s = checkpoint.snapshot
        for entry in log where entry.version > checkpoint.version && entry.version <= v {
            for stage in entry.stages {
                // Cannot fail on verified history; answered as "outside the window" if it ever did.
                guard s.applyChecked(stage) else { return nil }
            }
        }
        return s
    }
}

extension LiveGallery {
    /// The stages of every version after `v`, in order (what a client at `v` applies to arrive
    /// now), and the ids of the items they insert or reload; nil outside the window or before
    /// the stretch of history known to replay exactly (`verifiedFrom`: check it first with
    /// `snapshot(at:)`). O(versions since `v` + their changes).
    func stages(since v: Int64) -> (stages: [StageJSON], arriving: Set<Int64>)? {
        guard v >= oldestVersion, v >= verifiedFrom, v <= version else { return nil }
        // The log is in version order and complete after the oldest checkpoint.
        var lo = 0, hi = log.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if log[mid].version <= v { lo = mid + 1 } else { hi = mid }
        }
        var out: [StageJSON] = []
        var arriving: Set<Int64> = []
        for entry in log[lo...] {
            for stage in entry.stages {
                out.append(stage)
                for i in stage.itemInserts { arriving.insert(Int64(i.id)) }
                for s in stage.sectionInserts { for id in s.items { arriving.insert(Int64(id)) } }
                for id in stage.reloadedIDs ?? [] { arriving.insert(Int64(id)) }
            }
        }
        return (out, arriving)
    }
}

extension Snapshot {
    /// Applies a logged stage after checking that the items it names are where it says; false
    /// (and nothing changed) when they are not or the stage does not apply.
    mutating func applyChecked(_ stage: StageJSON) -> Bool {
        guard let b = stage.batchUpdate, let deleted = stage.deletedIDs, let moved = stage.movedIDs, let reloaded = stage.reloadedIDs,
              deleted.count == b.itemDeletes.count, moved.count == b.itemMoves.count, reloaded.count == b.itemReloads.count else { return false }
        func at(_ p: IndexPath, _ id: UInt64) -> Bool { isValid(p) && itemID(at: p).rawValue == id }
        guard zip(b.itemDeletes, deleted).allSatisfy(at), zip(b.itemMoves.map(\.from), moved).allSatisfy(at),
              zip(b.itemReloads.map(\.at), reloaded).allSatisfy(at) else { return false }
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
