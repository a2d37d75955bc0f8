import GridEngine
import GalleryCore

/// The in-memory side of one gallery: its engine snapshot at the current version and a bounded
/// window of recent versions, so that a client that reconnects at an old version gets the staged
/// diff from it to now instead of a full reload.
///
/// The window keeps a base snapshot and the staged batch updates of each later version (not a
/// snapshot per version: at 100k items each one would cost megabytes). A version older than the
/// base, or from before the process started, is answered with the full snapshot instead.
struct LiveGallery {
    var version: Int64
    var snapshot: Snapshot
    var baseVersion: Int64
    var base: Snapshot
    var log: [(version: Int64, stages: [BatchUpdate])] = []
    var subscribers: [Int: AsyncStream<GalleryEvent>.Continuation] = [:]

    /// Versions kept for catch-up; folding happens in chunks so each commit stays O(change).
    static let window = 1_000

    init(version: Int64, snapshot: Snapshot) {
        self.version = version
        self.snapshot = snapshot
        self.baseVersion = version
        self.base = snapshot
    }

    mutating func commit(version newVersion: Int64, stages: [BatchUpdate], after: Snapshot) {
        log.append((newVersion, stages))
        version = newVersion
        snapshot = after
        if log.count >= 2 * LiveGallery.window {
            let fold = log.count - LiveGallery.window
            for entry in log[0..<fold] {
                for stage in entry.stages { try! base.apply(stage) }
            }
            baseVersion = log[fold - 1].version
            log.removeFirst(fold)
        }
    }

    /// The snapshot at an older version, rebuilt from the base; nil outside the window.
    func snapshot(at v: Int64) -> Snapshot? {
        if v == version { return snapshot }
        guard v >= baseVersion && v < version else { return nil }
        var s = base
        for entry in log where entry.version <= v {
            for stage in entry.stages { try! s.apply(stage) }
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
