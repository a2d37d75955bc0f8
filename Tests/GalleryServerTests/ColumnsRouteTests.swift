import Foundation
import Testing
import CZstd
import Hummingbird
import HummingbirdTesting
import GalleryCore
import CompressNIO
@testable import GalleryServer
import StoreTestSupport

/// `GET /api/galleries/:id/columns`: the page's compact first load carries exactly what the full
/// snapshot carries, in section order, revalidates with an ETag and changes with every version.
@Suite(.serialized) struct ColumnsRouteTests {
    /// The wire format, decoded on its own (independently of the server's SnapshotColumns type).
    struct Wire: Decodable {
        struct Gallery: Decodable { var id: Int64; var name: String; var version: Int64 }
        struct Section: Decodable { var id: Int64; var title: String; var count: Int }
        var format: String
        var gallery: Gallery
        var version: Int64
        var sections: [Section]
        var id: [Int64]
        var contentVersion: [UInt32]
        var aspect: [Double]
        var state: String
        var title: [String]
        var width: [Int]
        var height: [Int]
        var details: [String: [String: String]]
    }

    /// The binary form's header, decoded on its own.
    struct BinaryHead: Decodable {
        var format: String
        var gallery: Wire.Gallery
        var version: Int64
        var sections: [Wire.Section]
        var details: [String: [String: String]]
        var count: Int
        var titleBytes: Int
        var idBytes: Int
        var versionBytes: Int
        var sizeBytes: Int
    }

    /// The binary form (`?format=binary`) read back into the JSON form's fields, by the layout
    /// docs/API.md gives (independently of SnapshotColumns.binary()).
    static func wire(fromBinary body: ByteBuffer) throws -> Wire {
        let bytes = Array(body.readableBytesView)
        #expect(Array(bytes.prefix(4)) == Array("GCB2".utf8))
        func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) } }
        func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) } }
        let h = Int(u32(4))
        let head = try JSONDecoder().decode(BinaryHead.self, from: Data(bytes[8 ..< 8 + h]))
        #expect(head.format == "columns-binary-2")
        #expect([4, 8].contains(head.idBytes) && [2, 4].contains(head.versionBytes) && [2, 4].contains(head.sizeBytes))
        let n = head.count
        var at = 8 + h
        // Each column at a multiple of its element's size, in the width the header names.
        func column(_ size: Int) -> [UInt64] {
            at = (at + size - 1) / size * size
            defer { at += size * n }
            return (0..<n).map { k in
                let p = at + size * k
                return size == 8 ? u64(p) : size == 4 ? UInt64(u32(p)) : UInt64(u16(p))
            }
        }
        let aspects = column(8).map { Double(bitPattern: $0) }
        let ids = column(head.idBytes).map { head.idBytes == 8 ? Int64(Double(bitPattern: $0)) : Int64($0) }
        let ends = column(4).map { UInt32($0) }
        let versions = column(head.versionBytes).map { UInt32($0) }
        let widths = column(head.sizeBytes).map { UInt32($0) }, heights = column(head.sizeBytes).map { UInt32($0) }
        let states = String(decoding: bytes[at ..< at + n], as: UTF8.self)
        at += n
        var titles: [String] = []
        var start = at
        for e in ends {
            titles.append(String(decoding: bytes[start ..< at + Int(e)], as: UTF8.self))
            start = at + Int(e)
        }
        #expect(at + head.titleBytes == bytes.count, "nothing after the titles")
        return Wire(format: "columns-2", gallery: head.gallery, version: head.version, sections: head.sections, id: ids,
                    contentVersion: versions, aspect: aspects, state: states, title: titles,
                    width: widths.map { Int(Int32(bitPattern: $0)) }, height: heights.map { Int(Int32(bitPattern: $0)) }, details: head.details)
    }

    /// Rebuilds nested items from the columns, as the page does. The columns name no content hash
    /// (a ready item's images are served by item id): those two fields stay empty here.
    static func items(fromColumns body: ByteBuffer) throws -> (version: Int64, name: String, sections: [(id: Int64, title: String, items: [ItemJSON])]) {
        let binary = body.readableBytesView.starts(with: Array("GCB2".utf8))
        let w = binary ? try wire(fromBinary: body) : try JSONDecoder().decode(Wire.self, from: Data(body.readableBytesView))
        #expect(w.format == "columns-2")
        let ids = w.id, versions = w.contentVersion, aspects = w.aspect, states = Array(w.state)
        let titles = w.title, widths = w.width, heights = w.height, details = w.details
        for column in [versions.count, aspects.count, states.count, titles.count, widths.count, heights.count] {
            #expect(column == ids.count)
        }
        var k = 0
        var sections: [(Int64, String, [ItemJSON])] = []
        for s in w.sections {
            let sid = s.id
            let count = s.count
            var items: [ItemJSON] = []
            for i in k ..< k + count {
                let state: ItemState = states[i] == "r" ? .ready : states[i] == "p" ? .pending : .failed
                let extra = details[String(ids[i])]
                items.append(ItemJSON(id: ids[i], sectionId: sid, title: titles[i], sourceURL: extra?["sourceURL"], fileHash: nil,
                                      width: widths[i] > 0 ? widths[i] : nil, height: heights[i] > 0 ? heights[i] : nil,
                                      aspect: aspects[i], state: state, reason: extra?["reason"], version: versions[i],
                                      thumbnails: nil, trashed: false))
            }
            k += count
            sections.append((sid, s.title, items))
        }
        #expect(k == ids.count)
        return (w.version, w.gallery.name, sections)
    }

    static func expectSame(_ columns: ByteBuffer, _ full: GallerySnapshotJSON, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let c = try items(fromColumns: columns)
        #expect(c.version == full.version && c.name == full.gallery.name, sourceLocation: sourceLocation)
        #expect(c.sections.map(\.id) == full.sections.map(\.id), sourceLocation: sourceLocation)
        #expect(c.sections.map(\.title) == full.sections.map(\.title), sourceLocation: sourceLocation)
        for (a, b) in zip(c.sections, full.sections) {
            let hashless = b.items.map { item -> ItemJSON in var i = item; i.fileHash = nil; i.thumbnails = nil; return i }
            #expect(a.items == hashless, sourceLocation: sourceLocation)
        }
    }

    @Test func columnsCarryWhatTheFullSnapshotCarriesInEveryState() async throws {
        let images = try await TestImageServer.start()
        defer { Task { await images.stop() } }
        // The pending item must stay pending until the columns are read, however loaded the
        // machine: a fetch that takes 2 minutes, with the timeout far beyond it (with the tests'
        // 3 s timeout and a 4 s image, a slow run saw it fail between the snapshot and the read),
        // from a server that keeps sending (one silent for 10 s fails: a loaded run saw that too),
        // with the silence allowed far beyond it as well (a run beside a release build saw the
        // test process itself starved for 10 s: "sent nothing for 10 s").
        let server = try await makeServer {
            $0.createSampleGallery = true; $0.fetchTimeout = .seconds(600); $0.fetchSilence = .seconds(600)
        }
        try await server.test(.router) { client in
            let list: [GalleryInfo] = try await client.json(.get, "/api/galleries")
            let g = list[0].id
            let first = try await client.snapshot(g)
            // A failed item (with a reason and a source URL), a pending one, an empty section and
            // a title that needs escaping.
            let failed = try await client.dropURL(g, "\(images.base)/missing.jpg", to: #"{"section": \#(first.sections[1].id), "index": 0}"#)
            #expect(try await client.settled(failed.id).state == .failed)
            let pending = try await client.dropURL(g, "\(images.base)/trickle.jpg?ms=120000&every=1000", to: #"{"section": \#(first.sections[0].id), "index": 3}"#)
            let v = try await client.snapshot(g).version
            let _: BatchAnswer = try await client.json(.post, "/api/galleries/\(g)/batch", #"""
                {"baseVersion": \#(v), "operations": [{"op": "createSection", "title": "Empty \"quoted\"\n🥸 section"}]}
                """#)
            let full = try await client.snapshot(g)
            #expect(full.sections.count == 3)
            #expect(full.sections.flatMap(\.items).contains { $0.id == pending.id && $0.state == .pending })
            #expect(full.sections.flatMap(\.items).contains { $0.id == failed.id && $0.reason != nil && $0.sourceURL != nil })
            let r = try await client.execute(uri: "/api/galleries/\(g)/columns", method: .get)
            #expect(r.status == .ok && r.headers[.contentType]?.hasPrefix("application/json") == true)
            try Self.expectSame(r.body, full)
            // The binary form the page reads: the same content.
            let b = try await client.execute(uri: "/api/galleries/\(g)/columns?format=binary", method: .get)
            #expect(b.status == .ok && b.headers[.contentType] == "application/octet-stream")
            #expect(b.headers[.eTag] != r.headers[.eTag], "each form its own validator")
            try Self.expectSame(b.body, full)
            let bad = try await client.error(.get, "/api/galleries/\(g)/columns?format=xml", status: .badRequest)
            #expect(bad == "format \"xml\" is not one of json, binary")
            #expect(!String(buffer: r.body).contains(try #require(full.sections[0].items.first { $0.fileHash != nil }?.fileHash)))
            // Every ready item's images by id and content version: the same bytes as by hash,
            // immutable with the current version, revalidated with another.
            for item in full.sections.flatMap(\.items) where item.state == .ready {
                let hash = try #require(item.fileHash)
                for name in ["grid.jpg", "original"] {
                    let byID = try await client.execute(uri: "/api/items/\(item.id)/image/\(name)?v=\(item.version)", method: .get)
                    let byHash = try await client.execute(uri: "/api/images/\(hash)/\(name)", method: .get)
                    #expect(byID.status == .ok && byID.body == byHash.body && byID.headers[.eTag] == byHash.headers[.eTag])
                    #expect(byID.headers[.cacheControl]?.contains("immutable") == true)
                }
                let stale = try await client.execute(uri: "/api/items/\(item.id)/image/grid.jpg?v=\(item.version + 1)", method: .get)
                #expect(stale.status == .ok && stale.headers[.cacheControl] == "private, no-cache")
            }
            for item in [pending, failed] {
                let message = try await client.error(.get, "/api/items/\(item.id)/image/grid.jpg", status: .notFound)
                #expect(message.hasPrefix("item \(item.id) has no image yet"))
            }
            let unknown = try #require(full.sections[0].items.first { $0.state == .ready })
            _ = try await client.error(.get, "/api/items/\(unknown.id)/image/thumb.png", status: .notFound)
            // A tenth of the bytes or less would need a large gallery; here it must at least be smaller.
            let fullBody = try await client.execute(uri: "/api/galleries/\(g)", method: .get)
            #expect(r.body.readableBytes < fullBody.body.readableBytes)
        }
    }

    @Test func anUnchangedGalleryRevalidatesAndEveryChangeGivesANewBody() async throws {
        let server = try await makeServer { $0.createSampleGallery = true }
        try await server.test(.router) { client in
            let list: [GalleryInfo] = try await client.json(.get, "/api/galleries")
            let g = list[0].id
            let r1 = try await client.execute(uri: "/api/galleries/\(g)/columns", method: .get)
            let etag = try #require(r1.headers[.eTag])
            let again = try await client.execute(uri: "/api/galleries/\(g)/columns", method: .get, headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified && again.body.readableBytes == 0)
            let cached = try await client.execute(uri: "/api/galleries/\(g)/columns", method: .get)
            #expect(cached.body == r1.body && cached.headers[.eTag] == etag)
            // A move: new version, new ETag, the body follows (from the cache's point of view: not stale).
            let s = try await client.snapshot(g)
            let ids = s.sections[0].items.map(\.id)
            let _: BatchAnswer = try await client.json(.post, "/api/galleries/\(g)/batch", #"""
                {"baseVersion": \#(s.version), "operations": [{"op": "move", "items": [\#(ids[0])], "to": {"section": \#(s.sections[0].id)}}]}
                """#)
            let moved = try await client.execute(uri: "/api/galleries/\(g)/columns", method: .get, headers: [.ifNoneMatch: etag])
            #expect(moved.status == .ok && moved.headers[.eTag] != etag)
            try Self.expectSame(moved.body, try await client.snapshot(g))
            #expect(try Self.items(fromColumns: moved.body).sections[0].items.last?.id == ids[0])
            // A rename (the name is part of the body) also gives a new body.
            let _: GalleryInfo = try await client.json(.patch, "/api/galleries/\(g)", #"{"name": "Renamed"}"#)
            let renamed = try await client.execute(uri: "/api/galleries/\(g)/columns", method: .get)
            #expect(try Self.items(fromColumns: renamed.body).name == "Renamed")
            let message = try await client.error(.get, "/api/galleries/999/columns", status: .notFound)
            #expect(message == "unknown gallery 999")
        }
    }

    @Test func afterAChangeAndAQuietMomentTheNewVersionIsCachedWithoutARequest() async throws {
        let server = try await makeServer { $0.createSampleGallery = true }
        try await server.test(.router) { client in
            let list: [GalleryInfo] = try await client.json(.get, "/api/galleries")
            let g = list[0].id
            let first = try await client.execute(uri: "/api/galleries/\(g)/columns", method: .get)
            #expect(first.status == .ok)
            let fullReads = server.columnsCache.fullReads.load(ordering: .relaxed)
            let s = try await client.snapshot(g)
            let moved: BatchAnswer = try await client.json(.post, "/api/galleries/\(g)/batch", #"""
                {"baseVersion": \#(s.version), "operations": [{"op": "move", "items": [\#(s.sections[0].items[0].id)], "to": {"section": \#(s.sections[1].id)}}]}
                """#)
            #expect(server.columnsCache.body(.init(gallery: g, binary: false), version: moved.version, name: s.gallery.name) == nil)
            // Quiet for a second: the watcher builds the new version's body in the background.
            var cached: ByteBuffer?
            for _ in 0..<60 where cached == nil {
                try await Task.sleep(for: .milliseconds(100))
                cached = server.columnsCache.body(.init(gallery: g, binary: false), version: moved.version, name: s.gallery.name)?.body
            }
            let body = try #require(cached)
            try Self.expectSame(body, try await client.snapshot(g))
            // Issue 15.2: made from the columns kept and the change, not from a read of the whole gallery.
            #expect(server.columnsCache.fullReads.load(ordering: .relaxed) == fullReads)
        }
    }

    /// A page load right after a change builds that version; the quiet moment after it finds it
    /// built and does not build (and compress: 1–2 s of CPU at 1M) it again.
    @Test func aVersionAPageLoadBuiltIsNotBuiltAgainWhenTheGalleryGoesQuiet() async throws {
        // Quiet after 5 s: the page load below comes first however loaded the machine; no prewarmed other form.
        let server = try await makeServer { $0.createSampleGallery = true; $0.prewarmColumns = false; $0.columnsQuiet = .seconds(5) }
        try await server.test(.router) { client in
            let list: [GalleryInfo] = try await client.json(.get, "/api/galleries")
            let g = list[0].id
            #expect(try await client.execute(uri: "/api/galleries/\(g)/columns", method: .get).status == .ok)
            let s = try await client.snapshot(g)
            let _: BatchAnswer = try await client.json(.post, "/api/galleries/\(g)/batch", #"""
                {"baseVersion": \#(s.version), "operations": [{"op": "move", "items": [\#(s.sections[0].items[0].id)], "to": {"section": \#(s.sections[1].id)}}]}
                """#)
            let builds = server.columnsCache.builds.load(ordering: .relaxed)
            #expect(try await client.execute(uri: "/api/galleries/\(g)/columns", method: .get).status == .ok) // the new version, built now
            let afterLoad = server.columnsCache.builds.load(ordering: .relaxed)
            #expect(afterLoad == builds + 1)
            let clock = ContinuousClock(), deadline = clock.now + .seconds(60)
            while server.columnsCache.quietSkips.load(ordering: .relaxed) == 0 && server.columnsCache.builds.load(ordering: .relaxed) == afterLoad
                    && clock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(server.columnsCache.quietSkips.load(ordering: .relaxed) >= 1, "the quiet moment came and found the body built")
            #expect(server.columnsCache.builds.load(ordering: .relaxed) == afterLoad, "not built again")
        }
    }

    /// A steady stream of changes rebuilds nothing while it lasts; once the gallery has been quiet
    /// for the quiet moment after the last change, its body is rebuilt once (session 22: one wait
    /// per quiet moment, each change only noting when it came).
    @Test func aBurstOfChangesIsRebuiltOnceAfterItsLastChange() async throws {
        let quiet = Duration.milliseconds(600)
        let server = try await makeServer { $0.prewarmColumns = false; $0.columnsQuiet = quiet }
        let start = try await seeded(server, n: 20)
        let g = start.gallery.id
        try await server.test(.router) { client in
            #expect(try await client.execute(uri: "/api/galleries/\(g)/columns?format=binary", method: .get).status == .ok)
            let built = server.columnsCache.builds.load(ordering: .relaxed)
            let clock = ContinuousClock()
            let items = start.sections[0].items.map(\.id), sections = start.sections.map(\.id)
            var last = clock.now, longestGap = Duration.zero, duringBurst = 0
            let burstEnd = clock.now + quiet * 3
            var n = 0
            while clock.now < burstEnd {
                _ = try await server.store.apply(gallery: g, [.move(items: [items[n % items.count]], to: .index(section: sections[n % 2], index: 0))])
                n += 1
                let now = clock.now
                longestGap = max(longestGap, now - last)
                last = now
                duringBurst = max(duringBurst, server.columnsCache.builds.load(ordering: .relaxed) - built)
                try await Task.sleep(for: .milliseconds(40))
            }
            // A pause of a quiet moment between two changes (a very loaded machine) would be a quiet moment.
            if longestGap < quiet { #expect(duringBurst == 0, "rebuilt during the burst (longest pause \(longestGap))") }
            let version = try await server.store.gallery(g).version
            let key = ColumnsCache.Key(gallery: g, binary: true)
            let deadline = clock.now + .seconds(60)
            while server.columnsCache.body(key, version: version, name: start.gallery.name) == nil && clock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(server.columnsCache.body(key, version: version, name: start.gallery.name) != nil, "rebuilt at the last version once quiet")
            let afterQuiet = server.columnsCache.builds.load(ordering: .relaxed)
            try await Task.sleep(for: quiet * 2)
            #expect(server.columnsCache.builds.load(ordering: .relaxed) == afterQuiet, "one rebuild for the burst")
            #expect(afterQuiet - built == (longestGap < quiet ? 1 : afterQuiet - built))
        }
    }

    /// Session 17: the columns' long synchronous work (at 1M items ~0.1–0.2 s to build, ~1 s to
    /// gzip) runs on threads of its own, never on Swift's shared threads that serve requests: a
    /// page's build on "columns-build" at the requests' priority; what nobody waits for at nice 10:
    /// the quiet moment's rebuild on "columns-rebuild", every compression on "columns-bg".
    @Test(arguments: Backend.tested)
    func buildsAndCompressionsRunOnThreadsOfTheirOwn(_ backend: Backend) async throws {
        let server = try await makeServer(backend) { $0.prewarmColumns = false; $0.columnsQuiet = .milliseconds(300) }
        let start = try await seeded(server, n: 50)
        let g = start.gallery.id
        var requestsNice: Int32 = 0
        #if os(Linux)
        requestsNice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        #endif
        try await server.test(.router) { client in
            #expect(try await client.execute(uri: "/api/galleries/\(g)/columns?format=binary", method: .get).status == .ok)
            let items = start.sections[0].items
            let moved: BatchAnswer = try await client.json(.post, "/api/galleries/\(g)/batch", #"""
                {"baseVersion": \#(start.version), "operations": [{"op": "move", "items": [\#(items[0].id)], "to": {"after": \#(items[9].id)}}]}
                """#)
            // Quiet: the watcher builds the new version in the background, then it is compressed.
            let key = ColumnsCache.Key(gallery: g, binary: true)
            let clock = ContinuousClock(), deadline = clock.now + .seconds(60)
            while server.columnsCache.body(key, version: moved.version, name: start.gallery.name)?.gzip == nil && clock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(server.columnsCache.body(key, version: moved.version, name: start.gallery.name)?.gzip != nil)
        }
        let ran = server.columnsCache.ranOn.withLock { $0 }
        let builds = ran.filter { $0.what == "build" }, compressions = ran.filter { $0.what == "compress" }
        #expect(builds.count == 2 && compressions.count == 2, "\(ran)")
        // The page's load waited for its build: the requests' priority, not their threads.
        #expect(builds.first.map { [$0.thread, "\($0.nice)"] } == ["columns-build", "\(requestsNice)"], "\(ran)")
        // The quiet moment's rebuild and both compressions: low-priority threads, not the same one.
        #expect(builds.dropFirst().allSatisfy { $0.thread == "columns-rebuild" && $0.nice == ColumnsCache.backgroundNice }, "\(ran)")
        #expect(compressions.allSatisfy { $0.thread == "columns-bg" && $0.nice == ColumnsCache.backgroundNice }, "\(ran)")
    }

    /// Requests that find no body ready share one build (each build of a big gallery holds its
    /// columns and the body in memory while it runs).
    @Test func concurrentFirstRequestsShareOneBuild() async throws {
        let server = try await makeServer { $0.prewarmColumns = false } // a prewarm would race the requests
        let start = try await seeded(server, n: 50)
        let g = start.gallery.id
        try await server.test(.router) { client in
            let before = server.columnsCache.builds.load(ordering: .relaxed)
            let bodies = try await withThrowingTaskGroup(of: ByteBuffer.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await client.execute(uri: "/api/galleries/\(g)/columns?format=binary", method: .get).body }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(server.columnsCache.builds.load(ordering: .relaxed) - before == 1, "one build for 8 requests")
            for body in bodies { try Self.expectSame(body, start) }
        }
    }

    @Test func aStartingServerPreparesTheBodiesOfItsGalleries() async throws {
        let server = try await makeServer { $0.createSampleGallery = true }
        let g = try #require(try await server.store.listGalleries().first)
        var cached: ByteBuffer?
        for _ in 0..<50 where cached == nil {
            try await Task.sleep(for: .milliseconds(100))
            cached = server.columnsCache.body(.init(gallery: g.id, binary: true), version: g.version, name: g.name)?.body
        }
        // No request was made: the start built it (in the form the page reads).
        try Self.expectSame(try #require(cached), try await server.store.snapshot(g.id))
    }

    /// Issue 15: a client that accepts gzip gets the body gzipped once the cache has compressed
    /// it (in the background, never on the request), the same JSON when inflated, with its own
    /// ETag; one that does not, or refuses it with q=0, gets it as it is.
    @Test func aClientThatAcceptsGzipGetsTheSameBodyGzipped() async throws {
        let server = try await makeServer { $0.createSampleGallery = true }
        try await server.test(.router) { client in
            let list: [GalleryInfo] = try await client.json(.get, "/api/galleries")
            let g = list[0].id
            let plain = try await client.execute(uri: "/api/galleries/\(g)/columns", method: .get)
            #expect(plain.headers[.contentEncoding] == nil && plain.headers[.vary] == "Accept-Encoding")
            var gzipped: TestResponse?
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                let r = try await client.execute(uri: "/api/galleries/\(g)/columns", method: .get, headers: [.acceptEncoding: "gzip, deflate, br"])
                if r.headers[.contentEncoding] == "gzip" { gzipped = r; break }
                try await Task.sleep(for: .milliseconds(20))
            }
            let zipped = try #require(gzipped, "never gzipped")
            #expect(zipped.body.readableBytes * 3 < plain.body.readableBytes * 2)   // the sample is small; ~8x at 100k (BENCHMARKS.md)
            var inflated = zipped.body
            let json = try inflated.decompress(with: .gzip())
            #expect(json == plain.body)
            let etag = try #require(zipped.headers[.eTag])
            #expect(etag != plain.headers[.eTag])
            let again = try await client.execute(uri: "/api/galleries/\(g)/columns", method: .get,
                                                 headers: [.acceptEncoding: "gzip", .ifNoneMatch: etag])
            #expect(again.status == .notModified && again.headers[.eTag] == etag)
            for refusing in ["identity", "gzip;q=0", "br"] {
                let r = try await client.execute(uri: "/api/galleries/\(g)/columns", method: .get, headers: [.acceptEncoding: refusing])
                #expect(r.headers[.contentEncoding] == nil && r.body == plain.body, "\(refusing)")
            }
        }
    }

    /// A browser that takes zstd (Chromium sends `gzip, deflate, br, zstd`) gets the body
    /// zstd-compressed once the cache has made it: the same bytes when decoded (with libzstd),
    /// an ETag of its own that revalidates; the client's weights decide between zstd and gzip,
    /// zstd winning a tie; q=0 refuses; `*` takes either.
    @Test func aBrowserThatTakesZstdGetsTheSameBodyInZstd() async throws {
        let server = try await makeServer { $0.createSampleGallery = true }
        try await server.test(.router) { client in
            let list: [GalleryInfo] = try await client.json(.get, "/api/galleries")
            let g = list[0].id
            let uri = "/api/galleries/\(g)/columns?format=binary"
            let plain = try await client.execute(uri: uri, method: .get)
            #expect(plain.headers[.contentEncoding] == nil)
            func encoding(_ accept: String) async throws -> TestResponse {
                try await client.execute(uri: uri, method: .get, headers: [.acceptEncoding: accept])
            }
            // Both forms are made in the background: wait until gzip (made second) is there too.
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline, try await encoding("gzip").headers[.contentEncoding] != "gzip" {
                try await Task.sleep(for: .milliseconds(20))
            }
            let zstd = try await encoding("gzip, deflate, br, zstd")
            #expect(zstd.headers[.contentEncoding] == "zstd" && zstd.headers[.vary] == "Accept-Encoding")
            let compressed = [UInt8](buffer: zstd.body)
            let size = compressed.withUnsafeBytes { ZSTD_getFrameContentSize($0.baseAddress, $0.count) }
            #expect(Int(size) == plain.body.readableBytes)
            var decoded = [UInt8](repeating: 0, count: plain.body.readableBytes)
            let n = decoded.withUnsafeMutableBytes { out in compressed.withUnsafeBytes { ZSTD_decompress(out.baseAddress, out.count, $0.baseAddress, $0.count) } }
            #expect(ZSTD_isError(n) == 0 && n == plain.body.readableBytes)
            #expect(decoded == [UInt8](buffer: plain.body), "the zstd body decodes to the plain one")
            let etag = try #require(zstd.headers[.eTag])
            #expect(etag.hasSuffix("-zst\"") && etag != plain.headers[.eTag])
            let again = try await client.execute(uri: uri, method: .get, headers: [.acceptEncoding: "zstd", .ifNoneMatch: etag])
            #expect(again.status == .notModified && again.headers[.eTag] == etag)
            for (accept, expected) in [("zstd", "zstd"), ("gzip, zstd", "zstd"), ("*", "zstd"), ("gzip;q=1, zstd;q=0.5", "gzip"),
                                       ("zstd;q=0, gzip", "gzip"), ("zstd;q=0, *", "gzip"), ("br, zstd;q=0.1", "zstd"),
                                       ("identity", nil), ("zstd;q=0", nil), ("br", nil)] as [(String, String?)] {
                let r = try await encoding(accept)
                #expect(r.headers[.contentEncoding] == expected, "\(accept)")
                if expected == nil { #expect(r.body == plain.body, "\(accept)") }
            }
        }
    }

    /// The binary form takes each column's narrow width only when every value fits it: ids
    /// below 2^32 as u32 (else f64), content versions and sizes below 2^16 as u16 (else u32);
    /// either way the body reads back to the same values, every column at a multiple of its
    /// element's size, and the narrow body is smaller.
    @Test(arguments: [false, true])
    func theBinaryFormIsNarrowOnlyWhereEveryValueFits(wide: Bool) throws {
        var c = SnapshotColumns(gallery: GalleryInfo(id: 7, name: "Wide?", version: 3, itemCount: 3, createdAt: 1))
        c.sections = [.init(id: 1, title: "One", count: 2), .init(id: 2, title: "Two", count: 1)]
        c.ids = [1, 65_537, wide ? 5_000_000_000 : 4_294_967_295]
        c.contentVersions = [0, 65_535, wide ? 70_000 : 2]
        c.aspects = [1.5, 0.75, 1]
        c.states = [.ready, .pending, .failed]
        c.titles = ["Apple", "🥸", ""]
        c.widths = [65_535, 0, wide ? 80_000 : 12]
        c.heights = [1, 0, 9]
        let body = ByteBuffer(bytes: c.binary())
        let head = try JSONDecoder().decode(BinaryHead.self, from: Data(Array(body.readableBytesView)[8 ..< 8 + Int(body.getInteger(at: 4, endianness: .little, as: UInt32.self)!)]))
        #expect(head.idBytes == (wide ? 8 : 4) && head.versionBytes == (wide ? 4 : 2) && head.sizeBytes == (wide ? 4 : 2))
        let w = try Self.wire(fromBinary: body)
        #expect(w.id == c.ids && w.contentVersion == c.contentVersions && w.aspect == c.aspects)
        #expect(w.width == c.widths.map(Int.init) && w.height == c.heights.map(Int.init))
        #expect(w.title == c.titles && w.state == "rpf")
        if !wide {
            var wider = c
            wider.ids[2] = 5_000_000_000
            #expect(wider.binary().count > c.binary().count + 3 * 4 - 8, "the narrow form is the smaller")
        }
    }
}
