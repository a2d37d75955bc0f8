import Foundation
import Testing
import Hummingbird
import HummingbirdTesting
import NIOCore
import ZIPFoundation
import GalleryCore
import GalleryServer
import GalleryStore
import Imaging

@Suite struct ArchiveTests {
    @Test func exportThenImportGivesTheSameGalleryWithItsImages() async throws {
        let server = try await makeServer { $0.createSampleGallery = true; $0.maxUploadBytes = 32 << 20 }
        try await server.test(.router) { client in
            let source = try await client.snapshot(1)
            let zip = try await client.execute(uri: "/api/galleries/1/export", method: .get)
            #expect(zip.status == .ok && zip.headers[.contentType] == "application/zip")
            // Streamed from its temporary file (never whole in memory), which is gone once sent.
            #expect(zip.headers[.contentLength] == "\(zip.body.readableBytes)")
            let temporary = server.store.files.root.appendingPathComponent("tmp")
            #expect(try await IngestLeaseTests.eventually(timeout: .seconds(5)) { ((try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []).isEmpty })
            let imported = try await client.execute(uri: "/api/galleries/import?name=Restored", method: .post, headers: [.contentType: "application/zip"], body: zip.body)
            #expect(imported.status == .created, "\(String(buffer: imported.body))")
            let info = try JSONDecoder().decode(GalleryInfo.self, from: Data(imported.body.readableBytesView))
            #expect(info.name == "Restored")
            for item in try await client.snapshot(info.id).sections.flatMap(\.items) { _ = try await client.settled(item.id) }
            let copy = try await client.snapshot(info.id)
            #expect(titles(copy) == titles(source))
            #expect(copy.sections.map(\.title) == source.sections.map(\.title))
            #expect(copy.sections.flatMap(\.items).map(\.fileHash) == source.sections.flatMap(\.items).map(\.fileHash))
            #expect(copy.sections.flatMap(\.items).allSatisfy { $0.state == .ready })
        }
    }

    @Test func anArchiveWhoseImageDoesNotMatchItsHashIsRefusedWhole() async throws {
        let server = try await makeServer()
        let url = testFolder("bad").appendingPathExtension("zip")
        let archive = try Archive(url: url, accessMode: .create)
        let hash = String(repeating: "a", count: 64)
        let manifest = Data(#"{"format": "gallery-archive/1", "name": "Bad", "sections": [{"title": "S", "items": [{"title": "x", "fileHash": "\#(hash)", "state": "ready"}]}]}"#.utf8)
        try archive.addEntry(with: "manifest.json", type: .file, uncompressedSize: Int64(manifest.count)) { p, s in manifest.subdata(in: Int(p)..<Int(p) + s) }
        let fake = Data("not the image".utf8)
        try archive.addEntry(with: "images/\(hash)", type: .file, uncompressedSize: Int64(fake.count)) { p, s in fake.subdata(in: Int(p)..<Int(p) + s) }
        let body = ByteBuffer(bytes: try Data(contentsOf: url))
        try await server.test(.router) { client in
            let m = try await client.error(.post, "/api/galleries/import", nil, status: .unprocessableContent)
            #expect(m.contains("not a zip"))
            let r = try await client.execute(uri: "/api/galleries/import", method: .post, headers: [.contentType: "application/zip"], body: body)
            #expect(r.status == .unprocessableContent)
            #expect(String(buffer: r.body).contains("does not match its hash"))
            let list: [GalleryInfo] = try await client.json(.get, "/api/galleries")
            #expect(list.isEmpty)
        }
    }

    /// A zip of `entries` (path, bytes, compressed?) at a new temporary path.
    static func zip(_ entries: [(String, Data, Bool)]) throws -> URL {
        let url = testFolder("zip").appendingPathExtension("zip")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let archive = try Archive(url: url, accessMode: .create)
        for (path, data, deflate) in entries {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: deflate ? .deflate : .none) { p, n in
                data.subdata(in: Int(p)..<Int(p) + n)
            }
        }
        return url
    }

    /// Bytes that deflate about 60×: 1 KiB of noise then 63 KiB of zeros, over and over (each
    /// entry under the ratio limit, so only the total can refuse them).
    static func sparse(_ count: Int) -> Data {
        var rng = SystemRandomNumberGenerator()
        var d = Data(count: count)
        for start in stride(from: 0, to: count, by: 64 << 10) {
            for i in start..<min(count, start + 1024) { d[i] = UInt8.random(in: 0...255, using: &rng) }
        }
        return d
    }

    static func manifest(_ hashes: [String]) -> Data {
        let items = hashes.map { #"{"title": "x", "fileHash": "\#($0)", "state": "ready"}"# }.joined(separator: ", ")
        return Data(#"{"format": "gallery-archive/1", "name": "Bomb", "sections": [{"title": "S", "items": [\#(items)]}]}"#.utf8)
    }

    /// Zip bombs (issue 12): refused from the archive's directory before anything is inflated, or
    /// as soon as an entry inflates past what its header said; nothing is stored, no gallery made.
    @Test func zipBombsAreRefusedEarlyAndLeaveNothingBehind() async throws {
        let server = try await makeServer { c in
            c.maxUploadBytes = 8 << 20          // an image may inflate to 8 MiB
            c.maxImportInflatedBytes = 12 << 20 // the whole archive to 12 MiB
        }
        let zeros = Data(count: 6 << 20)        // 6 MiB of zeros: deflates ~1000×
        let hash = ContentHash.hex(Array(zeros))
        let real = Data(try SampleImages.jpeg(width: 1600, height: 1200, red: 90, green: 120, blue: 200, title: "", noise: 20))
        let realHash = ContentHash.hex(Array(real))
        let cases: [(String, URL, String)] = [
            ("ratio", try Self.zip([("manifest.json", Self.manifest([hash]), true), ("images/\(hash)", zeros, true)]), "a zip bomb"),
            ("entry size", try Self.zip([("manifest.json", Self.manifest([hash]), true), ("images/\(hash)", Data(count: 9 << 20), true)]), "would inflate to 9437184 bytes (limit 8388608)"),
            ("total", try Self.zip([("manifest.json", Self.manifest([realHash]), true)] + (0..<3).map { ("images/\(String(repeating: "\($0)", count: 64))", Self.sparse(5 << 20), true) }),
             "would inflate to more than 12582912 bytes"),
        ]
        // A header that understates its entry: the real image, but its sizes patched to 1,000 bytes.
        let liar = try Self.zip([("manifest.json", Self.manifest([realHash]), true), ("images/\(realHash)", real, true)])
        var bytes = [UInt8](try Data(contentsOf: liar))
        var patched = 0
        for i in 0..<(bytes.count - 4) {
            let b0 = UInt32(bytes[i]), b1 = UInt32(bytes[i + 1]) << 8
            let b2 = UInt32(bytes[i + 2]) << 16, b3 = UInt32(bytes[i + 3]) << 24
            let signature: UInt32 = b0 | b1 | b2 | b3
            // The uncompressed size only (the compressed one stays true, so the entry still inflates).
            let sizeOffsets: [Int] = signature == 0x04034b50 ? [22] : signature == 0x02014b50 ? [24] : []
            guard !sizeOffsets.isEmpty, i + 30 < bytes.count else { continue }
            let local = signature == 0x04034b50
            let lengthAt = i + (local ? 26 : 28)
            let nameLength: Int = Int(bytes[lengthAt]) | (Int(bytes[lengthAt + 1]) << 8)
            let nameStart: Int = i + (local ? 30 : 46)
            guard nameStart + nameLength <= bytes.count, String(decoding: bytes[nameStart..<nameStart + nameLength], as: UTF8.self).hasPrefix("images/") else { continue }
            for o in sizeOffsets { bytes[i + o] = 0xE8; bytes[i + o + 1] = 0x03; bytes[i + o + 2] = 0; bytes[i + o + 3] = 0 }
            patched += 1
        }
        #expect(patched == 2, "local header and central directory both patched")
        try Data(bytes).write(to: liar)
        try await server.test(.router) { client in
            for (label, url, reason) in cases + [("lying header", liar, "past its declared 1000 bytes")] {
                let r = try await client.execute(uri: "/api/galleries/import", method: .post, headers: [.contentType: "application/zip"],
                                                 body: ByteBuffer(bytes: try Data(contentsOf: url)))
                #expect(r.status == .unprocessableContent, "\(label): \(String(buffer: r.body))")
                #expect(message(r).contains(reason), "\(label): \(message(r))")
            }
            let list: [GalleryInfo] = try await client.json(.get, "/api/galleries")
            #expect(list.isEmpty)
        }
        // Nothing stored, no temporary file left.
        let images = server.store.files.root
        let left = try FileManager.default.contentsOfDirectory(atPath: images.path).filter { $0 != "tmp" }
        #expect(left.isEmpty, "\(left)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: images.appendingPathComponent("tmp").path).isEmpty)
        // And a real archive within the limits still imports.
        let good = try Self.zip([("manifest.json", Self.manifest([realHash]), true), ("images/\(realHash)", real, false)])
        try await server.test(.router) { client in
            let r = try await client.execute(uri: "/api/galleries/import", method: .post, headers: [.contentType: "application/zip"],
                                             body: ByteBuffer(bytes: try Data(contentsOf: good)))
            #expect(r.status == .created, "\(String(buffer: r.body))")
        }
        #expect(server.store.files.exists(realHash, "original"))
    }
}
