import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// Where the write-ahead log is copied back into the database file (issue 15.3).
///
/// SQLite's default: the connection whose commit takes the log past 1,000 pages copies it back
/// itself, before that commit returns (`PASSIVE`; with `synchronous=NORMAL` that is the one place
/// a commit fsyncs, twice). Our one writer serialises every batch, so each of those checkpoints
/// stalls every batch queued behind it — the tail of the move latency under load. `.background`
/// takes it off the writer: the writer only notes how long the log has grown (SQLite's WAL hook)
/// and a connection of the checkpointer's own copies it back on its own queue, while the writer
/// goes on appending (a passive checkpoint never blocks writers or readers; the log starts over
/// at the next write after it has been copied completely).
public enum WALCheckpoints: Sendable {
    case onWriter
    case background
}

/// What the checkpoints cost: how many, their total and longest time, on the writer and in the
/// background (for `gallery-bench move`).
public struct WALCheckpointStats: Sendable, Equatable {
    public struct Side: Sendable, Equatable {
        public var count = 0
        public var seconds = 0.0
        public var longest = 0.0
        /// The most frames one checkpoint on this side copied back.
        public var mostFrames: Int32 = 0
    }
    public var onWriter = Side()
    public var background = Side()
    /// The database file written to disk by the background after its passes near the bound
    /// (`WALCheckpointer.syncAhead`; `mostFrames` unused).
    public var databaseSyncs = Side()
    /// Times the log started over from its beginning (seen at the commit after).
    public var restarts = 0
    /// The most frames the log held at a commit.
    public var longestLog: Int32 = 0
}

final class WALCheckpointer: Sendable {
    /// SQLite's own threshold (`SQLITE_DEFAULT_WAL_AUTOCHECKPOINT`): frames added to the log
    /// since it was last copied back.
    static let pages: Int32 = 1000
    /// Frames added since the last background pass that ask for the next one (short of the
    /// bound). Each pass syncs the log and copies the newest frame of each page: passes of 4,000
    /// frames copy a page that changed several times once and sync the log a quarter as often
    /// as SQLite's 1,000 — under 50 clients moving, 3–6 % less CPU a move (both builds served
    /// together) and p99 no worse (session 35). Session 22 had tried it when the writer's
    /// finishing copy took whatever the last pass left (it grew with the interval); since
    /// `restartTail` and `syncAhead` that copy is bounded.
    static let backgroundPassFrames: Int32 = 4_000
    /// The log starts over only when a write transaction begins with every frame copied back.
    /// Under a steady stream of commits a background checkpoint never gets there (each commit
    /// adds frames while it copies; measured: the log grew past 100 MB), so past `restartFrames` frames
    /// the writer copies back what the background has not yet (once that is at most
    /// `restartTail` frames), between two of its transactions, and its next one starts the log
    /// over: one short stall every `restartFrames` frames instead of a full copy (two fsyncs) every 1,000.
    /// `WALCheckpointTests` holds the bound.
    ///
    /// 100,000 frames (~400 MB of log under a sustained stream of writes; session 31): each start
    /// over stalls the writer for its copy's and the log header's fsyncs, which under 50 clients
    /// moving took 33 ms on average (longest 59 ms; the disk busy with ~75 MB/s of log and copies)
    /// — every 0.8 s with 10,000 frames, and p99 of the moves 48–62 ms against 32–38 with 100,000
    /// in the same runs (BENCHMARKS.md, "Session 31"). The log's file keeps the size it reached.
    /// Most of those 33 ms were the database file's sync of the whole cycle's copies; since the
    /// background syncs near the bound (`syncAhead`, session 35) a start over stalls ~12 ms.
    static let defaultRestartFrames: Int32 = 100_000
    /// The bound of new stores (`GalleryStore.walRestartFrames`).
    nonisolated(unsafe) static var restartFramesOfNewStores: Int32 = defaultRestartFrames
    /// Frames the writer's finishing copy leaves to itself at most (short of the bound).
    static let restartTail: Int32 = 200
    /// A passive checkpoint writes the database file to disk (fsync) only when it copies the log
    /// to its very end, which the background never does under a stream of commits (session 35):
    /// so the writer's finishing copy synced every page the background had copied since the last
    /// start over — thousands of random pages, 30–60 ms of the writer's time under 3,000 moves a
    /// second, against ~2 ms for its own copy and the log's sync (timed around each system call).
    /// From `syncAhead` frames short of the bound, the background syncs the database file itself
    /// after each of its passes, so what is left to the writer's sync is its own short copy.
    static func syncAhead(_ restartFrames: Int32) -> Int32 { restartFrames / 8 }
    // Tried and measured (BENCHMARKS.md, "WAL checkpoints off the writer"): a restart at 30,000
    // frames, and background passes every 4,000 (fewer, cheaper in all) — neither lowered p99:
    // the writer's finishing copy grew with the pass interval (no longer: `backgroundPassFrames`).
    // With `restartTail` (session 22),
    // 30,000 again: a third as many finishing copies but longer ones (longest 22–24 ms against
    // 13–15), p99 no better; and a log file three times the size. Session 31 (fsyncs slower under
    // load, finishing copies 33 ms on average): 10,000 / 40,000 / 100,000 frames gave p99 48–56 /
    // 35–44 / 32–35 ms in the same runs.

    let mode: WALCheckpoints
    let path: String
    /// Past this many frames the writer finishes the copy and the log starts over.
    let restartFrames: Int32
    private let queue = DispatchQueue(label: "gallery.wal-checkpoint")
    private let scheduled = Atomic<Bool>(false)
    /// Frames of the current log the last background checkpoint copied back; and the log's
    /// length at the previous commit (a shorter log means it started over).
    private let backfilled = Atomic<Int32>(0)
    private let lastLength = Atomic<Int32>(0)
    private let statsBox = Mutex(WALCheckpointStats())
    /// The checkpointer's own connection, opened on first use on `queue` (a reader connection
    /// of the pool is read-only and may not checkpoint; the writer is the one to keep free).
    private let connection = Mutex<OpaquePointer?>(nil)

    init(mode: WALCheckpoints, path: String, restartFrames: Int32 = WALCheckpointer.restartFramesOfNewStores) {
        precondition(restartFrames > 2 * Self.restartTail && restartFrames <= Int32.max / 2, "restartFrames \(restartFrames) out of range")
        self.mode = mode
        self.path = path
        self.restartFrames = restartFrames
    }

    deinit {
        connection.withLock { c in
            if let c { sqlite3_close_v2(c) }
            c = nil
        }
    }

    var stats: WALCheckpointStats { statsBox.withLock { $0 } }

    /// Installed on the writer connection: replaces SQLite's auto-checkpoint (a WAL hook and the
    /// auto-checkpoint are the same slot). The hook's context is this object, unretained: the
    /// pool's configuration holds it for as long as the writer connection lives.
    func install(on db: Database) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_wal_hook(db.sqliteConnection, { context, connection, _, pages in
            guard let context else { return SQLITE_OK }
            Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().logGrew(to: pages, writer: connection)
            return SQLITE_OK
        }, context)
    }

    /// Called by SQLite on the writer after each commit, with the frames now in the log.
    private func logGrew(to pages: Int32, writer: OpaquePointer?) {
        switch mode {
        case .onWriter:
            // What SQLite's default hook does, timed.
            if pages >= Self.pages { _ = checkpoint(writer, side: \.onWriter) }
        case .background:
            let previous = lastLength.exchange(pages, ordering: .relaxed)
            if pages < previous {
                backfilled.store(0, ordering: .relaxed)
                statsBox.withLock { $0.restarts += 1 }
            } else if pages >= restartFrames {
                statsBox.withLock { $0.longestLog = max($0.longestLog, pages) }
            }
            let behind = pages - backfilled.load(ordering: .relaxed)
            if pages >= restartFrames {
                // The writer finishes the copy (and the log starts over at its next transaction)
                // once the background has brought it within `restartTail` frames of the end: every
                // batch queued meanwhile waits for that copy, so it is kept short (~1,000 frames
                // and ~10 ms when it took whatever the last pass had left: the tail of the move
                // latency under 50 clients, session 22). Until then passes go on back to back;
                // past twice the bound (a reader holding an old snapshot keeps the background from
                // the end) the writer copies what it can anyway. While a pass runs the writer's copy
                // is refused at once (busy) and asked again at the next commit.
                if behind <= Self.restartTail || pages >= 2 * restartFrames {
                    if let copied = checkpoint(writer, side: \.onWriter, from: pages - behind) { backfilled.store(copied, ordering: .relaxed) }
                    return
                }
            }
            guard behind >= (pages >= restartFrames ? Self.restartTail : Self.backgroundPassFrames),
                  !scheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
            let nearTheBound = pages >= restartFrames - Self.syncAhead(restartFrames)
            queue.async { [weak self] in
                guard let self else { return }
                self.scheduled.store(false, ordering: .releasing)
                if let c = self.ownConnection(), let copied = self.checkpoint(c, side: \.background, from: self.backfilled.load(ordering: .relaxed)) {
                    self.backfilled.store(copied, ordering: .relaxed)
                    if nearTheBound { self.syncDatabase(c) }
                }
            }
        }
    }

    private func ownConnection() -> OpaquePointer? {
        connection.withLock { c in
            if c == nil {
                var opened: OpaquePointer?
                // A new connection learns the file is in WAL mode only once it has read it: until
                // then a checkpoint is a no-op that answers -1.
                if sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
                   sqlite3_busy_timeout(opened, 0) == SQLITE_OK,   // never wait: the next commit asks again
                   sqlite3_exec(opened, "SELECT count(*) FROM sqlite_master", nil, nil, nil) == SQLITE_OK {
                    c = opened
                } else {
                    sqlite3_close_v2(opened)
                }
            }
            return c
        }
    }

    /// Writes the database file's pages to disk (the VFS's sync, as SQLite's own checkpoint does).
    private func syncDatabase(_ c: OpaquePointer) {
        var file: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(c, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK,
              let file, let sync = file.pointee.pMethods?.pointee.xSync else { return }
        let t = DispatchTime.now().uptimeNanoseconds
        guard sync(file, SQLITE_SYNC_NORMAL) == SQLITE_OK else { return }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - t) / 1e9
        statsBox.withLock { s in
            s.databaseSyncs.count += 1
            s.databaseSyncs.seconds += seconds
            s.databaseSyncs.longest = max(s.databaseSyncs.longest, seconds)
        }
    }

    /// A passive checkpoint; answers the frames of the log now copied back, nil when it could not
    /// run (another checkpoint held the lock, or the connection is not in WAL mode).
    /// `from`: the frames already copied back before it (for the stats' `mostFrames`).
    private func checkpoint(_ c: OpaquePointer?, side: WritableKeyPath<WALCheckpointStats, WALCheckpointStats.Side>, from: Int32 = 0) -> Int32? {
        var log: Int32 = 0, copied: Int32 = 0
        let t = DispatchTime.now().uptimeNanoseconds
        let code = sqlite3_wal_checkpoint_v2(c, nil, SQLITE_CHECKPOINT_PASSIVE, &log, &copied)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - t) / 1e9
        guard code == SQLITE_OK, log >= 0 else { return nil }
        statsBox.withLock { s in
            s[keyPath: side].count += 1
            s[keyPath: side].seconds += seconds
            s[keyPath: side].longest = max(s[keyPath: side].longest, seconds)
            s[keyPath: side].mostFrames = max(s[keyPath: side].mostFrames, copied - min(from, copied))
        }
        return copied
    }
}
