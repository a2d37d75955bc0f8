import Foundation
import Testing
import AsyncHTTPClient
import NIOCore
import GalleryCore
import GalleryStore
import StoreTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The built `gallery` binary on a disk that fills up in the middle of its moves: its data folder
/// is a small tmpfs of its own (mounted in a mount namespace of the server's alone, `unshare`; the
/// test reaches it through `/proc/PID/root`), filled by the test with a file until 256 KiB are
/// left. The write-ahead log is what grows under moves, and it is written once a commit by the
/// project's VFS (`CSQLiteWALBuffer`): its commit flush meets ENOSPC, SQLite says SQLITE_FULL.
/// Then the file is removed, as an operator would free room.
@Suite(.serialized) struct DiskFullTests {
    typealias Crash = CrashRecoveryTests

    static func snapshot(_ port: Int, _ gallery: Int64) async throws -> GallerySnapshotJSON {
        try await Crash.get(port, "/api/galleries/\(gallery)")
    }

    /// Fills the file system of `folder` with `filler` until `left` bytes are free.
    static func fill(_ folder: String, leaving left: Int, filler: String) throws {
        var fs = statvfs()
        try #require(statvfs(folder, &fs) == 0)
        var size = Int(fs.f_bavail) * Int(fs.f_frsize) - left
        try #require(size > 0, "the disk has \(size + left) bytes free")
        _ = FileManager.default.createFile(atPath: filler, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: filler))
        let chunk = Data(count: 1 << 20)
        while size > 0 {
            try handle.write(contentsOf: size >= chunk.count ? chunk : chunk.prefix(size))
            size -= chunk.count
        }
        try handle.close()
    }

    @Test func aDiskThatFillsUpMidMoveAnswers507LosesNothingAndWorksAgainOnceThereIsRoom() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Crash.binary.path), "build the gallery product first (swift build)")
        let images = try await TestImageServer.start()
        defer { Task { await images.stop() } }
        let seed = testFolder("full-seed"), disk = testFolder("full-disk"), copy = testFolder("full-copy")
        for f in [seed, disk, copy] { try FileManager.default.createDirectory(at: f, withIntermediateDirectories: true) }
        try await seedOwner(folder: seed)
        let port = Crash.freePort()
        let logPath = seed.appendingPathComponent("server.log").path
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        // A 16 MiB tmpfs on `disk`, seen by the server alone, with the seeded folder copied in.
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["--user", "--map-root-user", "--mount", "/bin/sh", "-c", "mount -t tmpfs -o size=1m probe \"$0\"", copy.path]
        try probe.run()
        probe.waitUntilExit()
        try #require(probe.terminationStatus == 0, "this test needs a mount namespace of its own (unshare --user --map-root-user --mount) to give the server a small disk")
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        server.arguments = ["--user", "--map-root-user", "--mount", "/bin/sh", "-c",
                            #"mount -t tmpfs -o size=16m gallery-disk "$1" && cp -a "$2"/. "$1"/ && exec "$0" serve --port "$3" --data "$1" --web "$1/web" --allow-private-addresses --log-level warning --no-sample"#,
                            Crash.binary.path, disk.path, seed.path, "\(port)"]
        let log = FileHandle(forWritingAtPath: logPath)
        server.standardOutput = log
        server.standardError = log
        try server.run()
        defer { if server.isRunning { kill(server.processIdentifier, SIGKILL); server.waitUntilExit() } }
        try await Crash.waitReady(port)
        // The server's view of its data folder (the same pid: sh and unshare exec).
        let mounted = "/proc/\(server.processIdentifier)/root" + disk.path
        try #require(FileManager.default.fileExists(atPath: mounted + "/gallery.sqlite"), "the server's folder is not at \(mounted)")

        let (_, created) = try await post(port, "/api/galleries", #"{"name": "Full"}"#)
        let gallery = try JSONDecoder().decode(GalleryInfo.self, from: created).id
        for _ in 0..<6 {
            let (status, _) = try await post(port, "/api/galleries/\(gallery)/urls", #"{"url": "\#(images.base)/good.jpg"}"#)
            #expect(status == 202)
        }
        let clock = ContinuousClock()
        let readyBy = clock.now + .seconds(60)
        var start = try await Self.snapshot(port, gallery)
        while start.sections.flatMap({ $0.items.map(\.state) }).contains(.pending) && clock.now < readyBy {
            try await Task.sleep(for: .milliseconds(50))
            start = try await Self.snapshot(port, gallery)
        }
        let ids = start.sections.flatMap { $0.items.map(\.id) }
        try #require(ids.count == 6 && !start.sections.flatMap({ $0.items.map(\.state) }).contains(.pending))

        // The disk full but for 256 KiB: the log's frames of the next few dozen moves fill that.
        let filler = mounted + "/filler"
        try Self.fill(mounted, leaving: 256 << 10, filler: filler)
        // Every move changes the order: the section's first item goes after its last.
        let move: @Sendable (GallerySnapshotJSON) async throws -> (UInt, Data) = { now in
            let items = now.sections[0].items
            return try await post(port, "/api/galleries/\(gallery)/batch",
                                  #"{"operations": [{"op": "move", "items": [\#(items[0].id)], "to": {"after": \#(items[items.count - 1].id)}}]}"#)
        }
        // And the other way, for the first move stored after a refusal: made from a memory that
        // kept the refused move, its stage would not replay.
        let back: @Sendable (GallerySnapshotJSON) async throws -> (UInt, Data) = { now in
            let items = now.sections[0].items
            return try await post(port, "/api/galleries/\(gallery)/batch",
                                  #"{"operations": [{"op": "move", "items": [\#(items[items.count - 1].id)], "to": {"section": \#(now.sections[0].id), "index": 0}}]}"#)
        }
        var before = start, refused: (status: UInt, body: Data)?, acknowledged = 0
        while acknowledged < 5_000 {
            before = try await Self.snapshot(port, gallery)
            let (status, body) = try await move(before)
            if status != 200 { refused = (status, body); break }
            acknowledged += 1
        }
        let (status, body) = try #require(refused, "5,000 moves fitted in 256 KiB")
        #expect(acknowledged >= 5, "moves were stored before the disk filled (\(acknowledged))")
        // A clear refusal, not an internal error.
        #expect(status == 507, "\(String(decoding: body, as: UTF8.self))")
        let error = try JSONDecoder().decode(ErrorBody.self, from: body).error
        #expect(error.status == 507)
        #expect(error.message.contains("disk is full") && error.message.contains("nothing was stored"), "\(error.message)")
        // Nothing of the refused move in the database: the version and order are the last
        // acknowledged ones (the server's memory is checked below, by the changes it makes next).
        let after = try await Self.snapshot(port, gallery)
        #expect(after == before)
        let caught: CatchUpAnswer = try await Crash.get(port, "/api/galleries/\(gallery)/changes?since=\(start.version)")
        #expect(caught.changes?.toVersion == before.version)
        // The server stays responsive: reads answer, and a write is refused again at once, not after
        // retries (the bound is loose: the whole suite runs beside it; alone it takes milliseconds).
        let t0 = clock.now
        let (again, _) = try await move(before)
        #expect(again == 507)
        #expect(clock.now - t0 < .seconds(10))
        #expect(try await Self.snapshot(port, gallery) == before)

        // The changes the server makes from its memory (each version's stages, from its live
        // snapshot) replay the rows' order from before the disk filled: a refused move left
        // nothing in memory either.
        func expectReplay(to now: GallerySnapshotJSON) async throws {
            try await Crash.expectCatchUpReplays(port, gallery, from: start, to: now, "a diff across the refusals")
        }
        // Room again, no restart: another move is stored.
        try FileManager.default.removeItem(atPath: filler)
        let (stored, storedBody) = try await back(before)
        #expect(stored == 200, "\(String(decoding: storedBody, as: UTF8.self))")
        #expect(try JSONDecoder().decode(BatchAnswer.self, from: storedBody).version == before.version + 1)
        let middle = try await Self.snapshot(port, gallery)
        try await expectReplay(to: middle)

        // Full again (a page left), and eight moves at once. Batches waiting together share a
        // transaction, which fails as a whole; whether these wait together is up to the timing
        // (each refusal is quick), so that path is proven elsewhere: GroupCommitTests holds the
        // writer and fails a group's COMMIT (putting back the group's snapshot instead of reading
        // the rows again fails two of its tests, not this one).
        try Self.fill(mounted, leaving: 4096, filler: filler)
        let together = try await withThrowingTaskGroup(of: UInt.self) { group in
            for _ in 0..<8 { group.addTask { [middle] in try await move(middle).0 } }
            return try await group.reduce(into: [UInt]()) { $0.append($1) }
        }
        #expect(together == Array(repeating: 507, count: 8))
        #expect(try await Self.snapshot(port, gallery) == middle)
        try FileManager.default.removeItem(atPath: filler)
        #expect(try await back(middle).0 == 200)
        for _ in 0..<4 { #expect(try await move(try await Self.snapshot(port, gallery)).0 == 200) }
        let last = try await Self.snapshot(port, gallery)
        #expect(last.version == middle.version + 5)
        try await expectReplay(to: last)

        // Stopped, its files copied as they are (what a kill leaves: the log holds the refused
        // commit's frames among the stored ones), then killed; a server on the copy recovers
        // exactly what was answered.
        kill(server.processIdentifier, SIGSTOP)
        for name in try FileManager.default.contentsOfDirectory(atPath: mounted) where name != "serve.lock" {
            try FileManager.default.copyItem(atPath: mounted + "/" + name, toPath: copy.appendingPathComponent(name).path)
        }
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
        let recovered = try Crash.spawn(data: copy, port: port)
        defer { if recovered.isRunning { kill(recovered.processIdentifier, SIGKILL); recovered.waitUntilExit() } }
        try await Crash.waitReady(port)
        #expect(try await Self.snapshot(port, gallery) == last)
        recovered.terminate()
        recovered.waitUntilExit()
        let store = try GalleryStore(folder: copy)
        let integrity = try await store.database.read { db in try db.value("PRAGMA integrity_check", [], as: String.self) }
        #expect(integrity == "ok")
        let (newest, version) = try await store.database.read { db in
            (try db.value("SELECT MAX(version) FROM operation WHERE galleryId = ?", [gallery], as: Int64.self),
             try db.value("SELECT version FROM gallery WHERE id = ?", [gallery], as: Int64.self))
        }
        #expect(newest == last.version && version == last.version, "no row of the refused move")
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        #expect(text.contains("disk is full"), "the server's log says what happened")
    }
}
