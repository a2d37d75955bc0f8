import Foundation
import Testing
import Hummingbird
import HummingbirdTesting
import GridEngine
import GalleryCore
import GalleryStore
import GalleryServer

/// A gallery of two sections with `n` ready items each, titled "s-i" (inserted through the store, images not needed).
func seeded(_ server: GalleryServer, n: Int = 4) async throws -> GallerySnapshotJSON {
    let g = try await server.store.createGallery(name: "Seeded")
    let first = try await server.store.snapshot(g.id).sections[0].id
    let second = try await server.store.apply(gallery: g.id, [.createSection(title: "Two", index: nil)]).createdSections[0]
    for (s, id) in [first, second].enumerated() {
        let items = (0..<n).map { NewItem(title: "\(s)-\($0)", width: 400 + $0 * 100, height: 300, state: .ready) }
        _ = try await server.store.apply(gallery: g.id, [.insert(items, at: .end(section: id))], payload: "seed")
    }
    return try await server.store.snapshot(g.id)
}

@Suite struct BatchRouteTests {
    @Test func everyOperationKindAppliesAndAnswersWithStagedChanges() async throws {
        let server = try await makeServer()
        let start = try await seeded(server)
        let g = start.gallery.id
        let (s0, s1) = (start.sections[0].id, start.sections[1].id)
        let ids = start.sections.map { $0.items.map(\.id) }
        try await server.test(.router) { client in
            var shown = try Snapshot(gallery: start)
            var version = start.version
            func run(_ body: String, _ check: ([[String]]) -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
                let r: BatchAnswer = try await client.json(.post, "/api/galleries/\(g)/batch", ops(body, base: version), sourceLocation: sourceLocation)
                #expect(r.version == version + 1, sourceLocation: sourceLocation)
                version = r.version
                for stage in r.changes.stages { try shown.apply(stage.batchUpdate!) }
                let now = try await client.snapshot(g)
                #expect(shown == (try Snapshot(gallery: now)), "staged changes replay to the new snapshot", sourceLocation: sourceLocation)
                #expect(check(titles(now)), "\(titles(now))", sourceLocation: sourceLocation)
            }
            try await run(#"{"op": "move", "items": [\#(ids[0][0])], "to": {"section": \#(s1), "index": 1}}"#) { $0 == [["0-1", "0-2", "0-3"], ["1-0", "0-0", "1-1", "1-2", "1-3"]] }
            try await run(#"{"op": "swap", "a": \#(ids[0][1]), "b": \#(ids[1][3])}"#) { $0 == [["1-3", "0-2", "0-3"], ["1-0", "0-0", "1-1", "1-2", "0-1"]] }
            try await run(#"{"op": "copy", "items": [\#(ids[0][2]), \#(ids[0][3])], "to": {"before": \#(ids[1][0])}}"#) { $0[1].prefix(3) == ["0-2", "0-3", "1-0"] }
            try await run(#"{"op": "trash", "items": [\#(ids[1][1]), \#(ids[1][2])]}"#) { !$0[1].contains("1-1") && !$0[1].contains("1-2") }
            try await run(#"{"op": "restore", "items": [\#(ids[1][2])]}"#) { $0[1].contains("1-2") }
            try await run(#"{"op": "purge", "items": [\#(ids[1][1])]}"#) { !$0.flatMap { $0 }.contains("1-1") }
            try await run(#"{"op": "renameItem", "item": \#(ids[0][2]), "title": "Cherry"}"#) { $0[0] == ["1-3", "Cherry", "0-3"] }
            try await run(#"{"op": "createSection", "title": "Three", "index": 0}"#) { $0.count == 3 && $0[0].isEmpty }
            try await run(#"{"op": "moveSection", "section": \#(s0), "index": 2}"#) { $0.count == 3 && $0[2] == ["1-3", "Cherry", "0-3"] }
            try await run(#"{"op": "renameSection", "section": \#(s1), "title": "Second"}"#) { $0.count == 3 }
            try await run(#"{"op": "deleteSection", "section": \#(s0)}"#) { $0.count == 2 }
            let trash: [ItemJSON] = try await client.json(.get, "/api/galleries/\(g)/trash")
            #expect(Set(trash.map(\.title)) == ["1-3", "Cherry", "0-3"])
            let snap = try await client.snapshot(g)
            #expect(snap.sections.map(\.title) == ["Three", "Second"])
        }
    }

    @Test func aStaleClientGetsA409WithWhatChanged() async throws {
        let server = try await makeServer()
        let start = try await seeded(server)
        let g = start.gallery.id
        let ids = start.sections[0].items.map(\.id)
        try await server.test(.router) { client in
            let _: BatchAnswer = try await client.json(.post, "/api/galleries/\(g)/batch", ops(#"{"op": "move", "items": [\#(ids[0])], "to": {"after": \#(ids[3])}}"#, base: start.version))
            let r = try await client.execute(uri: "/api/galleries/\(g)/batch", method: .post,
                                             body: ByteBuffer(string: ops(#"{"op": "trash", "items": [\#(ids[1])]}"#, base: start.version)))
            #expect(r.status == .conflict)
            struct Conflict: Decodable {
                struct Inner: Decodable { var message: String; var currentVersion: Int64; var changes: ChangesJSON }
                var error: Inner
            }
            let c = try JSONDecoder().decode(Conflict.self, from: Data(r.body.readableBytesView))
            #expect(c.error.currentVersion == start.version + 1)
            #expect(c.error.message.contains("stale"))
            var s = try Snapshot(gallery: start)
            for stage in c.error.changes.stages { try s.apply(stage.batchUpdate!) }
            #expect(s == (try Snapshot(gallery: try await client.snapshot(g))))
            // Nothing of the refused batch was applied.
            #expect(try await client.snapshot(g).sections[0].items.count == 4)
        }
    }

    @Test func impossibleRequestsAreRefusedAndLeaveTheGalleryAsItWas() async throws {
        let server = try await makeServer()
        let start = try await seeded(server)
        let g = start.gallery.id
        let s0 = start.sections[0].id
        let ids = start.sections[0].items.map(\.id)
        try await server.test(.router) { client in
            let url = "/api/galleries/\(g)/batch"
            let message1 = try await client.error(.post, url, ops(#"{"op": "move", "items": [\#(ids[0])], "to": {"section": \#(s0), "index": 7}}"#), status: .unprocessableContent)
            #expect(message1
                    == "index 7 is out of range 0...3 for section \(s0)")
            let message2 = try await client.error(.post, url, ops(#"{"op": "move", "items": [\#(ids[0])], "to": {"section": \#(s0), "index": -1}}"#), status: .unprocessableContent)
            #expect(message2.contains("out of range"))
            let message3 = try await client.error(.post, url, ops(#"{"op": "move", "items": [\#(ids[0])], "to": {"section": \#(s0)}}, {"op": "trash", "items": [999999]}"#), status: .notFound)
            #expect(message3
                    == "unknown item 999999")
            let message4 = try await client.error(.post, url, ops(#"{"op": "move", "items": [\#(ids[0])], "to": {"section": 424242}}"#), status: .notFound)
            #expect(message4 == "unknown section 424242")
            let message5 = try await client.error(.post, url, ops(#"{"op": "move", "items": [\#(ids[0])], "to": {"before": \#(ids[0])}}"#), status: .unprocessableContent)
            #expect(message5.contains("anchor"))
            let message6 = try await client.error(.post, url, ops(#"{"op": "move", "items": [\#(ids[0]), \#(ids[0])], "to": {"section": \#(s0)}}"#), status: .unprocessableContent)
            #expect(message6.contains("repeated"))
            let message7 = try await client.error(.post, url, ops(#"{"op": "swap", "a": \#(ids[0])}"#), status: .badRequest)
            #expect(message7.contains("missing \"b\""))
            let message8 = try await client.error(.post, url, ops(#"{"op": "move", "items": [\#(ids[0])], "to": {}}"#), status: .badRequest)
            #expect(message8.contains("destination needs"))
            let message9 = try await client.error(.post, url, #"{"operations": []}"#, status: .unprocessableContent)
            #expect(message9.contains("must not be empty"))
            let message10 = try await client.error(.post, url, "[1, 2", status: .badRequest)
            #expect(message10 == "malformed JSON: not valid JSON")
            let message11 = try await client.error(.post, url, ops(#"{"op": "restore", "items": [\#(ids[2])]}"#), status: .unprocessableContent)
            #expect(message11.contains("not in the trash"))
            let message12 = try await client.error(.get, "/api/galleries/\(g)/changes?since=99", status: .unprocessableContent)
            #expect(message12.contains("out of range"))
            #expect(try await client.snapshot(g) == start)
        }
    }

    @Test func changesSinceAnOldVersionAreOneStagedDiff() async throws {
        let server = try await makeServer()
        let start = try await seeded(server, n: 6)
        let g = start.gallery.id
        let ids = start.sections.flatMap { $0.items.map(\.id) }
        try await server.test(.router) { client in
            for k in 0..<5 {
                let _: BatchAnswer = try await client.json(.post, "/api/galleries/\(g)/batch",
                                                           ops(#"{"op": "move", "items": [\#(ids[k])], "to": {"after": \#(ids[11 - k])}}"#))
            }
            let answer: ChangesOrSnapshotJSON = try await client.json(.get, "/api/galleries/\(g)/changes?since=\(start.version)")
            let changes = try #require(answer.changes)
            #expect(changes.fromVersion == start.version && changes.toVersion == start.version + 5)
            var s = try Snapshot(gallery: start)
            for stage in changes.stages { try BatchUpdate.validate(stage.batchUpdate!, against: s); try s.apply(stage.batchUpdate!) }
            #expect(s == (try Snapshot(gallery: try await client.snapshot(g))))
        }
    }
}

struct ChangesOrSnapshotJSON: Decodable {
    struct Reload: Decodable { var version: Int64 }
    var changes: ChangesJSON?
    var snapshot: GallerySnapshotJSON?
    var reload: Reload?
}

/// Issue 15 (a window that reconnects after 10,000 versions): outside the catch-up window, a small
/// gallery is answered with its full snapshot, a big one with `reload` (read the columns) — never
/// hundreds of megabytes of nested JSON.
@Suite struct ChangesOutsideTheWindowTests {
    @Test func aBigGalleryOutsideTheWindowIsToldToReloadASmallOneGetsItsSnapshot() async throws {
        for (limit, big) in [(5, true), (10_000, false)] {
            let server = try await makeServer { $0.maxSnapshotFallbackItems = limit }
            let start = try await seeded(server, n: 6)
            let g = start.gallery.id
            let ids = start.sections[0].items.map(\.id)
            // Versions past the window (in process: the route is what is tested).
            let total = 2_300 // the window: eight intervals of 250 versions at this size
            for k in 0..<total { _ = try await server.store.apply(gallery: g, [.swap(ids[k % 2], ids[2 + k % 2])]) }
            let now = try await server.store.gallery(g)
            try await server.test(.router) { client in
                let answer: ChangesOrSnapshotJSON = try await client.json(.get, "/api/galleries/\(g)/changes?since=\(start.version)")
                #expect(answer.changes == nil)
                if big {
                    #expect(answer.snapshot == nil && answer.reload?.version == now.version)
                } else {
                    #expect(answer.reload == nil && answer.snapshot?.version == now.version)
                }
            }
        }
    }
}

/// The nested snapshot of a gallery too big for it is refused with where to read it instead; the
/// columns of the same gallery are served.
@Suite struct NestedSnapshotLimitTests {
    @Test func overTheLimitIs422PointingToTheColumns() async throws {
        for refused in [true, false] {
            let first = try await makeServer { _ in }
            let start = try await seeded(first, n: 6)
            let g = start.gallery.id, n = start.sections.reduce(0) { $0 + $1.items.count }
            let server = try await makeServer {
                $0.dataFolder = first.configuration.dataFolder
                $0.maxNestedSnapshotItems = refused ? n - 1 : n
            }
            try await server.test(.router) { client in
                if refused {
                    let message = try await client.error(.get, "/api/galleries/\(g)", status: .unprocessableContent)
                    #expect(message.contains("has \(n) items") && message.contains("/api/galleries/\(g)/columns"), "\(message)")
                } else {
                    #expect(try await client.snapshot(g).sections.count == start.sections.count)
                }
                try await client.execute(uri: "/api/galleries/\(g)/columns", method: .get) { r in #expect(r.status == .ok) }
            }
        }
    }
}
