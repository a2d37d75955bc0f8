import Foundation
import Testing
import AsyncHTTPClient
import NIOCore
import GridEngine
import GalleryCore
import GalleryStore
import GalleryServer
import Synchronization
import StoreTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 14 point 2: two real `gallery serve` processes on one PostgreSQL database and one data
/// folder. Each follows the other's versions (LISTEN/NOTIFY and the operation log), so a live
/// stream on either instance carries every version in order, whichever instance wrote it.
/// PostgreSQL only: without GALLERY_TEST_POSTGRES these fail like the other PostgreSQL cases
/// (`skip` leaves them out).
@Suite(.serialized) struct MultiInstanceTests {
    static var enabled: Bool { Backend.tested.contains(.postgres) }

    /// Two (or more) `gallery serve` on one database and data folder.
    final class Instances: @unchecked Sendable {
        let data: URL
        let database: String
        var ports: [Int] = []
        var processes: [Process] = []

        init(database: String? = nil) async throws {
            try #require(FileManager.default.isExecutableFile(atPath: CrashRecoveryTests.binary.path), "build the gallery product first (swift build)")
            data = testFolder("instances")
            try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
            if let database { self.database = database } else { self.database = try await Backend.makePostgresDatabase() }
            try await seedOwner(folder: data, database: self.database)
        }

        /// Starts instance `k` (a new one when `k == ports.count`).
        func start(_ k: Int) async throws {
            if k == ports.count { ports.append(CrashRecoveryTests.freePort()); processes.append(Process()) }
            let log = data.appendingPathComponent("server-\(k).log")
            if !FileManager.default.fileExists(atPath: log.path) { _ = FileManager.default.createFile(atPath: log.path, contents: nil) }
            let p = Process()
            p.executableURL = CrashRecoveryTests.binary
            p.arguments = ["serve", "--port", "\(ports[k])", "--data", data.path, "--web", data.appendingPathComponent("web").path,
                           "--allow-private-addresses", "--no-sample", "--log-level", "info", "--database", database]
            let handle = try FileHandle(forWritingTo: log)
            handle.seekToEndOfFile()
            p.standardOutput = handle
            p.standardError = handle
            try p.run()
            processes[k] = p
            try await CrashRecoveryTests.waitReady(ports[k])
        }

        func log(_ k: Int) -> String { (try? String(contentsOf: data.appendingPathComponent("server-\(k).log"), encoding: .utf8)) ?? "" }

        func stopAll() {
            for p in processes where p.isRunning { p.terminate(); p.waitUntilExit() }
        }
    }

    /// A gallery of two sections of `n` ready items each, made in the database before the instances start.
    static func seed(_ instances: Instances, n: Int) async throws -> GallerySnapshotJSON {
        let store = try GalleryStore(folder: instances.data, databaseURL: instances.database)
        defer { try? store.close() }
        let g = try await store.createGallery(name: "Two instances", owner: try await store.account(named: "owner")?.id)
        let first = try await store.snapshot(g.id).sections[0].id
        let second = try await store.apply(gallery: g.id, [.createSection(title: "Two", index: nil)]).createdSections[0]
        for (s, id) in [first, second].enumerated() {
            let items = (0..<n).map { NewItem(title: "\(s)-\($0)", width: 400 + $0 * 10, height: 300, state: .ready) }
            _ = try await store.apply(gallery: g.id, [.insert(items, at: .end(section: id))], payload: "seed")
        }
        return try await store.snapshot(g.id)
    }

    struct ClientOutcome: Sendable {
        var port = 0
        var created: [Int64] = []
        var versions: [Int64] = []
        var refused = 0
        var serverErrors: [String] = []
        var lostConnection = false
    }

    /// Random batches from `view`'s replay of its instance's stream, posted to `port`, until
    /// `count` were sent or the instance stops answering.
    static func client(port: Int, gallery: Int64, view: StreamReplayer, seed: UInt64, count: Int) async -> ClientOutcome {
        var rng = SeededGenerator(seed: seed)
        var out = ClientOutcome(port: port), trashed: [Int64] = []
        for _ in 0..<count {
            let body = randomBatch(view.snapshot, trashed: trashed, &rng)
            guard let (status, data) = try? await post(port, "/api/galleries/\(gallery)/batch", body) else {
                out.lostConnection = true
                break
            }
            if status == 200, let answer = try? JSONDecoder().decode(BatchAnswer.self, from: data) {
                out.created += answer.createdItems
                out.versions.append(answer.version)
                if body.contains("\"trash\""), let id = firstId(body) { trashed.append(id) }
                if body.contains("\"restore\"") { trashed.removeAll { $0 == firstId(body) } }
            } else if (400..<500).contains(status) {
                out.refused += 1
            } else {
                out.serverErrors.append("\(status): \(String(decoding: data, as: UTF8.self))")
            }
        }
        return out
    }

    /// The columns body an instance serves (from its columns cache, brought up to date from memory).
    static func columns(_ port: Int, _ gallery: Int64) async throws -> [UInt8] {
        let r = try await HTTPClient.shared.execute(CrashRecoveryTests.authorized("http://127.0.0.1:\(port)/api/galleries/\(gallery)/columns"), timeout: .seconds(30))
        #expect(r.status == .ok)
        return Array(try await r.body.collect(upTo: 64 << 20).readableBytesView)
    }

    static func snapshot(_ port: Int, _ gallery: Int64) async throws -> GallerySnapshotJSON {
        try await CrashRecoveryTests.get(port, "/api/galleries/\(gallery)")
    }

    /// Four clients × 250 random batches, two on each instance, each client working from its own
    /// instance's live stream: both instances end with the same order, every item once, one
    /// version per acknowledged batch with no gap, and every stream (two on each instance)
    /// delivered every version in order, replaying to the final order.
    @Test func fourClientsTimes250BatchesOverTwoInstancesAgree() async throws {
        guard Self.enabled else { return }
        let instances = try await Instances()
        defer { instances.stopAll() }
        let start = try await Self.seed(instances, n: 20)
        let g = start.gallery.id
        try await instances.start(0)
        try await instances.start(1)
        let views = try (0..<4).map { _ in try StreamReplayer(start: start) }
        for (n, v) in views.enumerated() { v.connect(port: instances.ports[n % 2], gallery: g) }
        // Each instance's columns cache holds the gallery now, and follows its versions from here.
        for port in instances.ports { _ = try await Self.columns(port, g) }
        let outcomes = await withTaskGroup(of: ClientOutcome.self) { group in
            for (n, view) in views.enumerated() {
                let port = instances.ports[n % 2]
                group.addTask { await Self.client(port: port, gallery: g, view: view, seed: UInt64(1400 + n), count: 250) }
            }
            var all: [ClientOutcome] = []
            for await o in group { all.append(o) }
            return all
        }
        #expect(outcomes.allSatisfy { $0.serverErrors.isEmpty && !$0.lostConnection }, "\(outcomes.flatMap(\.serverErrors).prefix(3))")
        let versions = outcomes.flatMap(\.versions).sorted()
        #expect(versions.count > 600, "most random batches apply (\(versions.count))")
        #expect(versions == Array(start.version + 1 ... start.version + Int64(versions.count)), "one version per acknowledged batch, no gap, none twice")
        let onA = try await Self.snapshot(instances.ports[0], g), onB = try await Self.snapshot(instances.ports[1], g)
        #expect(onA.version == start.version + Int64(versions.count) && onB.version == onA.version)
        #expect(onA.sections.map { $0.items.map(\.id) } == onB.sections.map { $0.items.map(\.id) }, "the same order seen from both")
        #expect(titles(onA) == titles(onB))
        let columnsA = try await Self.columns(instances.ports[0], g), columnsB = try await Self.columns(instances.ports[1], g)
        #expect(columnsA == columnsB, "the columns both instances serve are the same")
        let trash: [ItemJSON] = try await CrashRecoveryTests.get(instances.ports[1], "/api/galleries/\(g)/trash")
        let live = onA.sections.flatMap { $0.items.map(\.id) }
        #expect(Set(live).count == live.count, "every item once")
        #expect(Set(live).isDisjoint(with: trash.map(\.id)))
        #expect(Set(live).union(trash.map(\.id)) == Set(start.sections.flatMap { $0.items.map(\.id) }).union(outcomes.flatMap(\.created)))
        let target = try Snapshot(gallery: onA)
        for (n, v) in views.enumerated() {
            #expect(await v.wait(for: onA.version), "stream \(n) (instance \(n % 2)) reached \(v.version) of \(onA.version)")
            #expect(v.problems.isEmpty, "stream \(n): \(v.problems.prefix(3))")
            #expect(v.snapshot == target, "stream \(n)")
            v.disconnect()
        }
    }

    /// kill -9 of instance A while four clients write through both: nothing acknowledged is lost,
    /// B goes on taking batches, and the streams on B see every version in order.
    @Test func killDashNineOfOneInstanceDuringTheLoadLosesNothingAcknowledged() async throws {
        guard Self.enabled else { return }
        let instances = try await Instances()
        defer { instances.stopAll() }
        let start = try await Self.seed(instances, n: 20)
        let g = start.gallery.id
        try await instances.start(0)
        try await instances.start(1)
        let views = try (0..<4).map { _ in try StreamReplayer(start: start) }
        for (n, v) in views.enumerated() { v.connect(port: instances.ports[n % 2], gallery: g) }
        let killAt = start.version + 100, survivor = instances.ports[1], victim = instances.processes[0].processIdentifier
        let outcomes = await withTaskGroup(of: ClientOutcome.self) { group in
            for (n, view) in views.enumerated() {
                let port = instances.ports[n % 2]
                group.addTask {
                    let o = await Self.client(port: port, gallery: g, view: view, seed: UInt64(1500 + n), count: n % 2 == 0 ? 250 : 200)
                    return o
                }
            }
            group.addTask {
                // Kill A once 100 batches were acknowledged (however loaded the machine is).
                let clock = ContinuousClock(), until = clock.now + .seconds(60)
                while clock.now < until {
                    let versions = (try? await Self.snapshot(survivor, g).version) ?? 0
                    if versions >= killAt { break }
                    try? await Task.sleep(for: .milliseconds(20))
                }
                kill(victim, SIGKILL)
                return ClientOutcome(port: -1)
            }
            var all: [ClientOutcome] = []
            for await o in group { all.append(o) }
            return all
        }
        await instances.processes[0].exited()
        #expect(instances.processes[0].terminationReason == .uncaughtSignal, "A was killed during the load")
        #expect(outcomes.allSatisfy { $0.serverErrors.isEmpty }, "\(outcomes.flatMap(\.serverErrors).prefix(3))")
        let onB = try await Self.snapshot(instances.ports[1], g)
        let versions = outcomes.flatMap(\.versions)
        #expect(Set(versions).count == versions.count, "no version acknowledged twice")
        #expect(versions.allSatisfy { $0 <= onB.version }, "every acknowledged version is in the database")
        // A batch in flight on A when it died may have committed unacknowledged: at most one per client on A.
        #expect(onB.version >= start.version + Int64(versions.count) && onB.version <= start.version + Int64(versions.count) + 2)
        let trash: [ItemJSON] = try await CrashRecoveryTests.get(instances.ports[1], "/api/galleries/\(g)/trash")
        let live = onB.sections.flatMap { $0.items.map(\.id) }
        #expect(Set(live).count == live.count, "every item once")
        #expect(Set(outcomes.flatMap(\.created)).isSubset(of: Set(live).union(trash.map(\.id))), "every acknowledged copy is there")
        let onBClients = outcomes.filter { $0.port == instances.ports[1] }
        #expect(onBClients.count == 2 && onBClients.allSatisfy { !$0.lostConnection && $0.versions.count > 50 }, "B went on")
        let target = try Snapshot(gallery: onB)
        for n in [1, 3] {
            let v = views[n]
            #expect(await v.wait(for: onB.version), "stream \(n) on B reached \(v.version) of \(onB.version)")
            #expect(v.problems.isEmpty, "stream \(n): \(v.problems.prefix(3))")
            #expect(v.snapshot == target, "stream \(n)")
        }
        for v in views { v.disconnect() }
    }

    /// The listening connection lost and back (the cluster stopped and started again, so every
    /// connection breaks and notifications sent meanwhile are lost): each instance connects
    /// again by itself, checks its loaded galleries against their rows, and the streams on B
    /// converge on A's versions.
    @Test func theInstancesConvergeAfterThePostgreSQLServerRestarts() async throws {
        guard Self.enabled else { return }
        let started = try PostgresOutageTests.cluster("start")
        func value(_ name: String) throws -> String {
            try #require(started.split(separator: "\n").first { $0.hasPrefix("export \(name)=") }.map { String($0.split(separator: "=", maxSplits: 1)[1]) })
        }
        let dir = try value("GALLERY_PG_DIR"), url = try value("GALLERY_TEST_POSTGRES")
        defer { _ = try? PostgresOutageTests.cluster("stop", dir) }
        let instances = try await Instances(database: url)
        defer { instances.stopAll() }
        let start = try await Self.seed(instances, n: 6)
        let g = start.gallery.id, ids = start.sections[0].items.map(\.id)
        try await instances.start(0)
        try await instances.start(1)
        let onB = try StreamReplayer(start: start)
        onB.connect(port: instances.ports[1], gallery: g)
        let (status, _) = try await post(instances.ports[0], "/api/galleries/\(g)/batch", ops(#"{"op": "swap", "a": \#(ids[0]), "b": \#(ids[5])}"#))
        #expect(status == 200)
        #expect(await onB.wait(for: start.version + 1), "B follows A before the restart")

        try PostgresOutageTests.cluster("down", dir)
        try PostgresOutageTests.cluster("up", dir)
        // Straight after: A's batches may commit before B listens again (their notifications lost).
        var last = start.version + 1
        let clock = ContinuousClock(), until = clock.now + .seconds(30)
        while last < start.version + 6 && clock.now < until {
            let k = Int(last % 5)
            if let (status, data) = try? await post(instances.ports[0], "/api/galleries/\(g)/batch", ops(#"{"op": "swap", "a": \#(ids[k]), "b": \#(ids[k + 1])}"#)),
               status == 200, let answer = try? JSONDecoder().decode(BatchAnswer.self, from: data) {
                last = answer.version
            } else {
                try await Task.sleep(for: .milliseconds(50)) // A's connection comes back on next use
            }
        }
        #expect(last == start.version + 6)
        #expect(await onB.wait(for: last), "B's stream reached \(onB.version) of \(last)")
        let a = try await Self.snapshot(instances.ports[0], g), b = try await Self.snapshot(instances.ports[1], g)
        #expect(a.version == last && b.version == last)
        #expect(onB.snapshot == (try Snapshot(gallery: a)))
        #expect(onB.problems.isEmpty || onB.problems.allSatisfy { $0.hasPrefix("stream error") }, "\(onB.problems)")
        #expect(instances.log(1).contains("listening again"), "B reconnected its listening connection")
        onB.disconnect()
    }

    /// A server that is gone lets go of its store, and so of its listening connection: before, the
    /// store held itself through the closures it calls on a notification, and a test server's
    /// listening connection lived on — reconnecting once a second to a cluster a test had stopped.
    @Test func aServerThatIsGoneClosesItsListeningConnection() async throws {
        guard Self.enabled else { return }
        let database = try await Backend.makePostgresDatabase()
        weak var store: GalleryStore?
        do {
            let server = try await makeServer { $0.databaseURL = database }
            store = server.store
            #expect(await FanoutWait.until { server.store.followingSessions >= 1 }, "it listens")
        }
        #expect(await FanoutWait.until { store == nil }, "the store outlived its server")
    }

    /// List and access changes made on one instance wake the other's streams at once: two
    /// servers (each its own store, as two instances) on one database, both re-checking on their
    /// own only every 10 minutes — what B's streams learn, they learn from A through the database.
    @Test func listAndAccessChangesOnOneInstanceWakeTheOthersStreams() async throws {
        guard Self.enabled else { return }
        let database = try await Backend.makePostgresDatabase()
        let a = try await makeServer { $0.databaseURL = database; $0.streamAccessRecheck = .seconds(600) }
        let b = try await makeServer { $0.databaseURL = database; $0.streamAccessRecheck = .seconds(600) }
        let owner = try await a.owner()
        let g = try await a.store.createGallery(name: "Shared", owner: owner.account.id)
        // A member of the gallery watching it on B with a token of hers; the owner takes her out on A.
        let member = try await a.store.createAccount(name: "member", passwordHash: testPasswordHash, admin: false)
        try await a.store.setMember(gallery: g.id, account: member.id, role: .viewer)
        let second = "gat_member_test_token"
        _ = try await a.store.createToken(account: member.id, name: "member", scope: .read, tokenHash: Secrets.digest(second))
        #expect(await FanoutWait.until { a.store.followingSessions >= 1 && b.store.followingSessions >= 1 }, "both listen")
        try await a.test(.live) { ca in
            try await b.test(.live) { cb in
                let portA = try #require(ca.port), portB = try #require(cb.port)
                let list = RawSSE(url: "http://127.0.0.1:\(portB)/api/galleries/events", authorization: testOwnerAuthorization)
                let gallery = RawSSE(url: "http://127.0.0.1:\(portB)/api/galleries/\(g.id)/events", authorization: "Bearer \(second)")
                defer { list.stop(); gallery.stop() }
                #expect(await FanoutWait.until { list.events.count >= 1 && gallery.events.count >= 1 }, "both streams opened on B")
                let (status, _) = try await post(portA, "/api/galleries", #"{"name": "Made on A"}"#)
                #expect(status == 200 || status == 201)
                #expect(await FanoutWait.until { list.events.contains { $0.name == "galleries" && $0.data.contains("Made on A") } },
                        "B's gallery-list stream shows the gallery made on A: \(list.events.map(\.name))")
                var revoke = HTTPClientRequest(url: "http://127.0.0.1:\(portA)/api/galleries/\(g.id)/members/\(member.id)")
                revoke.method = .DELETE
                revoke.headers.add(name: "Authorization", value: testOwnerAuthorization)
                #expect(try await HTTPClient.shared.execute(revoke, timeout: .seconds(10)).status == .noContent)
                #expect(await FanoutWait.until { gallery.events.contains { $0.name == "revoked" } },
                        "B's stream of a member taken out on A ends with revoked: \(gallery.events.map(\.name))")
            }
        }
    }
}

enum FanoutWait {
    static func until(_ timeout: Duration = .seconds(30), _ condition: () async -> Bool) async -> Bool {
        let clock = ContinuousClock(), deadline = clock.now + timeout
        while clock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return await condition()
    }
}

/// A server-sent-events stream read as it comes: each event's name and data.
final class RawSSE: @unchecked Sendable {
    private let lock = NSLock()
    private var _events: [(name: String, data: String)] = []
    private var task: Task<Void, Never>?
    var events: [(name: String, data: String)] { lock.withLock { _events } }

    init(url: String, authorization: String) {
        task = Task { [weak self] in
            var request = HTTPClientRequest(url: url)
            request.headers.add(name: "Accept", value: "text/event-stream")
            request.headers.add(name: "Authorization", value: authorization)
            guard let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(300)) else { return }
            var buffer = ""
            do {
                for try await chunk in response.body {
                    buffer += String(buffer: chunk)
                    while let end = buffer.range(of: "\n\n") {
                        var name = "message", data = ""
                        for line in buffer[..<end.lowerBound].split(separator: "\n") {
                            if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
                            if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
                        }
                        buffer.removeSubrange(..<end.upperBound)
                        if !name.isEmpty, !(name == "message" && data.isEmpty) { self?.lock.withLock { self?._events.append((name, data)) } }
                    }
                }
            } catch {}
        }
    }

    func stop() { task?.cancel() }
}
