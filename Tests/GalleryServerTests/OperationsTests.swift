import Foundation
import Testing
import Hummingbird
import HummingbirdTesting
import NIOCore
import HTTPTypes
import GRDB
import GalleryCore
@testable import GalleryServer
import GalleryStore

/// Running it as a service (B14, first parts): health checks and a backup taken while the
/// server writes.
@Suite struct OperationsTests {
    @Test func healthAndReadinessNeedNoIdentityAndReadinessSeesAnUnusableImagesFolder() async throws {
        let server = try await makeServer()
        try await server.application().test(.router) { client in
            let health = try await client.execute(uri: "/healthz", method: .get)
            #expect(health.status == .ok && String(buffer: health.body) == "ok\n")
            let ready = try await client.execute(uri: "/readyz", method: .get)
            #expect(ready.status == .ok && String(buffer: ready.body).contains(#""images":"ok""#))
            // The images folder stops taking files (a full or read-only disk, a lost mount).
            let tmp = server.store.files.root.appendingPathComponent("tmp")
            try FileManager.default.removeItem(at: tmp)
            try Data().write(to: tmp) // a file where the folder was: nothing can be written into it
            let notReady = try await client.execute(uri: "/readyz", method: .get)
            #expect(notReady.status == .serviceUnavailable)
            #expect(message(notReady) == "not ready: the images folder cannot take a file (Not a directory)")
            #expect(!message(notReady).contains(server.store.files.root.path), "no paths to anonymous callers")
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok, "the process still answers")
            try FileManager.default.removeItem(at: tmp)
            try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
            #expect(try await client.execute(uri: "/readyz", method: .get).status == .ok, "ready again")
        }
    }

    /// A backup into the data folder it copies (the folder itself, a folder inside it, its images,
    /// or a symbolic link that leads inside) is refused before anything is written; beside it works.
    @Test func aBackupInsideTheDataFolderIsRefused() async throws {
        let data = testFolder("backup-inside")
        let store = try GalleryStore(folder: data)
        _ = try await store.createGallery(name: "Holidays")
        let link = testFolder("backup-link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: data)
        for destination in [data, data.appendingPathComponent("backups/monday"), data.appendingPathComponent("images/ab"),
                            URL(fileURLWithPath: data.path + "/../" + data.lastPathComponent + "/copy"), link.appendingPathComponent("copy")] {
            #expect(throws: StoreError.self, "\(destination.path)") { try store.backup(to: destination) }
            do { _ = try store.backup(to: destination) } catch let e as StoreError {
                #expect(e.message.contains("is inside the data folder"), "\(e.message)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("backups").path), "a refused backup made its folder")
        let beside = testFolder("backup-beside")
        #expect(try store.backup(to: beside).galleries == 1)
        // A sibling whose name starts with the data folder's is not inside it.
        #expect(try store.backup(to: URL(fileURLWithPath: data.path + "-copy")).galleries == 1)
        // A file as the destination: refused in words (it was Foundation's "A file with the same name already exists").
        let file = testFolder("backup-a-file")
        _ = FileManager.default.createFile(atPath: file.path, contents: Data("mine".utf8))
        do { _ = try store.backup(to: file); Issue.record("a backup into a file was accepted") } catch let e as StoreError {
            #expect(e.message.contains("is not a folder"), "\(e.message)")
        } catch { Issue.record("not a StoreError: \(error)") }
        #expect(try String(contentsOf: file, encoding: .utf8) == "mine")
    }

    @Test func aBackupTakenWhileMovesGoOnIsAConsistentDataFolder() async throws {
        let server = try await makeServer()
        let store = server.store
        let g = try await store.createGallery(name: "Holidays")
        let section = try await store.snapshot(g.id).sections[0].id
        var hashes: [String] = []
        for i in 0..<6 {
            var png = AccessFixture.png; png[png.count - 13] ^= UInt8(i + 1)
            let hash = try store.files.storeOriginal(png)
            try store.files.write(png, hash, "grid.jpg")
            hashes.append(hash)
        }
        let ids = try await store.apply(gallery: g.id, [.insert(hashes.enumerated().map { NewItem(title: "p\($0.offset)", fileHash: $0.element, width: 1, height: 1, state: .ready) },
                                                                at: .end(section: section))], payload: "seed").createdItems
        // Moves keep coming while the copy runs (another connection, as the server's would be).
        final class Flag: @unchecked Sendable { let lock = NSLock(); var on = false
            var value: Bool { get { lock.withLock { on } } set { lock.withLock { on = newValue } } } }
        let stop = Flag()
        let writer = Task {
            var n = 0
            while !stop.value {
                _ = try await store.apply(gallery: g.id, [.move(items: [ids[n % ids.count]], to: .index(section: section, index: (n * 7) % ids.count))])
                n += 1
            }
            return n
        }
        try await Task.sleep(for: .milliseconds(50))
        let destination = testFolder("backup")
        // A second store on the same folder, as the `gallery backup` process opens it.
        let other = try GalleryStore(folder: server.configuration.dataFolder)
        let summary = try other.backup(to: destination)
        stop.value = true
        let moves = try await writer.value
        #expect(moves > 0)
        #expect(summary.galleries == 1 && summary.items == 6 && summary.files == 12 && summary.missing.isEmpty)
        // The copy holds password, session and token hashes and TOTP secrets: for its owner only
        // (it was 0644 in a 0755 folder, readable by every local user).
        #expect(try FileManager.default.attributesOfItem(atPath: destination.appendingPathComponent("gallery.sqlite").path)[.posixPermissions] as? Int == 0o600)
        #expect(try FileManager.default.attributesOfItem(atPath: destination.path)[.posixPermissions] as? Int == 0o700)

        // The copy opens as a data folder: intact, at some version the original went through.
        let restored = try GalleryStore(folder: destination)
        let integrity = try await restored.pool.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
        #expect(integrity == "ok")
        let copy = try await restored.snapshot(g.id)
        #expect(Set(copy.sections[0].items.map(\.title)) == Set((0..<6).map { "p\($0)" }))
        let current = try await store.gallery(g.id).version
        #expect(copy.version >= 1 && copy.version <= current)
        for hash in hashes {
            #expect(try Data(contentsOf: restored.files.url(hash, "original")) == Data(contentsOf: store.files.url(hash, "original")))
            #expect(restored.files.exists(hash, "grid.jpg"))
        }
        // Backing up into a data folder is refused, and that folder is left alone.
        do {
            _ = try other.backup(to: destination)
            Issue.record("a second backup into the same folder was accepted")
        } catch let e as StoreError {
            #expect(e.message.contains("holds a data folder already"))
        }
        #expect(try await restored.snapshot(g.id).version == copy.version)
    }
}

@Suite struct MetricsTests {
    /// The value of the first line of Prometheus text starting with `prefix`.
    static func value(_ prefix: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Double($0.split(separator: " ").last!) }
    }

    @Test func metricsCountRequestsBatchesAndStreamsForAnAdminOnly() async throws {
        let f = try await AccessFixture.make()
        let owner = f.headers[.owner]! + [HTTPField(name: .origin, value: "http://localhost"), HTTPField(name: .contentType, value: "application/json")]
        try await f.server.application().test(.router) { client in
            let section = try await f.server.store.snapshot(f.gallery).sections[0].id
            let batch = try await client.execute(uri: "/api/galleries/\(f.gallery)/batch", method: .post, headers: owner,
                                                 body: ByteBuffer(string: ops(#"{"op": "move", "items": [\#(f.item)], "to": {"section": \#(section), "index": 0}}"#)))
            #expect(batch.status == .ok)
            // Two refusals of one route, method and status: one timer kept, both recorded in its series
            // (counted before and after: the registry is the process's, shared with tests running beside).
            let refusedSeries = #"http_server_request_duration_count{http_route="/api/galleries/{gallery}/batch",http_request_method="POST",http_response_status_code="403"}"#
            let before = String(buffer: try await client.execute(uri: "/metrics", method: .get, headers: f.headers[.owner]!).body)
            let refusedBefore = Self.value(refusedSeries, in: before) ?? 0
            for _ in 0..<2 {
                let refused = try await client.execute(uri: "/api/galleries/\(f.gallery)/batch", method: .post, headers: f.headers[.viewer]! + [HTTPField(name: .origin, value: "http://localhost"), HTTPField(name: .contentType, value: "application/json")],
                                                       body: ByteBuffer(string: ops(#"{"op": "trash", "items": [\#(f.item)]}"#)))
                #expect(refused.status == .forbidden)
            }
            #expect(ErrorTimers.isKept(route: "/api/galleries/{gallery}/batch", method: .post, status: 403))
            let r = try await client.execute(uri: "/metrics", method: .get, headers: f.headers[.owner]!)
            #expect(r.status == .ok && r.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = String(buffer: r.body)
            func value(_ prefix: String) -> Double? { Self.value(prefix, in: text) }
            #expect((value("gallery_batches_total") ?? 0) >= 1, "\(text.prefix(2000))")
            #expect(text.contains("gallery_ingest_queue") && text.contains("gallery_live_streams"))
            // Requests by route, method and status, with a latency histogram.
            #expect(text.contains(#"http_route="/api/galleries/{gallery}/batch""#) && text.contains(#"http_response_status_code="403""#), "\(text.prefix(3000))")
            #expect(text.contains("http_server_request_duration_bucket") || text.contains("http_server_request_duration_seconds_bucket"))
            // Refusals have a duration too (Hummingbird's middleware records none for a thrown error:
            // the 403's series was there with count 0).
            #expect((value(refusedSeries) ?? 0) >= refusedBefore + 2, "\(text.split(separator: "\n").filter { $0.contains("403") })")
            let editor = try await client.execute(uri: "/metrics", method: .get, headers: f.headers[.editor]!)
            #expect(editor.status == .forbidden)
            #expect(message(editor) == "only an admin may read the server's metrics", "it said \"only an admin may manage users\" before")
            #expect(try await client.execute(uri: "/metrics", method: .get).status == .unauthorized)
        }
    }
}
