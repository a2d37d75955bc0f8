import Foundation
import Testing
import Hummingbird
import HummingbirdTesting
import NIOCore
import GalleryCore
import GalleryServer
import StoreTestSupport

/// Requests that cannot be carried out are refused with a JSON error naming the problem, and
/// change nothing.
@Suite struct BadInputTests {
    /// PostgreSQL's text cannot hold U+0000 (SQLite's can): a name or title with one — anyone can
    /// send one to sign-in — was a 500 "database error: 22021: invalid byte sequence…". It is a
    /// client's mistake, answered as one, and nothing is written.
    @Test(arguments: Backend.tested) func aNULCharacterInTextIsRefusedNotA500(_ backend: Backend) async throws {
        let server = try await makeServer(backend)
        try await server.test(.router) { client in
            _ = try await client.newGallery("Kept")
            let before = try await server.store.listGalleries().count
            let made = try await client.execute(uri: "/api/galleries", method: .post, body: ByteBuffer(string: #"{"name": "a\u0000b"}"#))
            let login = try await client.execute(uri: "/api/login", method: .post, body: ByteBuffer(string: #"{"name": "a\u0000b", "password": "x"}"#))
            for answer in [made, login] {
                #expect(answer.status.code < 500, "\(answer.status): \(String(buffer: answer.body))")
                if backend == .postgres {
                    #expect(answer.status == .unprocessableContent && message(answer).contains("U+0000"), "\(String(buffer: answer.body))")
                }
            }
            if backend == .postgres { #expect(try await server.store.listGalleries().count == before, "nothing was written") }
            // The connection is not left in an aborted transaction: the next write goes through.
            _ = try await client.newGallery("After")
        }
    }

    /// A NUL in the path cut the file name short where the page's files are served:
    /// /index.html%00.js was index.html served as JavaScript (the attacker review of session 27).
    @Test func aNULInThePathIsRefused() async throws {
        let server = try await makeServer { c in
            try? FileManager.default.createDirectory(at: c.webFolder, withIntermediateDirectories: true)
            try? Data("<!doctype html><title>page</title>".utf8).write(to: c.webFolder.appendingPathComponent("index.html"))
        }
        try await server.test(.router) { client in
            for uri in ["/index.html%00.js", "/index.html%00", "/api/galleries%00"] {
                let r = try await client.execute(uri: uri, method: .get)
                #expect(r.status == .badRequest, "\(uri): \(r.status)")
                #expect(message(r) == "the path holds a NUL character")
            }
            #expect(try await client.execute(uri: "/index.html", method: .get).status == .ok)
        }
    }

    @Test func theNULCheckReadsEveryWayOfWritingIt() {
        for path in ["%00", "/a%00", "/%%00", "/%0%00", "/a%000", "/a\u{0}b", "/%00.js"] {
            #expect(RequestGuardProbe.refusesPath(path), "\(path)")
        }
        for path in ["/", "/%0", "/%0a", "/%20", "/a%30", "/0%0/0", "/%2500", "/100%"] {
            #expect(!RequestGuardProbe.refusesPath(path), "\(path)")
        }
    }

    @Test func ambiguousDestinationsAreRefusedNotGuessed() async throws {
        let server = try await makeServer()
        let start = try await seeded(server)
        let g = start.gallery.id
        let ids = start.sections[0].items.map(\.id)
        let s1 = start.sections[1].id
        try await server.test(.router) { client in
            let m1 = try await client.error(.post, "/api/galleries/\(g)/batch",
                                            ops(#"{"op": "move", "items": [\#(ids[0])], "to": {"before": \#(ids[2]), "section": \#(s1)}}"#), status: .badRequest)
            #expect(m1.contains("destination names more than one place (\"before\", \"section\")"), "\(m1)")
            let m2 = try await client.error(.post, "/api/galleries/\(g)/batch",
                                            ops(#"{"op": "copy", "items": [\#(ids[0])], "to": {"index": 2}}"#), status: .badRequest)
            #expect(m2.contains("\"index\" needs \"section\""), "\(m2)")
            let m3 = try await client.error(.post, "/api/galleries/\(g)/urls",
                                            #"{"url": "http://example.com/a.jpg", "to": {"before": \#(ids[1]), "after": \#(ids[2])}}"#, status: .badRequest)
            #expect(m3.contains("more than one place"))
            let r4 = try await client.execute(uri: "/api/galleries/\(g)/uploads?before=\(ids[1])&section=\(s1)", method: .post,
                                              headers: [.contentType: "multipart/form-data; boundary=gallery-test-boundary"],
                                              body: multipart([("a.jpg", [1, 2, 3])]))
            #expect(r4.status == .badRequest)
            #expect(String(buffer: r4.body).contains("query names more than one place (before, section)"))
            #expect(try await client.snapshot(g) == start, "nothing changed")
        }
    }

    /// Issue 15's limits: a batch naming more items than the server takes (over all its
    /// operations) is refused with 413 and a message saying what to do; one at the limit works.
    @Test func aBatchNamingTooManyItemsIsRefusedWholeWithWhatToDo() async throws {
        let server = try await makeServer { $0.maxBatchItems = 6 }
        let start = try await seeded(server, n: 8)
        let g = start.gallery.id
        let ids = start.sections[0].items.map(\.id)
        let s1 = start.sections[1].id
        try await server.test(.router) { client in
            let list = ids.prefix(5).map(String.init).joined(separator: ", ")
            let message = try await client.error(.post, "/api/galleries/\(g)/batch",
                                                 ops(#"{"op": "move", "items": [\#(list)], "to": {"section": \#(s1)}}, {"op": "trash", "items": [\#(ids[6]), \#(ids[7])]}"#), status: .contentTooLarge)
            #expect(message == "a batch may name at most 6 items; this one names 7: send it in parts", "\(message)")
            #expect(try await client.snapshot(g) == start, "nothing changed")
            let answer: BatchAnswer = try await client.json(.post, "/api/galleries/\(g)/batch",
                                                            ops(#"{"op": "move", "items": [\#(list)], "to": {"section": \#(s1)}}, {"op": "trash", "items": [\#(ids[6])]}"#))
            #expect(answer.version == start.version + 1)
            // Operations that name no item count too: each takes the writer's time.
            let sections = Array(repeating: #"{"op": "createSection", "title": "s"}"#, count: 7).joined(separator: ", ")
            let tooMany = try await client.error(.post, "/api/galleries/\(g)/batch", ops(sections), status: .contentTooLarge)
            #expect(tooMany == "a batch may hold at most 6 operations; this one holds 7: send it in parts", "\(tooMany)")
            #expect(try await client.snapshot(g).version == start.version + 1, "nothing changed")
            let six = Array(repeating: #"{"op": "createSection", "title": "s"}"#, count: 6).joined(separator: ", ")
            let made: BatchAnswer = try await client.json(.post, "/api/galleries/\(g)/batch", ops(six))
            #expect(made.createdSections.count == 6)
        }
    }

    /// Issue 15's limits: a section deleted names its live items — it puts them all in the trash,
    /// and its rows are what holds the writer (PostgreSQL at 1M: a section of 10,000 items ~70 ms,
    /// over the 50 ms the next request may wait). Over the limit: 413 with `maxItems`, nothing
    /// written, on both backends; the client sends the section's items to the trash in parts
    /// first, and the (then empty) section's delete goes through. Items the batch names count too.
    @Test(arguments: Backend.tested) func aSectionDeleteOverTheBatchLimitIsRefusedWholeWithWhatToDo(_ backend: Backend) async throws {
        let server = try await makeServer(backend) { $0.maxBatchItems = 6 }
        let start = try await seeded(server, n: 8)
        let g = start.gallery.id
        let (s0, s1) = (start.sections[0].id, start.sections[1].id)
        let ids = start.sections[0].items.map(\.id), others = start.sections[1].items.map(\.id)
        try await server.test(.router) { client in
            let r = try await client.execute(uri: "/api/galleries/\(g)/batch", method: .post,
                                             body: ByteBuffer(string: ops(#"{"op": "deleteSection", "section": \#(s0)}"#)))
            #expect(r.status == .contentTooLarge)
            #expect(String(buffer: r.body).contains("\"maxItems\":6"), "\(String(buffer: r.body))")
            #expect(message(r) == "a batch may name at most 6 items; this one names 8 (a deleted section names the items it puts in the trash): send it in parts",
                    "\(message(r))")
            // Two of the other section's items trashed beside a delete of five: 7 over 6.
            _ = try await client.error(.post, "/api/galleries/\(g)/batch",
                                       ops(#"{"op": "trash", "items": [\#(others[0]), \#(others[1])]}, {"op": "trash", "items": [\#(ids[0])]}, {"op": "deleteSection", "section": \#(s0)}"#),
                                       status: .contentTooLarge)
            #expect(try await client.snapshot(g) == start, "nothing changed")
            // In parts: two items to the trash, then the section with its six others (6 of 6).
            let part: BatchAnswer = try await client.json(.post, "/api/galleries/\(g)/batch", ops(#"{"op": "trash", "items": [\#(ids[0]), \#(ids[1])]}"#))
            let done: BatchAnswer = try await client.json(.post, "/api/galleries/\(g)/batch", ops(#"{"op": "deleteSection", "section": \#(s0)}"#))
            #expect(part.version == start.version + 1 && done.version == start.version + 2)
            let after = try await client.snapshot(g)
            #expect(after.sections.map(\.id) == [s1] && after.sections[0].items.map(\.id) == others)
            let trash: [ItemJSON] = try await client.json(.get, "/api/galleries/\(g)/trash")
            #expect(Set(trash.map(\.id)) == Set(ids))
        }
    }

    /// Issue 15's limits at 1M: past `batchLimitFullUpTo` items the limit shrinks in proportion
    /// (a batch's writer time grows with the sections' size), never under 100; the 413 names the
    /// gallery's own limit, and a smaller gallery on the same server keeps the full one.
    @Test func aVeryBigGalleryTakesSmallerBatches() async throws {
        var c = ServerConfiguration()
        c.maxBatchItems = 1_000
        #expect(c.batchLimit(itemCount: 100_000) == 1_000)
        #expect(c.batchLimit(itemCount: 500_000) == 1_000)
        #expect(c.batchLimit(itemCount: 1_000_000) == 500)
        #expect(c.batchLimit(itemCount: 2_000_000) == 250)
        #expect(c.batchLimit(itemCount: 50_000_000) == 100)
        c.maxBatchItems = 40
        #expect(c.batchLimit(itemCount: 50_000_000) == 40, "never over the configured limit")

        // Over HTTP: fullUpTo 6; a gallery of 12 items takes 400 × 6 / 12 = 200, one of 4 takes 400.
        let server = try await makeServer { $0.maxBatchItems = 400; $0.batchLimitFullUpTo = 6 }
        let big = try await seeded(server, n: 6), small = try await seeded(server, n: 2)
        @Sendable func trash(_ n: Int) -> String {
            ops(#"{"op": "trash", "items": [\#((0..<n).map { String(900_000 + $0) }.joined(separator: ", "))]}"#)
        }
        try await server.test(.router) { client in
            let r = try await client.execute(uri: "/api/galleries/\(big.gallery.id)/batch", method: .post, body: ByteBuffer(string: trash(201)))
            #expect(r.status == .contentTooLarge)
            #expect(String(buffer: r.body).contains("\"maxItems\":200"), "\(String(buffer: r.body))")
            #expect(String(buffer: r.body).contains("a batch may name at most 200 items; this one names 201"))
            // At its limit the batch is looked at (and refused for its unknown ids, not its size).
            let at = try await client.execute(uri: "/api/galleries/\(big.gallery.id)/batch", method: .post, body: ByteBuffer(string: trash(200)))
            #expect(at.status == .notFound, "\(at.status)")
            let smallAnswer = try await client.execute(uri: "/api/galleries/\(small.gallery.id)/batch", method: .post, body: ByteBuffer(string: trash(400)))
            #expect(smallAnswer.status == .notFound, "the small gallery keeps the full limit: \(smallAnswer.status)")
            #expect(try await client.snapshot(big.gallery.id) == big, "nothing changed")
        }
    }

    @Test func impossibleIndicesAndUnknownIdsNameTheProblem() async throws {
        let server = try await makeServer()
        let start = try await seeded(server)
        let g = start.gallery.id
        let ids = start.sections[0].items.map(\.id)
        let s0 = start.sections[0].id
        try await server.test(.router) { client in
            let cases: [(String, HTTPResponse.Status, String)] = [
                (#"{"op": "move", "items": [\#(ids[0])], "to": {"section": \#(s0), "index": 4}}"#, .unprocessableContent, "index 4 is out of range 0...3"),
                (#"{"op": "move", "items": [\#(ids[0])], "to": {"section": \#(s0), "index": -1}}"#, .unprocessableContent, "index -1 is out of range"),
                (#"{"op": "moveSection", "section": \#(s0), "index": 2}"#, .unprocessableContent, "section index 2 is out of range 0..<2"),
                (#"{"op": "createSection", "title": "x", "index": 9}"#, .unprocessableContent, "section index 9 is out of range 0...2"),
                (#"{"op": "swap", "a": \#(ids[0]), "b": 99999}"#, .notFound, "unknown item 99999"),
                (#"{"op": "move", "items": [\#(ids[0])], "to": {"section": 4242}}"#, .notFound, "unknown section 4242"),
                (#"{"op": "move", "items": [\#(ids[0])], "to": {"after": \#(ids[0])}}"#, .unprocessableContent, "is one of the items being placed"),
                (#"{"op": "teleport", "items": [1]}"#, .badRequest, "unknown op \"teleport\""),
            ]
            for (op, status, text) in cases {
                let message = try await client.error(.post, "/api/galleries/\(g)/batch", ops(op), status: status)
                #expect(message.contains(text), "\(op): \(message)")
            }
            // Upload to an impossible place: refused before the body is stored.
            let r = try await client.execute(uri: "/api/galleries/\(g)/uploads?section=\(s0)&index=7", method: .post,
                                             headers: [.contentType: "multipart/form-data; boundary=gallery-test-boundary"],
                                             body: multipart([("a.jpg", [1, 2, 3])]))
            #expect(r.status == .unprocessableContent)
            #expect(String(buffer: r.body).contains("index 7 is out of range 0...4"))
            #expect(try await client.snapshot(g) == start, "nothing changed")
            let tmp = server.store.files.root.appendingPathComponent("tmp")
            #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.path).isEmpty, "no stray upload file")
        }
    }

    @Test func duplicateTakesAnOptionalBodyButRefusesAMalformedOne() async throws {
        let server = try await makeServer()
        try await server.test(.router) { client in
            let g = try await client.newGallery("Original")
            let plain: GalleryInfo = try await client.json(.post, "/api/galleries/\(g.gallery.id)/duplicate", status: .created)
            #expect(plain.name == "Original copy")
            let message = try await client.error(.post, "/api/galleries/\(g.gallery.id)/duplicate", #"{"name": 5}"#, status: .badRequest)
            #expect(message.contains("name"), "\(message)")
            let list: [GalleryInfo] = try await client.json(.get, "/api/galleries")
            #expect(list.map(\.name) == ["Original", "Original copy"], "the malformed request made no copy")
        }
    }
}
