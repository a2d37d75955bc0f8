import Foundation
import Testing
import Hummingbird
import HummingbirdTesting
import NIOCore
import GalleryCore
import GalleryServer
import Imaging

func multipart(_ files: [(name: String, bytes: [UInt8])], boundary: String = "gallery-test-boundary") -> ByteBuffer {
    var b = ByteBuffer()
    for f in files {
        b.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(f.name)\"\r\nContent-Type: application/octet-stream\r\n\r\n")
        b.writeBytes(f.bytes)
        b.writeString("\r\n")
    }
    b.writeString("--\(boundary)--\r\n")
    return b
}

@Suite struct UploadTests {
    @Test func severalFilesBecomeItemsInOrderThenReadyOrFailed() async throws {
        let server = try await makeServer()
        let jpeg = try SampleImages.jpeg(width: 400, height: 100, red: 10, green: 200, blue: 10, title: "Wide")
        let tall = try SampleImages.jpeg(width: 100, height: 300, red: 10, green: 20, blue: 200, title: "Tall")
        try await server.application().test(.router) { client in
            let g = try await client.newGallery()
            let r = try await client.execute(uri: "/api/galleries/\(g.gallery.id)/uploads?section=\(g.sections[0].id)&index=0", method: .post,
                                             headers: [.contentType: "multipart/form-data; boundary=gallery-test-boundary"],
                                             body: multipart([("wide.jpg", jpeg), ("notes.txt", Array("hello".utf8)), ("tall.jpg", tall)]))
            #expect(r.status == .created, "\(String(buffer: r.body))")
            let created = try JSONDecoder().decode(CreatedItems.self, from: Data(r.body.readableBytesView))
            #expect(created.items.map(\.title) == ["wide.jpg", "notes.txt", "tall.jpg"])
            #expect(created.items.allSatisfy { $0.state == .pending })
            let settled = try await created.items.asyncMap { try await client.settled($0.id) }
            #expect(settled.map(\.state) == [.ready, .failed, .ready])
            #expect(abs(settled[0].aspect - 4) < 1e-9 && abs(settled[2].aspect - 1.0 / 3) < 1e-9)
            #expect(settled[1].reason == "not an image (no known image format)")
            #expect(try await client.snapshot(g.gallery.id).sections[0].items.map(\.title) == ["wide.jpg", "notes.txt", "tall.jpg"])
            // Content-addressed: the stored original is the uploaded file.
            let original = try await client.execute(uri: settled[0].thumbnails!.original, method: .get)
            #expect(Array(original.body.readableBytesView) == jpeg)
        }
    }

    @Test func oversizedAndMalformedUploadsAreRefused() async throws {
        let server = try await makeServer()
        try await server.application().test(.router) { client in
            let g = try await client.newGallery()
            let uri = "/api/galleries/\(g.gallery.id)/uploads"
            let big = [UInt8](repeating: 7, count: 3 << 20)
            let r = try await client.execute(uri: uri, method: .post, headers: [.contentType: "multipart/form-data; boundary=gallery-test-boundary"],
                                             body: multipart([("big.jpg", big)]))
            #expect(r.status == .contentTooLarge)
            #expect(String(buffer: r.body).contains("exceeds the limit of 2097152 bytes"))
            let noBoundary = try await client.execute(uri: uri, method: .post, headers: [.contentType: "multipart/form-data"], body: ByteBuffer(string: "x"))
            #expect(noBoundary.status == .unsupportedMediaType)
            let noFile = try await client.execute(uri: uri, method: .post, headers: [.contentType: "multipart/form-data; boundary=gallery-test-boundary"],
                                                  body: ByteBuffer(string: "--gallery-test-boundary--\r\n"))
            #expect(noFile.status == .badRequest)
            let badIndex = try await client.execute(uri: uri + "?section=\(g.sections[0].id)&index=5", method: .post,
                                                    headers: [.contentType: "multipart/form-data; boundary=gallery-test-boundary"],
                                                    body: multipart([("a.jpg", [1, 2, 3])]))
            #expect(badIndex.status == .unprocessableContent)
            #expect(try await client.snapshot(g.gallery.id).sections[0].items.isEmpty)
        }
    }
}

extension Array {
    func asyncMap<T>(_ f: (Element) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        for e in self { out.append(try await f(e)) }
        return out
    }
}
