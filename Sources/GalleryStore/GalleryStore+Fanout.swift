import Foundation
import GridEngine
import GalleryCore
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// What instances on one PostgreSQL database tell each other besides versions (the server turns
/// them into its own wake-ups: the gallery-list streams, the access checks of open streams).
public enum InstanceSignal: Sendable, Equatable {
    /// A gallery was created, renamed, duplicated, imported or deleted.
    case galleryList
    /// Accounts, sessions, tokens, members or links changed: caches and open streams check again.
    case access
}

/// Several `gallery serve` processes on one PostgreSQL database (issue 14, point 2;
/// docs/storage.md, "Several instances").
///
/// Every committed batch sends `NOTIFY gallery_events, '<instance> v <gallery> <version>'` inside
/// its transaction — PostgreSQL delivers it at the commit, in commit order — and every instance
/// listens on one connection of its own. A version written by another instance is followed from
/// the operation log (each version's stages with the ids they touch, `CatchUpLog`): the live
/// snapshot, the catch-up window and the item count move forward version by version and the
/// instance's subscribers get the same `changes` event a local write sends. Anything that does
/// not add up (a gap in the log, an undecodable row, a stage that does not apply, a row behind
/// memory) reloads the gallery from its rows instead, and the subscribers get the catch-up from
/// where they are when the rebuilt window can serve it, else `reload`.
///
/// The notification is only a wake-up: whatever arrives late or never, the gallery's row is the
/// truth. A batch reads the row `FOR UPDATE` and brings memory up to it before it computes
/// anything (`followRow`); a catch-up, a subscription and the columns update read it too
/// (`current`); a listening connection that broke is made again and every loaded gallery is
/// checked against its row (notifications sent meanwhile are lost).
///
/// SQLite: none of this runs (`SQLDialect.fansOut` is false; one process owns the file).
final class Fanout: Sendable {
    struct State {
        var task: Task<Void, Never>?
        var connection: PostgresConnection?
        var stopped = false
        /// Galleries with a follow queued on the writer (one at a time is enough: it reads the row).
        var scheduled: Set<Int64> = []
        var onSignal: (@Sendable (InstanceSignal) -> Void)?
    }
    let state = Mutex<State>(State())
    /// How often the listening connection was established (tests wait for the first, and see a reconnect).
    let sessions = Atomic<Int>(0)
    /// Versions written by another instance and followed from the log (tests, logs).
    let followed = Atomic<Int>(0)
    /// Reloads of a gallery from its rows because the log did not lead to the row's version.
    let reloads = Atomic<Int>(0)
    static let channel = "gallery_events"
    static let logger = Logger(label: "gallery.fanout")
    /// Above this many versions at once a follow sends one catch-up event instead of one per version.
    static let eventsPerVersionUpTo = 16
}

/// A reference to the store that does not keep it alive (the listening task outlives nothing).
private struct WeakStore: @unchecked Sendable { weak var store: GalleryStore? }

extension GalleryStore {
    // MARK: Announcing (inside the writer's transactions)

    /// A batch's version, announced inside its transaction (after its log row): delivered at the
    /// commit, never for a batch rolled back. PostgreSQL only.
    func announce(_ db: any SQLConnection, gallery: Int64, version: Int64) throws {
        guard db.dialect.fansOut else { return }
        try db.execute("SELECT pg_notify(?, ?)", [Fanout.channel, "\(instance) v \(gallery) \(version)"])
    }

    /// A deleted gallery, announced inside the delete's transaction: other instances end its streams.
    func announce(_ db: any SQLConnection, deleted gallery: Int64) throws {
        guard db.dialect.fansOut else { return }
        try db.execute("SELECT pg_notify(?, ?)", [Fanout.channel, "\(instance) d \(gallery)"])
    }

    /// Tells the other instances on this PostgreSQL database (nothing on SQLite), after a change
    /// this process made and committed.
    public func tellOtherInstances(_ signal: InstanceSignal) {
        guard database.kindFansOut else { return }
        let text = "\(instance) \(signal == .galleryList ? "l" : "a")"
        Task { [database] in
            do { try await database.write { db in try db.execute("SELECT pg_notify(?, ?)", [Fanout.channel, text]) } }
            catch { Fanout.logger.warning("could not tell the other instances", metadata: ["error": "\(error)"]) }
        }
    }

    // MARK: Listening

    /// PostgreSQL: listens for the other instances' versions, deleted galleries and `signals`
    /// (called on the listening task; keep it short). Reconnects by itself; after each
    /// (re)connection every loaded gallery is checked against its row. Nothing on SQLite.
    public func startFollowing(signals: @escaping @Sendable (InstanceSignal) -> Void = { _ in }) {
        guard let pg = database as? PostgresDatabase else { return }
        let configuration = pg.configuration, fanout = self.fanout, owner = WeakStore(store: self)
        fanout.state.withLock { s in
            s.onSignal = signals
            guard s.task == nil, !s.stopped else { return }
            s.task = Task.detached { await GalleryStore.listen(fanout, configuration, owner) }
        }
    }

    /// Whether the listening connection is up now (tests).
    public var followingSessions: Int { fanout.sessions.load(ordering: .relaxed) }
    /// Versions written by another instance that this one followed from the log (tests).
    public var followedVersions: Int { fanout.followed.load(ordering: .relaxed) }
    /// Galleries reloaded from their rows because the log did not lead to the row (tests).
    public var followReloads: Int { fanout.reloads.load(ordering: .relaxed) }

    func stopFollowing() {
        let (task, connection) = fanout.state.withLock { s in
            s.stopped = true
            defer { s.task = nil; s.connection = nil }
            return (s.task, s.connection)
        }
        task?.cancel()
        if let connection {
            if MultiThreadedEventLoopGroup.currentEventLoop == nil { try? connection.close().wait() } else { let _: EventLoopFuture<Void> = connection.close() }
        }
    }

    private static func listen(_ fanout: Fanout, _ configuration: PostgresConnection.Configuration, _ owner: WeakStore) async {
        var delay = Duration.milliseconds(50)
        while !Task.isCancelled && !fanout.state.withLock({ $0.stopped }) {
            var connection: PostgresConnection?
            do {
                let c = try await PostgresConnection.connect(
                    on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration,
                    id: PGConnection.nextID.add(1, ordering: .relaxed).newValue, logger: Fanout.logger)
                connection = c
                let keep = fanout.state.withLock { s -> Bool in
                    guard !s.stopped else { return false }
                    s.connection = c
                    return true
                }
                guard keep else { try? await c.close(); return }
                try await c.listen(on: Fanout.channel) { notifications in
                    // Listening from here on: what was committed before is read from the rows.
                    if fanout.sessions.add(1, ordering: .relaxed).newValue > 1 {
                        Fanout.logger.info("listening again for the other instances' changes")
                    }
                    owner.store?.recheckLoadedGalleries()
                    for try await n in notifications { owner.store?.received(n.payload) }
                }
                delay = .milliseconds(50)
            } catch {
                if !fanout.state.withLock({ $0.stopped }) {
                    Fanout.logger.info("the listening connection broke; connecting again", metadata: ["error": "\(PGConnection.describe(error))"])
                }
            }
            fanout.state.withLock { s in if s.connection === connection { s.connection = nil } }
            if let connection, !connection.isClosed { try? await connection.close() }
            if owner.store == nil { return }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(1))
        }
    }

    func received(_ payload: String) {
        let parts = payload.split(separator: " ")
        guard parts.count >= 2, parts[0] != instance else { return } // our own: memory has it already
        switch parts[1] {
        case "v", "d":
            if parts.count >= 3, let gallery = Int64(parts[2]) { scheduleFollow(gallery) }
            // A deleted gallery's rows: this instance joins in, so they go even if the one that
            // deleted it stops (`purgeGallery` is safe beside other purges).
            if parts[1] == "d" { startPurge() }
        case "l": fanout.state.withLock { $0.onSignal }?(.galleryList)
        case "a": fanout.state.withLock { $0.onSignal }?(.access)
        default: break
        }
    }

    func recheckLoadedGalleries() {
        for gallery in live.withLock({ Array($0.keys) }) { scheduleFollow(gallery) }
    }

    /// Queues a follow of the gallery on the writer (where every change of the live state is
    /// made, in order); one queued at a time per gallery is enough, since it reads the row.
    /// Not checked against the live map here: a load under way on the writer is in it by then.
    func scheduleFollow(_ gallery: Int64) {
        guard fanout.state.withLock({ $0.scheduled.insert(gallery).inserted }) else { return }
        Task {
            do {
                try await database.writeWithoutTransaction { db in
                    self.fanout.state.withLock { _ = $0.scheduled.remove(gallery) }
                    try self.syncWithRow(db, gallery)
                }
            } catch {
                fanout.state.withLock { _ = $0.scheduled.remove(gallery) }
                // The gallery stays as it was (or was forgotten, its streams ended): the next
                // batch, catch-up or reconnection brings it up to its row.
                Fanout.logger.info("could not follow another instance's change", metadata: ["gallery": "\(gallery)", "error": "\(error)"])
            }
        }
    }

    // MARK: Following the row (on the writer's queue)

    /// Brings a loaded gallery up to the version in its row (outside a transaction, on the
    /// writer's queue): nothing when they agree (one row read), else the versions between from the
    /// log in one REPEATABLE READ transaction (the row, the log and the items read agree), or a
    /// reload from the rows. A deleted gallery's streams end with `deleted`. PostgreSQL only.
    func syncWithRow(_ db: any SQLConnection, _ gallery: Int64) throws {
        guard db.dialect.fansOut, let memory = live.withLock({ $0[gallery]?.version }) else { return }
        let row = try db.value("SELECT version FROM gallery WHERE id = ? AND deleting = 0", [gallery], as: Int64.self)
        guard row != memory else { return }
        guard row != nil else { forget(gallery, deleted: true); return }
        try withLiveSnapshot(gallery) { snapshot in
            var reload = false
            try db.transaction {
                try db.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", [])
                guard let row = try db.value("SELECT version FROM gallery WHERE id = ? AND deleting = 0", [gallery], as: Int64.self) else {
                    reload = true
                    return
                }
                reload = try !self.advance(db, gallery, to: row, snapshot: &snapshot)
            }
            if reload {
                // Writes a checkpoint (CatchUpLog.restore): a plain transaction, the row held meanwhile.
                try db.transaction {
                    _ = try db.value("SELECT version FROM gallery WHERE id = ? AND deleting = 0" + db.dialect.shareRow, [gallery], as: Int64.self)
                    try self.reloadLive(db, gallery, snapshot: &snapshot)
                }
            }
        }
    }

    /// Inside a batch's transaction, before it computes anything: the gallery's row locked
    /// (`FOR UPDATE`, so no other instance commits to it until this batch does) and the live
    /// snapshot `before` brought up to the row's version if another instance wrote since — a
    /// notification may not have arrived yet. PostgreSQL only; answers the version read under the
    /// lock (nil on SQLite: nothing read).
    func followRow(_ db: any SQLConnection, _ gallery: Int64, snapshot before: inout Snapshot) throws -> Int64? {
        guard db.dialect.fansOut else { return nil }
        let row = try db.value("SELECT version FROM gallery WHERE id = ? AND deleting = 0" + db.dialect.lockRow, [gallery], as: Int64.self)
        guard let memory = live.withLock({ $0[gallery]?.version }), row != memory else {
            if row == nil { throw StoreError.galleryNotFound(gallery) }
            return row
        }
        guard let row else { forget(gallery, deleted: true); throw StoreError.galleryNotFound(gallery) }
        do {
            if try !advance(db, gallery, to: row, snapshot: &before) { try reloadLive(db, gallery, snapshot: &before) }
        } catch {
            forget(gallery, deleted: false)
            throw error
        }
        return row
    }

    /// Runs `body` with the gallery's live snapshot taken out of the map (changed in place, no
    /// copy) and puts it back; after an error the gallery is forgotten (read again on next use,
    /// its streams end and reconnect), since memory may be half way.
    func withLiveSnapshot(_ gallery: Int64, _ body: (inout Snapshot) throws -> Void) throws {
        guard var snapshot = live.withLock({ state -> Snapshot? in
            defer { state[gallery]?.snapshot = Snapshot() }
            return state[gallery]?.snapshot
        }) else { return }
        do { try body(&snapshot) } catch {
            forget(gallery, deleted: false)
            throw error
        }
        live.withLock { $0[gallery]?.snapshot = snapshot }
    }

    /// The gallery out of memory; its streams end (`deleted` first when it is gone).
    func forget(_ gallery: Int64, deleted: Bool) {
        let subscribers = live.withLock { $0.removeValue(forKey: gallery)?.subscribers ?? [:] }
        for (_, c) in subscribers {
            if deleted { c.yield(.deleted) }
            c.finish()
        }
    }

    /// The versions after memory's up to `row`, from the log: each applied to `snapshot` (checked:
    /// the items a stage names must be where it says), then the window, the count and the
    /// subscribers, in version order, with the events a local write sends. False — memory not
    /// touched, `snapshot` possibly half way — when the log does not lead there.
    func advance(_ db: any SQLConnection, _ gallery: Int64, to row: Int64, snapshot: inout Snapshot) throws -> Bool {
        guard let memory = live.withLock({ $0[gallery]?.version }) else { return true }
        if row == memory { return true }
        guard row > memory else { return false }
        let rows = try db.fetchAll("""
            SELECT version, stages FROM operation WHERE galleryId = ? AND version > ? AND version <= ? ORDER BY version
            """, [gallery, memory, row])
        guard rows.count == Int(row - memory) else { return false }
        var versions: [(version: Int64, stages: [StageJSON], isCheckpoint: Bool)] = []
        versions.reserveCapacity(rows.count)
        for (k, r) in rows.enumerated() {
            let v: Int64 = r["version"]
            guard v == memory + Int64(k) + 1, let text = r["stages"] as String?, let stages = CatchUpLog.decodeStages(text) else { return false }
            // As the writer decided: the count before the batch.
            let isCheckpoint = LiveGallery.isCheckpoint(v, itemCount: snapshot.itemCount, every: historyEvery)
            for stage in stages { guard snapshot.applyChecked(stage) else { return false } }
            versions.append((v, stages, isCheckpoint))
        }
        var events: [ChangesJSON] = []
        if live.withLock({ !($0[gallery]?.subscribers.isEmpty ?? true) }) {
            if versions.count <= Fanout.eventsPerVersionUpTo {
                for v in versions {
                    events.append(try Self.changesJSON(db, gallery, from: v.version - 1, to: v.version, stages: v.stages, touched: Self.arriving(v.stages)))
                }
            } else {
                let all = versions.flatMap { $0.stages }
                events.append(try Self.changesJSON(db, gallery, from: memory, to: row, stages: all, touched: Self.arriving(all)))
            }
        }
        let count = snapshot.itemCount
        live.withLock { state in
            for v in versions { state[gallery]?.commit(version: v.version, stages: v.stages, isCheckpoint: v.isCheckpoint) }
            state[gallery]?.itemCount = count
            for e in events { for (_, c) in state[gallery]?.subscribers ?? [:] { c.yield(.changes(e)) } }
        }
        fanout.followed.add(versions.count, ordering: .relaxed)
        return true
    }

    /// The gallery read again from its rows at the row's version, with the window the database
    /// holds (`CatchUpLog.restore`); its subscribers keep their streams and get the catch-up from
    /// the version they were at when the new window serves it, else `reload`.
    func reloadLive(_ db: any SQLConnection, _ gallery: Int64, snapshot: inout Snapshot) throws {
        guard let row = try db.value("SELECT version FROM gallery WHERE id = ? AND deleting = 0", [gallery], as: Int64.self) else {
            forget(gallery, deleted: true)
            throw StoreError.galleryNotFound(gallery)
        }
        fanout.reloads.add(1, ordering: .relaxed)
        Fanout.logger.notice("the log does not lead to the gallery's version: read it again", metadata: ["gallery": "\(gallery)", "version": "\(row)"])
        let fresh = try Self.engineSnapshot(db, gallery)
        // The window the instances wrote, without a checkpoint of this reload's own when that works
        // (one per reload would push the window's older checkpoints out, and the log behind them).
        var restored = try CatchUpLog.rebuild(db, gallery: gallery, version: row, snapshot: fresh)
            ?? CatchUpLog.restore(db, gallery: gallery, version: row, snapshot: fresh)
        let memory = live.withLock { $0[gallery]?.version }
        var event: GalleryEvent?
        if let memory, memory != row {
            if memory < row, let (stages, arriving) = restored.stages(since: memory) {
                event = .changes(try Self.changesJSON(db, gallery, from: memory, to: row, stages: stages, touched: arriving))
            } else {
                event = .reload(version: row)
            }
        }
        restored.snapshot = Snapshot()
        live.withLock { state in
            restored.subscribers = state[gallery]?.subscribers ?? [:]
            state[gallery] = restored
            if let event { for (_, c) in restored.subscribers { c.yield(event) } }
        }
        snapshot = fresh
    }

    /// The ids of the items a list of stages inserts or reloads (whose rows an event carries).
    static func arriving(_ stages: [StageJSON]) -> Set<Int64> {
        var out: Set<Int64> = []
        for stage in stages {
            for i in stage.itemInserts { out.insert(Int64(i.id)) }
            for s in stage.sectionInserts { for id in s.items { out.insert(Int64(id)) } }
            for id in stage.reloadedIDs ?? [] { out.insert(Int64(id)) }
        }
        return out
    }
}

extension StoreDatabase {
    /// Whether this database is shared by several instances (PostgreSQL).
    var kindFansOut: Bool { self is PostgresDatabase }
}
