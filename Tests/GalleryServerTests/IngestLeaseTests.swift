import Foundation
import Testing
import AsyncHTTPClient
import NIOCore
import GalleryCore
@testable import GalleryStore
import GalleryServer
import GRDB
import HummingbirdTesting
import Imaging
import StoreTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Ingestion claimed through the database with leases (docs/storage.md, "Several instances"), on
/// real `gallery serve` binaries: one killed with SIGKILL while it holds items.
@Suite(.serialized) struct IngestLeaseTests {
    typealias Crash = CrashRecoveryTests

    /// Distinct photos (each its own hash), as an upload's parts.
    static func photos(_ n: Int, tag: String) throws -> [(name: String, bytes: [UInt8])] {
        try (0..<n).map { i in
            (name: "\(tag)-\(i).jpg",
             bytes: try SampleImages.jpeg(width: 480 + 8 * i, height: 320, red: Double(20 + 11 * i), green: 90, blue: Double(200 - 7 * i), title: "\(tag) \(i)"))
        }
    }

    static func upload(_ port: Int, gallery: Int64, _ files: [(name: String, bytes: [UInt8])]) async throws -> [ItemJSON] {
        var request = Crash.authorized("http://127.0.0.1:\(port)/api/galleries/\(gallery)/uploads")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "multipart/form-data; boundary=gallery-test-boundary")
        request.body = .bytes(multipart(files))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 16 << 20)
        try #require(response.status == .created, "upload: \(response.status) \(String(buffer: body))")
        return try JSONDecoder().decode(CreatedItems.self, from: Data(body.readableBytesView)).items
    }

    struct Row: Equatable { var state: String; var hash: String?; var width: Int?; var version: Int64; var owner: String? }

    /// The items' rows as the database has them (the test reads them itself: no instance's memory).
    static func rows(_ store: GalleryStore, gallery: Int64) async throws -> [Int64: Row] {
        try await store.database.read { db in
            var out: [Int64: Row] = [:]
            for r in try db.fetchAll("SELECT id, state, fileHash, width, contentVersion, leaseOwner FROM item WHERE galleryId = ?", [gallery]) {
                out[r["id"]] = Row(state: r["state"], hash: r["fileHash"], width: r["width"], version: r["contentVersion"], owner: r["leaseOwner"])
            }
            return out
        }
    }

    static func waitUntil(_ what: String, timeout: Duration, _ condition: () async throws -> Bool) async throws {
        if try await !eventually(timeout: timeout, condition) { Issue.record("timed out after \(timeout): \(what)") }
    }

    /// Whether `condition` became true within `timeout` (looked at every 100 ms).
    static func eventually(timeout: Duration, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    static func gallery(_ port: Int, _ name: String) async throws -> Int64 {
        let (_, created) = try await post(port, "/api/galleries", #"{"name": "\#(name)"}"#)
        return try JSONDecoder().decode(GalleryInfo.self, from: created).id
    }

    static func drop(_ port: Int, gallery: Int64, _ url: String) async throws -> Int64 {
        let (status, body) = try await post(port, "/api/galleries/\(gallery)/urls", #"{"url": "\#(url)"}"#)
        try #require(status == 202, "drop: \(status) \(String(decoding: body, as: UTF8.self))")
        return try JSONDecoder().decode(CreatedItems.self, from: body).items[0].id
    }

    /// Two instances on one PostgreSQL database and one data folder. A gets 20 uploads and 4
    /// dropped URLs and works slowly (`--ingest-delay-ms`); it is killed while it holds items.
    /// B — which also helps while A lives: it claims what nobody holds — finishes A's items once
    /// their lease ran out: every item ready with its own file's hash and size, each finished
    /// exactly once (content version 1), no lease left, versions gap-free.
    @Test(arguments: Backend.tested.filter { $0 == .postgres })
    func aKilledInstancesItemsFinishOnTheOther(_ backend: Backend) async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Crash.binary.path), "build the gallery product first (swift build)")
        let images = try await TestImageServer.start()
        defer { Task { await images.stop() } }
        let data = testFolder("two-instances")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let database = try await backend.databaseURL()
        try await seedOwner(folder: data, database: database)
        let lease = 4.0
        let leaseOptions = ["--ingest-lease", "\(Int(lease))", "--ingest-poll", "0.5"]
        let (portA, portB) = (Crash.freePort(), Crash.freePort())
        let a = try Crash.spawn(data: data, port: portA, database: database, extra: leaseOptions + ["--instance", "A", "--ingest-delay-ms", "3000"], log: "a.log")
        defer { if a.isRunning { kill(a.processIdentifier, SIGKILL) } }
        let b = try Crash.spawn(data: data, port: portB, database: database, extra: leaseOptions + ["--instance", "B"], log: "b.log")
        defer { if b.isRunning { kill(b.processIdentifier, SIGKILL) } }
        try await Crash.waitReady(portA)
        try await Crash.waitReady(portB)

        let g = try await Self.gallery(portA, "Two instances")
        var expected: [Int64: (hash: String, bytes: [UInt8], width: Int)] = [:]
        /// Uploads `n` more photos to A (each its own hash and width) and expects them back.
        func uploadToA(_ n: Int, tag: String) async throws {
            let files = try Self.photos(n, tag: tag)
            let uploaded = try await Self.upload(portA, gallery: g, files)
            #expect(uploaded.count == n)
            for (item, (i, f)) in zip(uploaded, files.enumerated()) { expected[item.id] = (ContentHash.hex(f.bytes), f.bytes, 480 + 8 * i) }
        }
        try await uploadToA(20, tag: "two")
        var dropped: [Int64] = []
        for i in 0..<4 { dropped.append(try await Self.drop(portA, gallery: g, "\(images.base)/slow.jpg?ms=100&n=\(i)")) }

        // Kill A while it holds items (claimed, in its 3 s pause). A is stopped (SIGSTOP) before
        // what it holds is read, so it cannot finish an item between the read and the kill (it
        // did once under load: the list was empty); if it finished them all just before the stop,
        // it goes on and is caught holding the next ones.
        let store = try GalleryStore(folder: data, databaseURL: database)
        // If A finished what it held between the look and the stop, and B took all the rest (CI
        // once: nine minutes of waiting for a lease that never came), A gets new uploads to hold.
        var heldByA: [Int64] = []
        for attempt in 0..<5 where heldByA.isEmpty {
            if attempt > 0 { try await uploadToA(4, tag: "again\(attempt)") }
            // Not seen within 30 s (B may have taken everything A had not started: a full run once
            // saw no lease of A's for 60 s): the next attempt gives A new uploads.
            guard try await Self.eventually(timeout: .seconds(30), {
                try await Self.rows(store, gallery: g).values.contains { $0.state == "pending" && $0.owner?.hasPrefix("A/") == true }
            }) else { continue }
            kill(a.processIdentifier, SIGSTOP)
            heldByA = try await Self.rows(store, gallery: g).filter { $0.value.state == "pending" && $0.value.owner?.hasPrefix("A/") == true }.map(\.key)
            if heldByA.isEmpty { kill(a.processIdentifier, SIGCONT) }
        }
        kill(a.processIdentifier, SIGKILL)
        a.waitUntilExit()
        #expect(a.terminationReason == .uncaughtSignal)
        try #require(!heldByA.isEmpty, "A died holding items")

        // All of them finish on B: within the lease and a generous margin for a loaded machine.
        try await Self.waitUntil("every item settled on B", timeout: .seconds(lease) + .seconds(90)) {
            try await Self.rows(store, gallery: g).values.allSatisfy { $0.state != "pending" }
        }
        let after = try await Self.rows(store, gallery: g)
        #expect(after.count == expected.count + dropped.count, "nothing lost")
        for (id, (hash, _, width)) in expected {
            #expect(after[id] == Row(state: "ready", hash: hash, width: width, version: 1, owner: nil), "upload \(id): \(String(describing: after[id]))")
        }
        for id in dropped { #expect(after[id]?.state == "ready" && after[id]?.version == 1 && after[id]?.owner == nil, "drop \(id): \(String(describing: after[id]))") }
        for id in heldByA { #expect(after[id]?.state == "ready", "A's item \(id) finished on B") }
        // The stored files are whole: each original is the uploaded bytes, each has its thumbnail.
        for (hash, bytes, _) in expected.values {
            #expect(try store.files.read(hash, "original") == bytes)
            #expect(store.files.exists(hash, "grid.jpg"))
        }
        // One finish per item in the log, versions gap-free.
        let (version, logged, finishes) = try await store.database.read { db in
            (try db.value("SELECT version FROM gallery WHERE id = ?", [g], as: Int64.self)!,
             try db.value("SELECT COUNT(*) FROM operation WHERE galleryId = ?", [g], as: Int64.self)!,
             try db.value("SELECT COUNT(*) FROM operation WHERE galleryId = ? AND payload LIKE '%\"finish\"%' AND payload LIKE '%\"ready\"%'", [g], as: Int.self)!)
        }
        #expect(version == logged)
        #expect(finishes == expected.count + dropped.count, "one ready finish per item (\(finishes))")
        // B answers for them over HTTP too.
        let item: ItemJSON = try await Crash.get(portB, "/api/items/\(heldByA[0])")
        #expect(item.state == .ready)
        b.terminate()
        b.waitUntilExit()
        #expect(b.terminationReason == .exit && b.terminationStatus == 0)
    }

    /// One instance, killed in the middle of ingestion and started again: everything finishes,
    /// at once — not after the lease (120 s here): SQLite is one process, and on PostgreSQL the
    /// restarted instance has the same name (host and port) and takes its leases back.
    @Test(arguments: Backend.tested)
    func killDashNineMidIngestionThenRestartFinishesEverything(_ backend: Backend) async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Crash.binary.path), "build the gallery product first (swift build)")
        let images = try await TestImageServer.start()
        defer { Task { await images.stop() } }
        let data = testFolder("kill-ingest")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let database = try await backend.databaseURL()
        try await seedOwner(folder: data, database: database)
        let port = Crash.freePort()
        let options = ["--ingest-lease", "120", "--ingest-poll", "1"]
        var child = try Crash.spawn(data: data, port: port, database: database, extra: options + ["--ingest-delay-ms", "2000"])
        defer { if child.isRunning { kill(child.processIdentifier, SIGKILL) } }
        try await Crash.waitReady(port)
        let g = try await Self.gallery(port, "Killed")
        let files = try Self.photos(8, tag: "kill")
        var ids = try await Self.upload(port, gallery: g, files).map(\.id)
        ids.append(try await Self.drop(port, gallery: g, "\(images.base)/good.jpg"))
        let store = try GalleryStore(folder: data, databaseURL: database)
        try await Self.waitUntil("the first items are claimed", timeout: .seconds(60)) {
            try await Self.rows(store, gallery: g).values.contains { $0.state == "pending" && $0.owner != nil }
        }
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        #expect(try await Self.rows(store, gallery: g).values.contains { $0.state == "pending" && $0.owner != nil }, "leases left by the kill")

        child = try Crash.spawn(data: data, port: port, database: database, extra: options)
        try await Crash.waitReady(port)
        // Well under the 120 s lease, even on a loaded machine.
        try await Self.waitUntil("every item settled after the restart", timeout: .seconds(60)) {
            try await Self.rows(store, gallery: g).values.allSatisfy { $0.state != "pending" }
        }
        let after = try await Self.rows(store, gallery: g)
        #expect(Set(after.keys) == Set(ids))
        #expect(after.values.allSatisfy { $0.state == "ready" && $0.version == 1 && $0.owner == nil }, "\(after.values.filter { $0.state != "ready" || $0.version != 1 })")
        child.terminate()
        child.waitUntilExit()
    }

    /// A data folder from before the leases (schema v4) with an upload left pending: it upgrades
    /// (the item's lease columns empty: free to claim) and the item finishes at the first start.
    @Test func aDataFolderFromBeforeLeasesUpgradesAndItsPendingItemFinishes() async throws {
        var configuration = testConfiguration()
        let folder = configuration.dataFolder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let files = try ImageFiles(root: folder.appendingPathComponent("images"))
        let hash = try files.storeOriginal(try SampleImages.jpeg(width: 360, height: 240, red: 10, green: 120, blue: 200, title: "v4"))
        do {
            let pool = try DatabasePool(path: folder.appendingPathComponent("gallery.sqlite").path)
            try Migrations.migrator.migrate(pool, upTo: "v4 maintenance: re-probe stored sizes for EXIF orientation")
            try await pool.write { db in
                try db.execute(sql: "INSERT INTO gallery (id, name, version, createdAt) VALUES (1, 'Old', 1, 0)")
                try db.execute(sql: "INSERT INTO section (id, galleryId, title, rank) VALUES (1, 1, 'S', 'a0')")
                try db.execute(sql: "INSERT INTO item (id, galleryId, sectionId, rank, title, fileHash, state, createdAt) VALUES (1, 1, 1, 'a0', 'old upload', ?, 'pending', 0)",
                               arguments: [hash])
                try db.execute(sql: "INSERT INTO operation (galleryId, version, payload, createdAt) VALUES (1, 1, '{}', 0)")
            }
            try pool.close()
        }
        configuration.ingestPoll = 0.5
        let server = try await GalleryServer(configuration: configuration, logger: quietLogger)
        #expect(try await server.store.lease(of: 1).owner == nil)
        try await server.test(.router) { client in
            let item = try await client.settled(1, timeout: .seconds(60))
            #expect(item.state == .ready && item.width == 360, "\(item.reason ?? "")")
        }
        #expect(try await server.store.lease(of: 1) == (nil, nil))
    }

    /// A URL several items wait for (two galleries, dropped while its fetch runs) is fetched once
    /// by the instance that claimed it, and settles them all.
    @Test func aURLThatSeveralItemsWaitForIsFetchedOnce() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Crash.binary.path), "build the gallery product first (swift build)")
        let images = try await TestImageServer.start()
        defer { Task { await images.stop() } }
        let data = testFolder("fetch-once")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try await seedOwner(folder: data)
        let port = Crash.freePort()
        let child = try Crash.spawn(data: data, port: port)
        defer { if child.isRunning { kill(child.processIdentifier, SIGKILL) } }
        try await Crash.waitReady(port)
        let (g1, g2) = (try await Self.gallery(port, "One"), try await Self.gallery(port, "Two"))
        let url = "\(images.base)/counted.jpg?key=once&ms=1500"
        var ids: [Int64] = []
        for g in [g1, g2, g1, g2] { ids.append(try await Self.drop(port, gallery: g, url)) }
        let store = try GalleryStore(folder: data)
        try await Self.waitUntil("all four settled", timeout: .seconds(60)) {
            let one = try await Self.rows(store, gallery: g1), two = try await Self.rows(store, gallery: g2)
            return one.merging(two) { x, _ in x }.values.allSatisfy { $0.state != "pending" }
        }
        for id in ids { #expect(try await store.item(id).state == .ready) }
        #expect(images.hits("once") == 1, "fetched \(images.hits("once")) times")
        child.terminate()
        child.waitUntilExit()
    }
}
