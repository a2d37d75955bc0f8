import Testing
import Foundation
import GridEngine
import GalleryCore
@testable import GalleryStore
import StoreTestSupport

/// Issue 14 point 2: two stores (two instances, in one process here) on one PostgreSQL database.
/// One follows the other's versions through LISTEN/NOTIFY and the operation log; a batch on a
/// store whose memory is behind the gallery's row first brings memory up to the row.
/// PostgreSQL only (SQLite is one process); without GALLERY_TEST_POSTGRES these fail, like the
/// other PostgreSQL cases (`skip` leaves them out).
@Suite(.serialized) struct FanoutTests {
    static var enabled: Bool { Backend.tested.contains(.postgres) }

    /// Two stores on one new database, each with its own data folder (images are not used here).
    static func twoStores() async throws -> (GalleryStore, GalleryStore) {
        let url = try await Backend.makePostgresDatabase()
        let a = try await GalleryStore.open(folder: storeTestRoot.appendingPathComponent(UUID().uuidString), databaseURL: url)
        let b = try await GalleryStore.open(folder: storeTestRoot.appendingPathComponent(UUID().uuidString), databaseURL: url)
        return (a, b)
    }

    /// 120 s: at the start of a parallel run on two cores every suite sets up at once (stores made,
    /// databases created, blocking on the pool); CI once waited more than 30 s for B's first listen.
    static func eventually(_ timeout: Duration = .seconds(120), _ condition: () async throws -> Bool) async rethrows -> Bool {
        let clock = ContinuousClock(), deadline = clock.now + timeout
        while clock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return try await condition()
    }

    /// Collects a stream's events in a task (read with `events`).
    final class Collector: @unchecked Sendable {
        private let lock = NSLock()
        private var _events: [GalleryEvent] = []
        private var task: Task<Void, Never>?
        init(_ stream: AsyncStream<GalleryEvent>) {
            task = Task { [weak self] in for await e in stream { self?.lock.withLock { self?._events.append(e) } } }
        }
        var events: [GalleryEvent] { lock.withLock { _events } }
        var changes: [ChangesJSON] { events.compactMap { if case let .changes(c) = $0 { return c } else { return nil } } }
        var lastVersion: Int64? { changes.last?.toVersion }
    }

    /// The gallery in memory, read in a turn of the writer's queue: a follow (`syncWithRow`) holds
    /// the live snapshot out of the map while it runs there, and sends the versions' events to the
    /// subscribers before it puts the snapshot back — read straight from the map, a subscriber
    /// that already has the last version could see the placeholder (a failure seen once under load).
    static func memory(_ store: GalleryStore, _ gallery: Int64) async throws -> (version: Int64, snapshot: Snapshot, count: Int)? {
        try await store.database.writeWithoutTransaction { _ in
            store.live.withLock { $0[gallery].map { ($0.version, $0.snapshot, $0.itemCount) } }
        }
    }

    static func rows(_ store: GalleryStore, _ gallery: Int64) async throws -> (Int64, Snapshot) {
        try await store.database.read { db in
            (try db.value("SELECT version FROM gallery WHERE id = ?", [gallery], as: Int64.self)!, try GalleryStore.engineSnapshot(db, gallery))
        }
    }

    @Test func aSubscriberOnAnotherInstanceGetsEveryBatchInOrderWithTheSameChanges() async throws {
        guard Self.enabled else { return }
        let (a, b) = try await Self.twoStores()
        defer { try? a.close(); try? b.close() }
        b.startFollowing()
        #expect(await Self.eventually { b.followingSessions >= 1 }, "B listens")
        let (g, _) = try await makeGallery(a, sections: 3, perSection: 30)
        let start = try await b.snapshot(g.id)
        let (stream, cancel) = try await b.subscribe(gallery: g.id, since: start.version)
        defer { cancel() }
        let onB = Collector(stream)
        let oldColumns = try await b.columns(g.id)

        var rng = SeededGenerator(seed: 14)
        var answers: [BatchResult] = []
        while answers.count < 80 {
            let snap = try await a.snapshot(g.id)
            guard let op = randomOperation(snap, &rng) else { continue }
            if let r = try? await a.apply(gallery: g.id, [op]) { answers.append(r) } // a refused one (a random pick) is no version
        }
        _ = try await a.renameGallery(g.id, name: "Renamed on A")
        let last = try await a.gallery(g.id).version
        #expect(await Self.eventually { onB.lastVersion == last }, "B's subscriber reached \(String(describing: onB.lastVersion)) of \(last)")
        // In order, one event per version, each the very changes A's batch answered.
        let got = onB.changes
        #expect(got.map(\.fromVersion) == Array(start.version ..< last))
        #expect(got.map(\.toVersion) == Array(start.version + 1 ... last))
        for (answer, event) in zip(answers, got) {
            #expect(event.stages == answer.changes.stages, "version \(answer.version)")
            #expect(event.items.map(\.id) == answer.changes.items.map(\.id), "version \(answer.version)")
        }
        #expect(got.last?.name == "Renamed on A")
        // The replay of B's stream, B's memory and the rows agree.
        var replayed = try Snapshot(gallery: start)
        for c in got { try replay(c, on: &replayed) }
        let (rowVersion, rowSnapshot) = try await Self.rows(b, g.id)
        let mem = try #require(await Self.memory(b, g.id))
        #expect(mem.version == rowVersion && rowVersion == last)
        #expect(mem.snapshot == rowSnapshot && replayed == rowSnapshot)
        #expect(mem.count == rowSnapshot.itemCount)
        #expect(b.followedVersions >= answers.count && b.followReloads == 0, "followed from the log, never reloaded")
        // The columns B brings up to date from memory equal a fresh read, and A's.
        let updated = try #require(try await b.columns(g.id, updating: oldColumns))
        let fresh = try await a.columns(g.id)
        #expect(updated.ids == fresh.ids && updated.contentVersions == fresh.contentVersions && updated.titles == fresh.titles)
        #expect(updated.sections.map(\.id) == fresh.sections.map(\.id) && updated.gallery.version == fresh.gallery.version)
        // Catch-up on B from the start serves A's versions.
        let caught = try #require(try await b.changes(gallery: g.id, since: start.version))
        var fromCatchUp = try Snapshot(gallery: start)
        try replay(caught, on: &fromCatchUp)
        #expect(fromCatchUp == rowSnapshot)
    }

    /// The batch on B right after one on A, before B heard of it (B does not listen at all here):
    /// B's batch brings memory up to the row inside its transaction first. Without that, B
    /// resolved positions against its old snapshot and answered stages from it: its memory and
    /// its stream no longer matched the rows.
    @Test func aBatchOnAnInstanceBehindTheRowBringsMemoryUpFirst() async throws {
        guard Self.enabled else { return }
        let (a, b) = try await Self.twoStores()
        defer { try? a.close(); try? b.close() }
        let (g, sections) = try await makeGallery(a, sections: 2, perSection: 12)
        let start = try await b.snapshot(g.id)
        let (stream, cancel) = try await b.subscribe(gallery: g.id, since: start.version) // B has it in memory
        defer { cancel() }
        let onB = Collector(stream)
        let ids = start.sections[0].items.map(\.id)
        var rng = SeededGenerator(seed: 41)
        for round in 0..<20 {
            // A: a move B does not hear of; B: a move by index, which depends on the order A made.
            let onA = try await a.apply(gallery: g.id, [.move(items: [ids[Int(rng.next() % 12)]], to: .index(section: sections[1], index: 0))])
            let item = try await a.snapshot(g.id).sections[1].items[Int(rng.next() % 5)].id
            let answer = try await b.apply(gallery: g.id, [.move(items: [item], to: .index(section: sections[0], index: Int(rng.next() % 3)))])
            #expect(answer.version == onA.version + 1, "round \(round)")
            #expect(answer.changes.fromVersion == onA.version, "B's answer is from A's version, not from its old one")
        }
        let (rowVersion, rowSnapshot) = try await Self.rows(b, g.id)
        let mem = try #require(await Self.memory(b, g.id))
        #expect(mem.version == rowVersion)
        #expect(mem.snapshot == rowSnapshot, "B's memory is the rows' order")
        #expect(await Self.eventually { onB.lastVersion == rowVersion })
        var replayed = try Snapshot(gallery: start)
        for c in onB.changes { try replay(c, on: &replayed) }
        #expect(onB.changes.map(\.toVersion) == Array(start.version + 1 ... rowVersion), "every version on B's stream, in order")
        #expect(replayed == rowSnapshot)
    }

    /// A log that does not lead to the row's version (a version's row missing here) is never
    /// patched over: B reads the gallery again from its rows, and its subscriber, whose version
    /// the rebuilt window cannot serve, is told to reload.
    @Test func aGapInTheLogReloadsFromTheRowsAndTellsSubscribersToReload() async throws {
        guard Self.enabled else { return }
        let (a, b) = try await Self.twoStores()
        defer { try? a.close(); try? b.close() }
        let (g, sections) = try await makeGallery(a, sections: 2, perSection: 5)
        let start = try await b.snapshot(g.id)
        let (stream, cancel) = try await b.subscribe(gallery: g.id, since: start.version) // B does not listen: it learns at its next read
        defer { cancel() }
        let onB = Collector(stream)
        let ids = start.sections[0].items.map(\.id)
        for k in 0..<3 { _ = try await a.apply(gallery: g.id, [.move(items: [ids[k]], to: .end(section: sections[1]))]) }
        let gap = start.version + 2
        try await a.database.write { db in try db.execute("DELETE FROM operation WHERE galleryId = ? AND version = ?", [g.id, gap]) }
        // Any read of the live state follows the row first (here a catch-up request).
        _ = try await b.changes(gallery: g.id, since: start.version)
        let (rowVersion, rowSnapshot) = try await Self.rows(b, g.id)
        let mem = try #require(await Self.memory(b, g.id))
        #expect(mem.version == rowVersion && mem.snapshot == rowSnapshot, "B's memory is the rows'")
        #expect(b.followReloads == 1 && b.followedVersions == 0, "nothing applied from a log with a hole")
        #expect(await Self.eventually { !onB.events.isEmpty })
        guard case let .reload(version)? = onB.events.last else { Issue.record("B's subscriber got \(onB.events)"); return }
        #expect(version == rowVersion)
        #expect(onB.changes.isEmpty, "no changes event across the hole")
    }

    @Test func aGalleryDeletedOnOneInstanceEndsTheOthersStreamsWithDeleted() async throws {
        guard Self.enabled else { return }
        let (a, b) = try await Self.twoStores()
        defer { try? a.close(); try? b.close() }
        b.startFollowing()
        #expect(await Self.eventually { b.followingSessions >= 1 })
        let (g, _) = try await makeGallery(a, sections: 1, perSection: 3)
        let (stream, cancel) = try await b.subscribe(gallery: g.id, since: nil)
        defer { cancel() }
        let onB = Collector(stream)
        try await a.deleteGallery(g.id)
        #expect(await Self.eventually { onB.events.contains { if case .deleted = $0 { return true } else { return false } } })
        #expect(b.subscriberCount(gallery: g.id) == 0)
    }

    /// Signals other than versions reach the other instance's handler (the server wakes its
    /// gallery-list streams and access checks with them); a store's own are not echoed to it.
    @Test func listAndAccessSignalsReachTheOtherInstanceOnly() async throws {
        guard Self.enabled else { return }
        let (a, b) = try await Self.twoStores()
        defer { try? a.close(); try? b.close() }
        let onA = Collector.Signals(), onB = Collector.Signals()
        a.startFollowing { onA.append($0) }
        b.startFollowing { onB.append($0) }
        #expect(await Self.eventually { a.followingSessions >= 1 && b.followingSessions >= 1 })
        a.tellOtherInstances(.galleryList)
        a.tellOtherInstances(.access)
        #expect(await Self.eventually { onB.all == [.galleryList, .access] })
        #expect(onA.all.isEmpty, "not echoed to the sender")
    }
}

extension FanoutTests.Collector {
    final class Signals: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [InstanceSignal] = []
        func append(_ s: InstanceSignal) { lock.withLock { list.append(s) } }
        var all: [InstanceSignal] { lock.withLock { list } }
    }
}
