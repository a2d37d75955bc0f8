import GridEngine
import GalleryCore

/// The in-memory side of one gallery: its engine snapshot at the current version and a bounded
/// window of recent versions, so that a client that reconnects at an old version gets the staged
/// diff from it to now instead of a full reload.
///
/// The window keeps a checkpoint snapshot every `checkpointEvery` versions (a checkpoint is a
/// copy-on-write share of the live snapshot: storing it costs nothing on the writer's path) and
/// the staged batch updates of every version since the oldest checkpoint. The snapshot at an old
/// version is rebuilt from the nearest checkpoint below it by replaying at most `checkpointEvery`
/// stages. Older than the oldest checkpoint: the caller answers with the full snapshot instead.
/// The window survives restarts: on a gallery's first load it is rebuilt from the checkpoints
/// and per-version stages kept in SQLite (`CatchUpLog`).
struct LiveGallery {
    var version: Int64
    var snapshot: Snapshot
    var checkpoints: [(version: Int64, snapshot: Snapshot)]
    var log: [(version: Int64, stages: [BatchUpdate])] = []
    /// The history from this checkpoint version to now is known to replay exactly (this process
    /// built it, or it was checked). A window rebuilt from SQLite checks only its newest stretch
    /// when it is loaded; an older stretch is checked against the checkpoint after it the first
    /// time a catch-up reaches into it (`snapshot(at:)`).
    var verifiedFrom: Int64
    var subscribers: [Int: AsyncStream<GalleryEvent>.Continuation] = [:]

    /// Window: between (maxCheckpoints − 1) × checkpointEvery and maxCheckpoints × checkpointEvery versions.
    static let checkpointEvery: Int64 = 250
    static let maxCheckpoints = 8

    init(version: Int64, snapshot: Snapshot) {
        self.version = version
        self.snapshot = snapshot
        checkpoints = [(version, snapshot)]
        verifiedFrom = version
    }

    var oldestVersion: Int64 { checkpoints[0].version }

    mutating func commit(version newVersion: Int64, stages: [BatchUpdate], after: Snapshot) {
        log.append((newVersion, stages))
        version = newVersion
        snapshot = after
        if newVersion - checkpoints[checkpoints.count - 1].version >= LiveGallery.checkpointEvery {
            checkpoints.append((newVersion, after))
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
                do {
                    for stage in entry.stages { try s.apply(stage) }
                } catch {
                    dropCheckpoints(before: verifiedFrom)
                    return nil
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
                guard (try? s.apply(stage)) != nil else { return nil }
            }
        }
        return s
    }
}

/// What a live stream sends: the changes of one version (or of a catch-up), or a full snapshot
/// when the client's version is outside the window.
public enum GalleryEvent: Sendable {
    case changes(ChangesJSON)
    case snapshot(GallerySnapshotJSON)
    /// The gallery was deleted; the stream ends.
    case deleted

    public var version: Int64? {
        switch self {
        case let .changes(c): return c.toVersion
        case let .snapshot(s): return s.version
        case .deleted: return nil
        }
    }
}
