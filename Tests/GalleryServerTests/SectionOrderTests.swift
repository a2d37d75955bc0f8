import Foundation
import Testing
import Hummingbird
import HummingbirdTesting
import NIOCore
import HTTPTypes
import GalleryCore
import GalleryServer
import GalleryStore
import Imaging

/// Issue 12's starting order: a section's items by capture date (EXIF with its offset) or by
/// name, answered by the server; the page commits it as one batch (one version).
@Suite struct SectionOrderTests {
    /// A real JPEG of its own colour, with EXIF dates written by exiftool (none when `tags` is empty).
    static func photo(_ shade: UInt8, _ tags: [String]) throws -> [UInt8] {
        let jpeg = try SampleImages.jpeg(width: 300, height: 200, red: Double(shade), green: Double(255 - shade), blue: 80, title: "")
        guard !tags.isEmpty else { return jpeg }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("order-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(jpeg).write(to: url)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        p.arguments = ["-q", "-overwrite_original"] + tags + [url.path]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        return [UInt8](try Data(contentsOf: url))
    }

    struct Order: Decodable { var section: Int64; var by: String; var items: [Int64]; var undated: Int }

    @Test func capturedOrderAppliesOffsetsPutsUndatedLastAndNameOrderCountsNumbers() async throws {
        let f = try await AccessFixture.make()
        let owner = f.headers[.owner]! + [HTTPField(name: .origin, value: "http://localhost")]
        // 16:30:05 UTC; 17:00 UTC (earlier on the wall clock, later in time); none; 2023 without an offset.
        let files: [(name: String, bytes: [UInt8])] = [
            ("IMG_10.jpg", try Self.photo(10, ["-DateTimeOriginal=2024:06:01 18:30:05", "-OffsetTimeOriginal=+02:00"])),
            ("img_2.jpg", try Self.photo(90, ["-DateTimeOriginal=2024:06:01 17:00:00", "-OffsetTimeOriginal=+00:00"])),
            ("Beach.jpg", try Self.photo(170, [])),
            ("IMG_9.jpg", try Self.photo(250, ["-DateTimeOriginal=2023:12:31 23:59:59"])),
        ]
        let server = try await GalleryServer(configuration: f.server.configuration, logger: quietLogger)
        try await server.application().test(.router) { client in
            let up = try await client.execute(uri: "/api/galleries/\(f.gallery)/uploads", method: .post,
                                              headers: owner + [HTTPField(name: .contentType, value: "multipart/form-data; boundary=gallery-test-boundary")],
                                              body: multipart(files))
            #expect(up.status == .created, "\(String(buffer: up.body))")
            let ids = try JSONDecoder().decode(CreatedItems.self, from: Data(up.body.readableBytesView)).items.map(\.id)
            #expect(ids.count == 4)
            let id = Dictionary(uniqueKeysWithValues: zip(files.map(\.name), ids))
            let deadline = ContinuousClock.now + .seconds(30)
            while try await server.store.snapshot(f.gallery).sections[0].items.contains(where: { $0.state == .pending }) && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            let apple = f.item   // the fixture's 1-pixel "Apple", no EXIF

            func order(_ by: String, _ headers: HTTPFields) async throws -> (HTTPResponse.Status, Data) {
                let r = try await client.execute(uri: "/api/galleries/\(f.gallery)/sections/\(f.section)/order?by=\(by)", method: .get, headers: headers)
                return (r.status, Data(r.body.readableBytesView))
            }
            let (s1, b1) = try await order("captured", owner)
            #expect(s1 == .ok, "\(String(decoding: b1, as: UTF8.self))")
            let captured = try JSONDecoder().decode(Order.self, from: b1)
            #expect(captured.items == [id["IMG_9.jpg"]!, id["IMG_10.jpg"]!, id["img_2.jpg"]!, apple, id["Beach.jpg"]!])
            #expect(captured.undated == 2 && captured.by == "captured" && captured.section == f.section)

            let (s2, b2) = try await order("name", f.headers[.editor]!)
            #expect(s2 == .ok)
            #expect(try JSONDecoder().decode(Order.self, from: b2).items == [apple, id["Beach.jpg"]!, id["img_2.jpg"]!, id["IMG_9.jpg"]!, id["IMG_10.jpg"]!])

            // The page commits the order as one move: one version, the section in that order.
            let before = try await server.store.snapshot(f.gallery).version
            let move = #"{"operations": [{"op": "move", "items": \#(captured.items), "to": {"section": \#(f.section), "index": 0}}]}"#
            let batch = try await client.execute(uri: "/api/galleries/\(f.gallery)/batch", method: .post,
                                                 headers: owner + [HTTPField(name: .contentType, value: "application/json")], body: ByteBuffer(string: move))
            #expect(batch.status == .ok, "\(String(buffer: batch.body))")
            let after = try await server.store.snapshot(f.gallery)
            #expect(after.version == before + 1)
            #expect(after.sections[0].items.map(\.id) == captured.items)

            // Bad input: a clear reason, nothing changed.
            let (s3, b3) = try await order("size", owner)
            #expect(s3 == .badRequest)
            #expect(String(decoding: b3, as: UTF8.self).contains(#"must be captured or name (got \"size\")"#))
            let r4 = try await client.execute(uri: "/api/galleries/\(f.gallery)/sections/999999/order?by=name", method: .get, headers: owner)
            #expect(r4.status == .notFound)
            #expect(String(buffer: r4.body).contains("unknown section 999999"))
            // A link that hides metadata may arrange, but not learn capture times through the order.
            let (s5, b5) = try await order("captured", f.headers[.linkEditor]!)
            #expect(s5 == .forbidden)
            #expect(String(decoding: b5, as: UTF8.self).contains("does not show metadata"))
            let (s6, _) = try await order("name", f.headers[.linkEditor]!)
            #expect(s6 == .ok)
            #expect(try await server.store.snapshot(f.gallery).version == after.version)
        }
    }
}
