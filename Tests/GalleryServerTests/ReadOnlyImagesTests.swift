import Foundation
import Testing
import Hummingbird
import HummingbirdTesting
import NIOCore
import GalleryCore
import GalleryStore
import GalleryServer
import Imaging
#if canImport(Glibc)
import Glibc
#endif

/// An images folder that takes no file (issue 14, bad input): `/readyz` says so, uploads and
/// drops are refused with 503 naming it, nothing stored is lost, an item caught in the middle
/// stays pending, and everything works again — without a restart — once the folder takes files.
@Suite(.serialized) struct ReadOnlyImagesTests {
    /// Read-only for this process whoever it is. CI runs as root, and root ignores permission
    /// bits (chmod a-w would not stop it), so as root the folder is made immutable with
    /// `chattr -R +i`: no new entry, rename, removal or write in it, root included (ext4's
    /// immutable flag; root may drop it again, but this process never does). As another user,
    /// `chmod -R a-w`. A probe write checks that the folder really refuses.
    static func setReadOnly(_ folder: URL, _ readOnly: Bool) throws {
        let p = Process()
        if getuid() == 0 {
            p.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
            p.arguments = ["-R", readOnly ? "+i" : "-i", folder.path]
        } else {
            p.executableURL = URL(fileURLWithPath: "/bin/chmod")
            p.arguments = ["-R", readOnly ? "a-w" : "u+w", folder.path]
        }
        try p.run()
        p.waitUntilExit()
        try #require(p.terminationStatus == 0, "\(p.executableURL!.path) \(p.arguments!.joined(separator: " ")) failed")
    }

    @Test func aReadOnlyImagesFolderIsReportedRefusedAndRecoveredWithoutARestart() async throws {
        let server = try await makeServer { $0.ingestDelay = .seconds(3); $0.ingestPoll = 0.5 }
        let images = server.store.files.root
        let first = try SampleImages.jpeg(width: 400, height: 300, red: 30, green: 160, blue: 90, title: "first")
        let caught = try SampleImages.jpeg(width: 500, height: 300, red: 160, green: 30, blue: 90, title: "caught")
        let later = try SampleImages.jpeg(width: 300, height: 500, red: 90, green: 30, blue: 160, title: "later")
        let headers: HTTPFields = [.contentType: "multipart/form-data; boundary=gallery-test-boundary"]
        // Whatever happens, the folder is left writable (an immutable folder could not be removed).
        defer { try? Self.setReadOnly(images, false) }
        try await server.test(.router) { client in
            let g = try await client.newGallery().gallery.id
            let stored = try JSONDecoder().decode(CreatedItems.self, from: Data(try await client.execute(
                uri: "/api/galleries/\(g)/uploads", method: .post, headers: headers, body: multipart([("first.jpg", first)])).body.readableBytesView)).items[0]
            #expect(try await client.settled(stored.id).state == .ready)
            let grid = try await client.execute(uri: "/api/items/\(stored.id)/image/grid.jpg", method: .get).body
            // One more upload, caught by the change while it waits to be thumbnailed (3 s).
            let r = try await client.execute(uri: "/api/galleries/\(g)/uploads", method: .post, headers: headers, body: multipart([("caught.jpg", caught)]))
            #expect(r.status == .created)
            let pending = try JSONDecoder().decode(CreatedItems.self, from: Data(r.body.readableBytesView)).items[0]

            try Self.setReadOnly(images, true)
            try #require(!FileManager.default.createFile(atPath: images.appendingPathComponent("tmp/probe").path, contents: Data("x".utf8)),
                         "the folder must refuse a new file for this test to mean anything")

            let ready = try await client.execute(uri: "/readyz", method: .get)
            #expect(ready.status == .serviceUnavailable)
            #expect(String(buffer: ready.body).contains("the images folder cannot take a file"), "\(String(buffer: ready.body))")
            let refused = try await client.execute(uri: "/api/galleries/\(g)/uploads", method: .post, headers: headers, body: multipart([("later.jpg", later)]))
            #expect(refused.status == .serviceUnavailable)
            #expect(String(buffer: refused.body).contains("images folder cannot take a file"), "\(String(buffer: refused.body))")
            let drop = try await client.error(.post, "/api/galleries/\(g)/urls", #"{"url": "http://127.0.0.1:9/x.jpg"}"#, status: .serviceUnavailable)
            #expect(drop.contains("images folder cannot take a file"))
            // Nothing stored is lost, and it is still served.
            #expect(try await client.execute(uri: "/api/items/\(stored.id)/image/grid.jpg", method: .get).body == grid)
            #expect(try server.store.files.read(stored.fileHash!, "original") == first)
            // The caught item could not get its thumbnails: it stays pending (let go for a later try), not failed.
            // The item is let go for `ingestPoll` (0.5 s), then claimed and tried again (held for
            // `ingestDelay`, 3 s): the let-go state is seen in one read, not asked for a second
            // time (by then the next try may hold it again).
            let clock = ContinuousClock(), deadline = clock.now + .seconds(60)
            var letGo = false
            while clock.now < deadline && !letGo {
                let lease = try await server.store.lease(of: pending.id)
                letGo = lease.owner == nil && lease.until != nil
                if !letGo { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(letGo, "the job ran and let the item go for a later try")
            #expect(try await server.store.item(pending.id).state == .pending)
            let snapshot = try await client.snapshot(g)
            #expect(snapshot.sections.flatMap(\.items).count == 2, "the refused upload left no item")

            try Self.setReadOnly(images, false)
            #expect(try await client.execute(uri: "/readyz", method: .get).status == .ok)
            #expect(try await client.settled(pending.id, timeout: .seconds(60)).state == .ready, "tried again once the folder takes files")
            let again = try await client.execute(uri: "/api/galleries/\(g)/uploads", method: .post, headers: headers, body: multipart([("later.jpg", later)]))
            #expect(again.status == .created)
            let item = try JSONDecoder().decode(CreatedItems.self, from: Data(again.body.readableBytesView)).items[0]
            #expect(try await client.settled(item.id, timeout: .seconds(60)).state == .ready)
        }
    }
}
