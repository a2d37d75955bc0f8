import Foundation
import Testing
import AsyncHTTPClient
import NIOCore
import GRDB
import GridEngine
import GalleryCore
import GalleryStore
import Synchronization
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

    static func spawn(data: URL, port: Int, extra: [String] = []) throws -> Process {
        let p = Process()
        p.executableURL = binary
        p.arguments = ["serve", "--port", "\(port)", "--data", data.path, "--web", data.appendingPathComponent("web").path,
                       "--allow-private-addresses", "--no-sample", "--log-level", "warning"] + extra
        let log = FileHandle(forWritingAtPath: data.appendingPathComponent("server.log").path)
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

    @Test func killDashNineLosesNoAcknowledgedItemAndLeavesNoHalfAppliedBatch() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build the gallery product first (swift build)")
        let images = try await TestImageServer.start()
        defer { Task { await images.stop() } }
        let data = testFolder("crash")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: data.appendingPathComponent("server.log").path, contents: nil)
        let port = Self.freePort()
        try await seedOwner(folder: data)
        var child = try Self.spawn(data: data, port: port)
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

        child = try Self.spawn(data: data, port: port)
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
        let caught: CatchUpAnswer = try await Self.get(port, "/api/galleries/\(gallery)/changes?since=\(beforeKill.version)")
        let changes = try #require(caught.changes, "a diff across the kill")
        #expect(changes.toVersion == now.version)
        var replayed = try Snapshot(gallery: beforeKill)
        for stage in changes.stages { try replayed.apply(try stage.batchUpdate.unwrap()) }
        #expect(replayed == (try Snapshot(gallery: now)))

        child.terminate()
        child.waitUntilExit()
        #expect(child.terminationReason == .exit && child.terminationStatus == 0, "SIGTERM is a clean shutdown")

        // No half-applied batch: one log row per version, and exactly three items per logged copy batch.
        let pool = try DatabasePool(path: data.appendingPathComponent("gallery.sqlite").path)
        let (version, logged, copyBatches, items, unstaged) = try await pool.read { db in
            (try Int64.fetchOne(db, sql: "SELECT version FROM gallery WHERE id = ?", arguments: [gallery])!,
             try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM operation WHERE galleryId = ?", arguments: [gallery])!,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM operation WHERE galleryId = ? AND payload LIKE '%\"copy\"%'", arguments: [gallery])!,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item WHERE galleryId = ?", arguments: [gallery])!,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM operation WHERE galleryId = ? AND stages IS NULL", arguments: [gallery])!)
        }
        #expect(version == logged)
        #expect(unstaged == 0, "every logged version carries its stages")
        #expect(items == seedIds.count + 3 * copyBatches)
    }
}
