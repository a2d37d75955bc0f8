import Foundation
import Testing
import Hummingbird
import HummingbirdTesting
import GridEngine
import GalleryCore
import GalleryStore
import GalleryServer

/// Catch-up survives a restart, and metadata changes without item stages (gallery and section
/// renames) reach the other windows as versions of their own.
@Suite(.serialized) struct CatchUpRestartTests {
    @Test func aClientReconnectingAfterARestartGetsTheStagedDiffNotASnapshot() async throws {
        let configuration = testConfiguration()
        let start: GallerySnapshotJSON
        let live: StreamReplayer
        let offlineVersion: Int64
        do {
            let first = try await GalleryServer(configuration: configuration, logger: quietLogger)
            start = try await seeded(first, n: 5)
            let g = start.gallery.id
            let ids = start.sections.flatMap { $0.items.map(\.id) }
            live = try StreamReplayer(start: start)
            offlineVersion = try await first.test(.live) { client in
                let port = try #require(client.port)
                live.connect(port: port, gallery: g)
                for k in 0..<2 {
                    let (status, _) = try await post(port, "/api/galleries/\(g)/batch", ops(#"{"op": "swap", "a": \#(ids[k]), "b": \#(ids[9 - k])}"#))
                    #expect(status == 200)
                }
                #expect(await live.wait(for: start.version + 2))
                live.disconnect()
                // While this client is away: more versions, then the server stops.
                let (s1, _) = try await post(port, "/api/galleries/\(g)/batch", ops(#"{"op": "trash", "items": [\#(ids[3])]}"#))
                let (s2, _) = try await post(port, "/api/galleries/\(g)/batch", ops(#"{"op": "move", "items": [\#(ids[4])], "to": {"section": \#(start.sections[1].id), "index": 0}}"#))
                #expect(s1 == 200 && s2 == 200)
                return try await client.snapshot(g).version
            }
        }
        // A new process on the same data folder: nothing of the first one's memory is left.
        let second = try await GalleryServer(configuration: configuration, logger: quietLogger)
        try await second.test(.live) { client in
            let port = try #require(client.port)
            let g = start.gallery.id
            let ids = start.sections.flatMap { $0.items.map(\.id) }
            // And versions made after the restart, before the client comes back.
            let (s3, _) = try await post(port, "/api/galleries/\(g)/batch", ops(#"{"op": "renameItem", "item": \#(ids[0]), "title": "renamed"}"#))
            #expect(s3 == 200)
            let now = try await client.snapshot(g)
            #expect(now.version == offlineVersion + 1)
            let kindsBefore = live.kinds.count
            live.connect(port: port, gallery: g)
            #expect(await live.wait(for: now.version))
            #expect(Array(live.kinds.dropFirst(kindsBefore)) == ["changes"], "one catch-up diff, not a snapshot: \(live.kinds)")
            #expect(live.snapshot == (try Snapshot(gallery: now)))
            #expect(live.problems.isEmpty, "\(live.problems)")
            live.disconnect()

            // The catch-up route answers the same way from a version of the first run.
            let answer: CatchUpAnswer = try await client.json(.get, "/api/galleries/\(g)/changes?since=\(start.version + 1)")
            let changes = try #require(answer.changes, "a diff, not a snapshot")
            #expect(answer.snapshot == nil)
            #expect(changes.fromVersion == start.version + 1 && changes.toVersion == now.version)
        }
    }

    /// A client whose version is older than the window (issue 15's reconnect after 10,000
    /// versions) gets one small `reload` event naming the current version — not a full snapshot
    /// of a big gallery in the stream — and the catch-up route answers the snapshot as before.
    @Test func aClientOutsideTheWindowIsToldToReloadNotSentTheGallery() async throws {
        let configuration = testConfiguration()
        let start: GallerySnapshotJSON
        do {
            let first = try await GalleryServer(configuration: configuration, logger: quietLogger)
            start = try await seeded(first, n: 5)
            let ids = start.sections.flatMap { $0.items.map(\.id) }
            try await first.test(.live) { client in
                let port = try #require(client.port)
                for k in 0..<3 {
                    let (status, _) = try await post(port, "/api/galleries/\(start.gallery.id)/batch", ops(#"{"op": "swap", "a": \#(ids[k]), "b": \#(ids[9 - k])}"#))
                    #expect(status == 200)
                }
            }
        }
        // The history before now is gone (as after 10,000 versions: compacted behind the window).
        let store = try GalleryStore(folder: configuration.dataFolder)
        try await store.pool.write { db in try db.execute(sql: "DELETE FROM checkpoint") }
        try store.pool.close()
        let second = try await GalleryServer(configuration: configuration, logger: quietLogger)
        try await second.test(.live) { client in
            let port = try #require(client.port)
            let now = try await client.snapshot(start.gallery.id)
            #expect(now.version == start.version + 3)
            let live = try StreamReplayer(start: start)
            live.connect(port: port, gallery: start.gallery.id)
            #expect(await live.wait(kinds: 1))
            #expect(live.kinds == ["reload"], "\(live.kinds)")
            #expect(live.lastData.contains("\"version\":\(now.version)") && live.lastData.count < 200, "\(live.lastData)")
            live.disconnect()
            let answer: CatchUpAnswer = try await client.json(.get, "/api/galleries/\(start.gallery.id)/changes?since=\(start.version)")
            #expect(answer.changes == nil && answer.snapshot?.version == now.version)
        }
    }

    @Test func renamingAGalleryIsAVersionOnTheStreamAndInCatchUp() async throws {
        let server = try await makeServer()
        try await server.test(.live) { client in
            let port = try #require(client.port)
            let g = try await client.newGallery("Before")
            let live = try StreamReplayer(start: g)
            let away = try StreamReplayer(start: g)
            live.connect(port: port, gallery: g.gallery.id)
            let renamed: GalleryInfo = try await client.json(.patch, "/api/galleries/\(g.gallery.id)", #"{"name": "After"}"#)
            #expect(renamed.name == "After")
            #expect(renamed.version == g.version + 1, "a rename is a version of its own")
            #expect(await live.wait(for: renamed.version))
            #expect(live.name == "After", "the other window learns the new name")
            #expect(live.kinds.last == "changes")
            // A section rename is streamed the same way (sections carry the titles).
            let section = g.sections[0].id
            let answer: BatchAnswer = try await client.json(.post, "/api/galleries/\(g.gallery.id)/batch",
                                                            ops(#"{"op": "renameSection", "section": \#(section), "title": "Renamed section"}"#))
            #expect(answer.changes.stages.isEmpty)
            #expect(answer.changes.sections == [SectionInfoJSON(id: section, title: "Renamed section")])
            #expect(answer.changes.name == "After")
            #expect(await live.wait(for: answer.version))
            // Renaming to the same name makes no version.
            let same: GalleryInfo = try await client.json(.patch, "/api/galleries/\(g.gallery.id)", #"{"name": "After"}"#)
            #expect(same.version == answer.version)
            // A window that was away catches up with the name too.
            away.connect(port: port, gallery: g.gallery.id)
            #expect(await away.wait(for: answer.version))
            #expect(away.name == "After")
            #expect(away.kinds == ["changes"])
            // Bad names are refused and change nothing.
            let message = try await client.error(.patch, "/api/galleries/\(g.gallery.id)", #"{"name": "   "}"#, status: .unprocessableContent)
            #expect(message == "name must not be empty")
            #expect(try await client.snapshot(g.gallery.id).version == answer.version)
            _ = try await client.error(.patch, "/api/galleries/999", #"{"name": "x"}"#, status: .notFound)
            live.disconnect(); away.disconnect()
        }
    }
}

struct CatchUpAnswer: Decodable {
    var changes: ChangesJSON?
    var snapshot: GallerySnapshotJSON?
}
