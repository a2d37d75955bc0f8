import Foundation
import Testing
import Hummingbird
import HummingbirdTesting
import GalleryCore
import GalleryServer
import Imaging

/// Dropped URLs against a real local image server (F18, F19, F16, B6).
@Suite(.serialized) struct URLDropTests {
    @Test func aDroppedURLIsAPendingPlaceholderAtOnceThenReadyWithThumbnails() async throws {
        let images = try await TestImageServer.start()
        defer { Task { await images.stop() } }
        // The gate holds the fetch silent while the test looks at the placeholder: a loaded machine
        // once took longer than the 10-s silence limit (tested on its own below) and the item failed.
        let server = try await makeServer { $0.fetchTimeout = .seconds(600); $0.fetchSilence = .seconds(600) }
        try await server.test(.router) { client in
            let g = try await client.newGallery()
            let section = g.sections[0].id
            // The image server holds the image until the test opens its gate, so the answer comes before the image
            // whatever the machine's load (a 2.5 s delay raced a loaded CI machine).
            let item = try await client.dropURL(g.gallery.id, "\(images.base)/gated.jpg?key=first", to: #"{"section": \#(section), "index": 0}"#)
            #expect(item.state == .pending && item.aspect == 1 && item.thumbnails == nil)
            #expect(try await client.snapshot(g.gallery.id).sections[0].items.map(\.id) == [item.id])
            // The fetch reaches the image server and waits there; the item is still a placeholder meanwhile.
            #expect(try await IngestLeaseTests.eventually(timeout: .seconds(60)) { images.asked("first") }, "the image was asked for")
            #expect(try await client.json(.get, "/api/items/\(item.id)", as: ItemJSON.self).state == .pending, "still pending while the image server holds it")
            images.open("first")
            let done = try await client.settled(item.id)
            #expect(done.state == .ready, "\(done.reason ?? "")")
            #expect(done.width == 300 && done.height == 200 && abs(done.aspect - 1.5) < 1e-9)
            #expect(done.version == item.version + 1)
            // Thumbnails: strong caching, revalidation answered 304. (A failed item has none: #require
            // fails the test, where `!` took the whole test process down with it.)
            let thumbnails = try #require(done.thumbnails)
            let grid = try await client.execute(uri: thumbnails.grid, method: .get)
            #expect(grid.status == .ok && grid.headers[.cacheControl]?.contains("immutable") == true)
            let etag = try #require(grid.headers[.eTag])
            let again = try await client.execute(uri: thumbnails.grid, method: .get, headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified)
            // The detail image is made on its first view (ingestion makes only what the grid needs), then kept.
            let hash = try #require(done.fileHash)
            #expect(!server.store.files.exists(hash, "detail.jpg"))
            let detail = try await client.execute(uri: thumbnails.detail, method: .get)
            #expect(detail.status == .ok && detail.headers[.contentType] == "image/jpeg")
            let info = try ImageProbe.probe(Array(detail.body.readableBytesView), limits: ImageLimits(maxPixels: 1 << 30))
            #expect(info.width == 300 && info.height == 200, "never enlarged past the original")
            #expect(server.store.files.exists(hash, "detail.jpg"))
            let original = try await client.execute(uri: thumbnails.original, method: .get)
            #expect(Array(original.body.readableBytesView) == TestImageServer.good)
        }
    }

    @Test func theSettledPlaceholderKeepsItsCurrentPlaceAfterOtherEdits() async throws {
        let images = try await TestImageServer.start()
        defer { Task { await images.stop() } }
        let server = try await makeServer()
        let start = try await seeded(server, n: 3)
        try await server.test(.router) { client in
            let g = start.gallery.id
            let item = try await client.dropURL(g, "\(images.base)/gated.jpg?key=moved", to: #"{"before": \#(start.sections[0].items[1].id)}"#)
            // Meanwhile (the image server holds the image until the gate opens) the placeholder is moved to the other
            // section (F19: commit at the current index path).
            let _: BatchAnswer = try await client.json(.post, "/api/galleries/\(g)/batch",
                                                       ops(#"{"op": "move", "items": [\#(item.id)], "to": {"section": \#(start.sections[1].id), "index": 2}}"#))
            #expect(try await client.json(.get, "/api/items/\(item.id)", as: ItemJSON.self).state == .pending, "moved while still a placeholder")
            images.open("moved")
            #expect(try await client.settled(item.id).state == .ready)
            let s = try await client.snapshot(g)
            #expect(s.sections[1].items[2].id == item.id && s.sections[1].items[2].state == .ready)
        }
    }

    @Test(arguments: [
        ("huge.jpg", "too large: 52428800 bytes"),
        ("endless.jpg", "too large: more than"),
        ("truncated.jpg", "image could not be decoded"),
        ("page.html", "not an image"),
        ("bomb.png", "image too large: 5000×4000 pixels exceeds the limit of 10000000"),
        ("missing.jpg", "HTTP 404"),
        ("loop", "too many redirects"),
        ("slow.jpg?ms=6000", "timed out after 3 s"),
        // Never silent, never done: the body is held to the whole fetch's deadline too.
        ("trickle.jpg?ms=600000&every=500", "timed out after 3 s"),
        ("redirect?to=http://169.254.169.254/latest/meta-data/", "redirect refused: 169.254.169.254 is a cloud metadata address"),
        ("redirect?to=file:///etc/passwd", "redirect refused: scheme \"file\""),
        ("redirect?to=http://[fe80::1]/x.jpg", "link-local"),
    ])
    func badSourcesBecomeFailedSquareTilesWithTheReason(path: String, reason: String) async throws {
        let images = try await TestImageServer.start()
        defer { Task { await images.stop() } }
        // 3 s only where the timeout is the point: the six hops of a redirect loop took longer than that on a loaded machine.
        let server = try await makeServer { $0.fetchTimeout = reason.hasPrefix("timed out") ? .seconds(3) : .seconds(60) }
        try await server.test(.router) { client in
            let g = try await client.newGallery()
            let item = try await client.dropURL(g.gallery.id, "\(images.base)/\(path)")
            #expect(item.state == .pending)
            let done = try await client.settled(item.id)
            #expect(done.state == .failed)
            #expect(done.reason?.contains(reason) == true, "\(done.reason ?? "nil")")
            #expect(done.aspect == 1 && done.thumbnails == nil)
            // The failed item stays in the gallery (nothing lost); the page shows the error tile.
            #expect(try await client.snapshot(g.gallery.id).sections[0].items.map(\.id) == [item.id])
        }
    }

    /// A server that says nothing for `fetchSilence` fails with that reason, not the whole fetch's
    /// timeout; one that keeps sending, however slowly, is held only to `fetchTimeout`.
    @Test func aSilentServerFailsAsSilentAndASlowOneThatKeepsSendingIsWaitedFor() async throws {
        let images = try await TestImageServer.start()
        defer { Task { await images.stop() } }
        let server = try await makeServer { $0.fetchTimeout = .seconds(120); $0.fetchSilence = .seconds(2) }
        try await server.test(.router) { client in
            let g = try await client.newGallery()
            let silent = try await client.dropURL(g.gallery.id, "\(images.base)/slow.jpg?ms=8000")
            let slow = try await client.dropURL(g.gallery.id, "\(images.base)/trickle.jpg?ms=5000&every=100")
            let failed = try await client.settled(silent.id)
            #expect(failed.state == .failed)
            #expect(failed.reason == "127.0.0.1 sent nothing for 2 s", "\(failed.reason ?? "nil")")
            #expect(try await client.settled(slow.id).state == .ready)
        }
    }

    @Test func aRedirectToAGoodImageIsFollowed() async throws {
        let images = try await TestImageServer.start()
        defer { Task { await images.stop() } }
        let server = try await makeServer()
        try await server.test(.router) { client in
            let g = try await client.newGallery()
            let item = try await client.dropURL(g.gallery.id, "\(images.base)/redirect?to=/good.jpg")
            #expect(try await client.settled(item.id).state == .ready)
        }
    }
}

/// F5, F17: a tile dragged from one gallery window into another arrives as the URL of this
/// server's original image; it is copied from the stored file, even where private addresses
/// (this server's own, here loopback) are refused for fetches.
@Suite struct OwnImageDropTests {
    @Test func anImageOfThisServerIsCopiedFromTheStoreWithoutAFetch() async throws {
        let server = try await makeServer { $0.createSampleGallery = true; $0.allowPrivateAddresses = false }
        try await server.test(.router) { client in
            let list: [GalleryInfo] = try await client.json(.get, "/api/galleries")
            let apple = try #require(try await client.snapshot(list[0].id).sections[0].items.first { $0.title == "Apple" })
            let hash = try #require(apple.fileHash)
            let other = try await client.newGallery("Elsewhere")
            // The router test client's requests name the host "localhost".
            let copied = try await client.dropURL(other.gallery.id, "http://localhost/api/images/\(hash)/original")
            let done = try await client.settled(copied.id)
            #expect(done.state == .ready && done.fileHash == hash, "\(done.reason ?? "")")
            #expect(done.width == apple.width && done.height == apple.height)
            #expect(try await client.snapshot(other.gallery.id).sections[0].items.map(\.id) == [copied.id])
            // Named by its item, as the page's first load names images: the same copy.
            let byItem = try await client.dropURL(other.gallery.id, "http://localhost/api/items/\(apple.id)/image/original?v=\(apple.version)")
            let second = try await client.settled(byItem.id)
            #expect(second.state == .ready && second.fileHash == hash, "\(second.reason ?? "")")
            // Another host, a hash or an item this server does not have: an ordinary fetch, refused here.
            for url in ["http://localhost:9/api/images/\(hash)/original",
                        "http://localhost/api/images/\(String(repeating: "ab", count: 32))/original",
                        "http://localhost/api/items/999999/image/original"] {
                let refused = try await client.settled(try await client.dropURL(other.gallery.id, url).id)
                #expect(refused.state == .failed && refused.reason?.contains("loopback") == true, "\(url): \(refused.reason ?? "")")
            }
        }
    }
}
