import Foundation
import Testing
import Hummingbird
import HummingbirdTesting
import NIOCore
import ZIPFoundation
import GalleryCore
import GalleryServer

@Suite struct ArchiveTests {
    @Test func exportThenImportGivesTheSameGalleryWithItsImages() async throws {
        let server = try await makeServer { $0.createSampleGallery = true; $0.maxUploadBytes = 32 << 20 }
        try await server.test(.router) { client in
            let source = try await client.snapshot(1)
            let zip = try await client.execute(uri: "/api/galleries/1/export", method: .get)
            #expect(zip.status == .ok && zip.headers[.contentType] == "application/zip")
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
}
