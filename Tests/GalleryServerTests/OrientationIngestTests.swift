import Foundation
import Testing
import Hummingbird
import HummingbirdTesting
import NIOCore
import GRDB
import GalleryCore
import GalleryServer
import GalleryStore
import Imaging

/// A portrait phone photo (issue 12): stored 800×400 with EXIF orientation 6. It is laid out as
/// displayed (400×800, aspect 0.5), its thumbnails are upright, its original is the upload; and
/// a data folder from before orientation was read is corrected after the upgrade.
@Suite struct OrientationIngestTests {
    static func portrait() throws -> [UInt8] {
        let jpeg = try SampleImages.jpeg(width: 800, height: 400, red: 240, green: 200, blue: 120, title: "")
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("portrait-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(jpeg).write(to: url)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        p.arguments = ["-q", "-n", "-overwrite_original", "-Orientation=6", url.path]
        try p.run()
        p.waitUntilExit()
        return [UInt8](try Data(contentsOf: url))
    }

    @Test func anUploadedPortraitIsLaidOutAsDisplayed() async throws {
        let server = try await makeServer()
        let photo = try Self.portrait()
        try await server.test(.router) { client in
            let g = try await client.newGallery()
            let r = try await client.execute(uri: "/api/galleries/\(g.gallery.id)/uploads", method: .post,
                                             headers: [.contentType: "multipart/form-data; boundary=gallery-test-boundary"],
                                             body: multipart([("IMG_0001.jpg", photo)]))
            #expect(r.status == .created)
            let created = try JSONDecoder().decode(CreatedItems.self, from: Data(r.body.readableBytesView))
            let item = try await client.settled(created.items[0].id)
            #expect(item.state == .ready && item.width == 400 && item.height == 800 && abs(item.aspect - 0.5) < 1e-9, "\(item)")
            let grid = try await client.execute(uri: item.thumbnails!.grid, method: .get)
            let px = try RGBPixels(decoding: Array(grid.body.readableBytesView))
            #expect(px.width == 200 && px.height == 400, "the grid thumbnail is upright")
            let original = try await client.execute(uri: item.thumbnails!.original, method: .get)
            #expect(Array(original.body.readableBytesView) == photo, "the original is served as uploaded")
        }
    }

    @Test func itemsStoredBeforeOrientationWasReadAreCorrectedWithANewVersion() async throws {
        let first = try await makeServer()
        let store = first.store
        let photo = try Self.portrait()
        let hash = try store.files.storeOriginal(photo)
        let g = try await store.createGallery(name: "Phone")
        let section = try await store.snapshot(g.id).sections[0].id
        // As the previous release stored it: the raw 800×400, aspect 2. And a landscape one, right already.
        let landscape = try SampleImages.jpeg(width: 600, height: 300, red: 10, green: 90, blue: 200, title: "")
        let other = try store.files.storeOriginal(landscape)
        let ids = try await store.apply(gallery: g.id, [.insert([
            NewItem(title: "portrait.jpg", fileHash: hash, width: 800, height: 400, state: .ready),
            NewItem(title: "landscape.jpg", fileHash: other, width: 600, height: 300, state: .ready),
        ], at: .end(section: section))], payload: "seed").createdItems
        let before = try await store.snapshot(g.id)
        // The upgrade's task, as migration v4 leaves it in a folder with ready items.
        try await store.pool.write { db in try db.execute(sql: "INSERT OR IGNORE INTO maintenance (task, since) VALUES ('reprobe-orientation', 0)") }

        let upgraded = try await GalleryServer(configuration: first.configuration, logger: quietLogger)
        try await upgraded.test(.router) { client in
            let deadline = ContinuousClock.now + .seconds(20)
            var after = try await client.snapshot(g.id)
            while after.version == before.version && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                after = try await client.snapshot(g.id)
            }
            let items = Dictionary(uniqueKeysWithValues: after.sections[0].items.map { ($0.id, $0) })
            #expect(items[ids[0]]!.width == 400 && items[ids[0]]!.height == 800 && abs(items[ids[0]]!.aspect - 0.5) < 1e-9)
            #expect(items[ids[0]]!.version > before.sections[0].items[0].version, "a new content version: windows re-lay out")
            #expect(items[ids[1]]!.width == 600 && items[ids[1]]!.version == before.sections[0].items[1].version, "unchanged")
            #expect(after.version == before.version + 1, "one version for the gallery's corrections")
            // Streamed like any change: the changes since the old version carry the new size.
            let changes = try await client.execute(uri: "/api/galleries/\(g.id)/changes?since=\(before.version)", method: .get)
            #expect(String(buffer: changes.body).contains(#""aspect":0.5"#))
        }
        #expect(try await upgraded.store.maintenancePending("reprobe-orientation") == false, "done once")
    }
}
