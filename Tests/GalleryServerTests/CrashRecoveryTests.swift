import Foundation
import Testing
import AsyncHTTPClient
import NIOCore
import GRDB
import GridEngine
import GalleryCore
import GalleryStore
import Synchronization
import StoreTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The built `gallery` binary, killed with SIGKILL in the middle of batches and fetches.
@Suite(.serialized) struct CrashRecoveryTests {
    static var binary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("gallery")
    }

    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    /// `gallery serve` on `data`, its rows in PostgreSQL when `database` is given (`--database`).
    static func spawn(data: URL, port: Int, database: String? = nil, extra: [String] = [], log logName: String = "server.log",
                      sample: Bool = false) throws -> Process {
        let p = Process()
        p.executableURL = binary
        p.arguments = ["serve", "--port", "\(port)", "--data", data.path, "--web", data.appendingPathComponent("web").path,
                       "--allow-private-addresses", "--log-level", "warning"] + (sample ? [] : ["--no-sample"])
            + (database.map { ["--database", $0] } ?? []) + extra
        let logPath = data.appendingPathComponent(logName).path
        if !FileManager.default.fileExists(atPath: logPath) { _ = FileManager.default.createFile(atPath: logPath, contents: nil) }
        let log = FileHandle(forWritingAtPath: logPath)
        _ = try? log?.seekToEnd()
        p.standardOutput = log
        p.standardError = log
        try p.run()
        return p
    }

    static func authorized(_ url: String) -> HTTPClientRequest {
        var r = HTTPClientRequest(url: url)
        r.headers.add(name: "Authorization", value: testOwnerAuthorization)
        return r
    }

    static func waitReady(_ port: Int) async throws {
        for _ in 0..<200 {
            if let r = try? await HTTPClient.shared.execute(authorized("http://127.0.0.1:\(port)/api/galleries"), timeout: .seconds(2)),
               r.status == .ok { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("server on \(port) did not start")
    }

    static func get<T: Decodable>(_ port: Int, _ path: String, as: T.Type = T.self) async throws -> T {
        let r = try await HTTPClient.shared.execute(authorized("http://127.0.0.1:\(port)\(path)"), timeout: .seconds(10))
        return try JSONDecoder().decode(T.self, from: Data(try await r.body.collect(upTo: 16 << 20).readableBytesView))
    }

    /// The catch-up from `from`'s version (the stages the server recorded, from its live snapshot)
    /// replays `from` into `now`: a staged diff, not a snapshot, ending at `now`'s version.
    static func expectCatchUpReplays(_ port: Int, _ gallery: Int64, from: GallerySnapshotJSON, to now: GallerySnapshotJSON,
                                     _ what: Comment) async throws {
        let caught: CatchUpAnswer = try await get(port, "/api/galleries/\(gallery)/changes?since=\(from.version)")
        let changes = try #require(caught.changes, what)
        #expect(changes.toVersion == now.version)
        var replayed = try Snapshot(gallery: from)
        for stage in changes.stages { try replayed.apply(try stage.batchUpdate.unwrap()) }
        #expect(replayed == (try Snapshot(gallery: now)))
    }

    /// On SQLite and on PostgreSQL (`gallery serve --database postgres://…`).
    @Test(arguments: Backend.tested) func killDashNineLosesNoAcknowledgedItemAndLeavesNoHalfAppliedBatch(_ backend: Backend) async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build the gallery product first (swift build)")
        let images = try await TestImageServer.start()
        defer { Task { await images.stop() } }
        let data = testFolder("crash")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: data.appendingPathComponent("server.log").path, contents: nil)
        let port = Self.freePort()
        let database = try await backend.databaseURL()
        try await seedOwner(folder: data, database: database)
        // The fetches wait for this process's image server, which a loaded machine (the whole
        // suite at once) can keep from answering for longer than the 10 s a fetch may hear nothing.
        let patient = ["--fetch-silence", "60", "--fetch-timeout", "120"]
        var child = try Self.spawn(data: data, port: port, database: database, extra: patient)
        try await Self.waitReady(port)

        let (_, created) = try await post(port, "/api/galleries", #"{"name": "Crash"}"#)
        let gallery = try JSONDecoder().decode(GalleryInfo.self, from: created).id
        // Acknowledged placeholders whose fetch (2 s) is in flight when the process dies.
        var acknowledged: [Int64] = []
        for _ in 0..<6 {
            let (status, body) = try await post(port, "/api/galleries/\(gallery)/urls", #"{"url": "\#(images.base)/slow.jpg?ms=2000"}"#)
            #expect(status == 202)
            acknowledged += try JSONDecoder().decode(CreatedItems.self, from: body).items.map(\.id)
        }
        let seedIds = acknowledged
        // What a client has before the kill; it comes back after the restart with ?since= this version.
        let beforeKill: GallerySnapshotJSON = try await Self.get(port, "/api/galleries/\(gallery)")
        // Batches of three copies each, as fast as they go, until the kill.
        let copies = Mutex<[Int64]>([])
        let writer = Task {
            var k = 0
            while !Task.isCancelled {
                let ids = (0..<3).map { seedIds[($0 + k) % seedIds.count] }
                guard let (status, body) = try? await post(port, "/api/galleries/\(gallery)/batch",
                                                           #"{"operations": [{"op": "copy", "items": \#(ids), "to": {"after": \#(ids[0])}}]}"#),
                      status == 200, let answer = try? JSONDecoder().decode(BatchAnswer.self, from: body) else { break }
                copies.withLock { $0 += answer.createdItems }
                k += 1
            }
        }
        // Kill once ten batches were acknowledged (whatever the machine's load), while more are in flight.
        let clock = ContinuousClock()
        let killBy = clock.now + .seconds(30)
        while copies.withLock({ $0.count }) < 30 && clock.now < killBy { try await Task.sleep(for: .milliseconds(10)) }
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        #expect(child.terminationReason == .uncaughtSignal)
        await writer.value
        acknowledged += copies.withLock { $0 }
        #expect(acknowledged.count >= seedIds.count + 30, "batches were acknowledged before the kill (\(acknowledged.count))")

        child = try Self.spawn(data: data, port: port, database: database, extra: patient)
        try await Self.waitReady(port)
        // Every acknowledged item is there.
        let snapshot: GallerySnapshotJSON = try await Self.get(port, "/api/galleries/\(gallery)")
        let live = Set(snapshot.sections.flatMap { $0.items.map(\.id) })
        #expect(Set(acknowledged).isSubset(of: live), "missing: \(Set(acknowledged).subtracting(live).sorted().prefix(5))")
        // Fetches cut by the kill resume and finish.
        let deadline = clock.now + .seconds(30)
        var states: [ItemState] = []
        while clock.now < deadline {
            let s: GallerySnapshotJSON = try await Self.get(port, "/api/galleries/\(gallery)")
            states = s.sections.flatMap { $0.items.map(\.state) }
            if !states.contains(.pending) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(!states.contains(.pending))
        let first: ItemJSON = try await Self.get(port, "/api/items/\(seedIds[0])")
        #expect(first.state == .ready, "\(first.reason ?? "")")
        // Catch-up across the kill: the staged diff from the client's version, not a snapshot.
        let now: GallerySnapshotJSON = try await Self.get(port, "/api/galleries/\(gallery)")
        try await Self.expectCatchUpReplays(port, gallery, from: beforeKill, to: now, "a diff across the kill")

        child.terminate()
        child.waitUntilExit()
        #expect(child.terminationReason == .exit && child.terminationStatus == 0, "SIGTERM is a clean shutdown")

        // No half-applied batch: one log row per version, and exactly three items per logged copy batch.
        // The rows where --database put them: no SQLite file in the data folder on PostgreSQL.
        #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("gallery.sqlite").path) == (database == nil))
        let store = try GalleryStore(folder: data, databaseURL: database)
        let (version, logged, copyBatches, items, unstaged) = try await store.database.read { db in
            (try db.value("SELECT version FROM gallery WHERE id = ?", [gallery], as: Int64.self)!,
             try db.value("SELECT COUNT(*) FROM operation WHERE galleryId = ?", [gallery], as: Int64.self)!,
             try db.value("SELECT COUNT(*) FROM operation WHERE galleryId = ? AND payload LIKE '%\"copy\"%'", [gallery], as: Int.self)!,
             try db.value("SELECT COUNT(*) FROM item WHERE galleryId = ?", [gallery], as: Int.self)!,
             try db.value("SELECT COUNT(*) FROM operation WHERE galleryId = ? AND stages IS NULL", [gallery], as: Int.self)!)
        }
        #expect(version == logged)
        #expect(unstaged == 0, "every logged version carries its stages")
        #expect(items == seedIds.count + 3 * copyBatches)
    }

    /// `GALLERY_DATABASE` in the environment stands for `--database` (docs/deploy/gallery@.service
    /// passes it through an EnvironmentFile), so a URL with a password is not in the process list,
    /// which every local user can read. Before, `serve` ignored it: the rows went to a new SQLite
    /// file in the data folder and the unit had to put the URL on the command line.
    @Test(.enabled(if: Backend.tested.contains(.postgres), "GALLERY_TEST_POSTGRES=skip"))
    func theDatabaseURLCanComeFromTheEnvironmentAndStaysOutOfTheProcessList() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build the gallery product first (swift build)")
        let url = try await Backend.postgres.databaseURL()!
        let data = testFolder("envdb")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let port = Self.freePort()
        let p = Process()
        p.executableURL = Self.binary
        p.arguments = ["serve", "--port", "\(port)", "--data", data.path, "--web", data.appendingPathComponent("web").path, "--log-level", "warning"]
        var environment = ProcessInfo.processInfo.environment
        environment["GALLERY_DATABASE"] = url
        p.environment = environment
        let log = data.appendingPathComponent("server.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        p.standardOutput = FileHandle(forWritingAtPath: log.path)
        p.standardError = FileHandle(forWritingAtPath: log.path)
        try p.run()
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() } }
        var ready = false
        for _ in 0..<600 where !ready && p.isRunning {
            if let r = try? await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/readyz"), timeout: .seconds(2)),
               r.status == .ok { ready = true } else { try await Task.sleep(for: .milliseconds(100)) }
        }
        try #require(ready, "serve did not get ready: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        let commandLine = try String(decoding: Data(contentsOf: URL(fileURLWithPath: "/proc/\(p.processIdentifier)/cmdline")), as: UTF8.self)
        #expect(!commandLine.contains("postgres://"), "\(commandLine)")
        // The rows are in PostgreSQL (the sample gallery was made there), none in the data folder.
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("gallery.sqlite").path), "serve made a SQLite file: the variable was ignored")
        let store = try GalleryStore(folder: testFolder("envdb-reader"), databaseURL: url)
        #expect(try await store.listGalleries().count == 1)
    }

    /// A wrong database URL stops `gallery serve` at once with a message that says so (not a
    /// hang, not a stack trace). PostgreSQL not answering is not one: the server waits for it
    /// (PostgresOutageTests); PostgreSQL refusing the connection (a role or database that does
    /// not exist) stops it, also tested there.
    @Test func aWrongDatabaseURLStopsServeWithAClearMessage() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build the gallery product first (swift build)")
        for (url, says) in [("mysql://somewhere/db", "is not postgres://"),
                            ("postgres://127.0.0.1:5432/", "names no database"),
                            // A password in a wrong URL is not repeated into the log (it showed there).
                            ("mysql://ana:s3cret-pw@somewhere/db", "is not postgres://"),
                            ("postgres://ana:s3cret-pw@127.0.0.1:5432/", "names no database")] {
            let data = testFolder("baddb")
            try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: data.appendingPathComponent("server.log").path, contents: nil)
            let child = try Self.spawn(data: data, port: Self.freePort(), database: url)
            child.waitUntilExit()
            let log = try String(contentsOf: data.appendingPathComponent("server.log"), encoding: .utf8)
            #expect(child.terminationReason == .exit && child.terminationStatus != 0, "\(url)")
            #expect(log.contains(says), "\(url): \(log)")
            #expect(!log.contains("s3cret"), "the password is in the log: \(log)")
        }
    }
    /// A new data folder with PostgreSQL not answering at start: the port answers (503) while it
    /// waits, and server.json is in the data folder meanwhile — `gallery migrate` refuses to copy
    /// under a running server and `gallery import` finds it by that file. The folder did not exist
    /// yet, so server.json could not be written ("could not write server.json"), and never was.
    @Test func serverJSONIsWrittenWhileWaitingForTheDatabaseInANewDataFolder() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build the gallery product first (swift build)")
        let data = testFolder("waiting-new-folder")
        let logs = testFolder("waiting-new-folder-log")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: logs.appendingPathComponent("server.log").path, contents: nil)
        let port = Self.freePort()
        let p = Process()
        p.executableURL = Self.binary
        // Nothing listens on this port: the server waits for its database.
        p.arguments = ["serve", "--port", "\(port)", "--data", data.path, "--web", logs.path, "--log-level", "warning",
                       "--database", "postgres://gallery@127.0.0.1:\(Self.freePort())/gallery"]
        let log = FileHandle(forWritingAtPath: logs.appendingPathComponent("server.log").path)
        p.standardOutput = log
        p.standardError = log
        try p.run()
        defer { p.terminate(); p.waitUntilExit() }
        var health: UInt = 0
        for _ in 0..<400 where health != 200 {
            health = (try? await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/healthz"), timeout: .seconds(2)))?.status.code ?? 0
            if health != 200 { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(health == 200)
        let file = data.appendingPathComponent("server.json")
        var written = false
        for _ in 0..<100 where !written {
            written = FileManager.default.fileExists(atPath: file.path)
            if !written { try await Task.sleep(for: .milliseconds(50)) }
        }
        let text = (try? String(contentsOf: logs.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
        #expect(written, "no server.json while the server waits: \(text)")
        #expect(!text.contains("could not write server.json"), "\(text)")
    }
}
