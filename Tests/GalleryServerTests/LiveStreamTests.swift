import Foundation
import Testing
import AsyncHTTPClient
import Hummingbird
import HummingbirdTesting
import NIOCore
import GridEngine
import GalleryCore
import GalleryServer
import StoreTestSupport

func post(_ port: Int, _ path: String, _ body: String) async throws -> (UInt, Data) {
    var request = HTTPClientRequest(url: "http://localhost:\(port)\(path)")
    request.method = .POST
    request.headers.add(name: "Content-Type", value: "application/json")
    request.headers.add(name: "Authorization", value: testOwnerAuthorization)
    request.body = .bytes(ByteBuffer(string: body))
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
    let bytes = try await response.body.collect(upTo: 16 << 20)
    return (response.status.code, Data(bytes.readableBytesView))
}

/// On SQLite and on PostgreSQL (a real server each time: HTTP, the live stream, ingestion).
@Suite(.serialized) struct LiveStreamTests {
    @Test(arguments: Backend.tested) func aReconnectingClientGetsTheStagedDiffNotAReload(_ backend: Backend) async throws {
        let server = try await makeServer(backend)
        let start = try await seeded(server, n: 5)
        let g = start.gallery.id
        let ids = start.sections.flatMap { $0.items.map(\.id) }
        try await server.test(.live) { client in
            let port = try #require(client.port)
            let live = try StreamReplayer(start: start)
            live.connect(port: port, gallery: g)
            for k in 0..<3 {
                let (status, _) = try await post(port, "/api/galleries/\(g)/batch", ops(#"{"op": "swap", "a": \#(ids[k]), "b": \#(ids[9 - k])}"#))
                #expect(status == 200)
            }
            #expect(await live.wait(for: start.version + 3))
            live.disconnect()
            // Offline: three more versions, then reconnect from the old version.
            for k in 0..<3 {
                let (status, _) = try await post(port, "/api/galleries/\(g)/batch", ops(#"{"op": "trash", "items": [\#(ids[k])]}"#))
                #expect(status == 200)
            }
            let events = live.eventCount
            live.connect(port: port, gallery: g)
            #expect(await live.wait(for: start.version + 6))
            #expect(live.eventCount == events + 1, "one catch-up event, not one per version and not a snapshot")
            #expect(live.snapshot == (try Snapshot(gallery: try await client.snapshot(g))))
            #expect(live.problems.isEmpty, "\(live.problems)")
            live.disconnect()
        }
    }

    @Test(arguments: Backend.tested) func pendingToReadyTransitionsArriveOnTheStream(_ backend: Backend) async throws {
        let images = try await TestImageServer.start()
        defer { Task { await images.stop() } }
        let server = try await makeServer(backend)
        try await server.test(.live) { client in
            let port = try #require(client.port)
            let g = try await client.newGallery()
            let live = try StreamReplayer(start: g)
            live.connect(port: port, gallery: g.gallery.id)
            let item = try await client.dropURL(g.gallery.id, "\(images.base)/slow.jpg?ms=300")
            let done = try await client.settled(item.id)
            #expect(await live.wait(for: try await client.snapshot(g.gallery.id).version))
            // Insert (version 0), then a reload to the ready item's content version.
            #expect(live.snapshot.version(of: ItemID(UInt64(item.id))) == done.version)
            live.disconnect()
        }
    }

    /// B2: four clients, 250 random operations each, on one gallery at once.
    @Test(arguments: Backend.tested) func fourClientsTimes250RandomOperationsKeepEveryItemExactlyOnce(_ backend: Backend) async throws {
        let server = try await makeServer(backend)
        let start = try await seeded(server, n: 20)
        let g = start.gallery.id
        let initialIds = Set(start.sections.flatMap { $0.items.map(\.id) })
        try await server.test(.live) { client in
            let port = try #require(client.port)
            let replayers = try (0..<4).map { _ in try StreamReplayer(start: start) }
            for r in replayers { r.connect(port: port, gallery: g) }
            let outcomes = try await withThrowingTaskGroup(of: (created: [Int64], ok: Int, refused: Int, serverErrors: [String]).self) { group in
                for (n, view) in replayers.enumerated() {
                    group.addTask {
                        var rng = SeededGenerator(seed: UInt64(100 + n))
                        var created: [Int64] = [], ok = 0, refused = 0, errors: [String] = []
                        var trashed: [Int64] = []
                        for _ in 0..<250 {
                            let body = randomBatch(view.snapshot, trashed: trashed, &rng)
                            let (status, data) = try await post(port, "/api/galleries/\(g)/batch", body)
                            if status == 200 {
                                ok += 1
                                let answer = try JSONDecoder().decode(BatchAnswer.self, from: data)
                                created += answer.createdItems
                                if body.contains("\"trash\""), let id = firstId(body) { trashed.append(id) }
                                if body.contains("\"restore\"") { trashed.removeAll { $0 == firstId(body) } }
                            } else if (400..<500).contains(status) {
                                refused += 1
                            } else {
                                errors.append("\(status): \(String(decoding: data, as: UTF8.self))")
                            }
                        }
                        return (created, ok, refused, errors)
                    }
                }
                var all: [(created: [Int64], ok: Int, refused: Int, serverErrors: [String])] = []
                for try await o in group { all.append(o) }
                return all
            }
            let final = try await client.snapshot(g)
            let trash: [ItemJSON] = try await client.json(.get, "/api/galleries/\(g)/trash")
            #expect(outcomes.allSatisfy { $0.serverErrors.isEmpty }, "\(outcomes.flatMap(\.serverErrors).prefix(3))")
            let applied = outcomes.map(\.ok).reduce(0, +)
            #expect(applied > 600, "most random operations apply (\(applied))")
            #expect(final.version == start.version + Int64(applied), "one version per applied batch")
            // Every item exactly once: live and trashed are disjoint and together are all items ever created.
            let live = final.sections.flatMap { $0.items.map(\.id) }
            #expect(Set(live).count == live.count)
            #expect(Set(live).isDisjoint(with: trash.map(\.id)))
            let created = outcomes.flatMap(\.created)
            #expect(Set(live).union(trash.map(\.id)) == initialIds.union(created))
            // Every client's replay of the stream equals the final snapshot.
            let target = try Snapshot(gallery: final)
            for (n, r) in replayers.enumerated() {
                #expect(await r.wait(for: final.version), "client \(n) reached \(r.version) of \(final.version)")
                #expect(r.snapshot == target, "client \(n)")
                #expect(r.problems.isEmpty, "client \(n): \(r.problems.prefix(3))")
                r.disconnect()
            }
        }
    }
}

func firstId(_ body: String) -> Int64? {
    guard let r = body.range(of: "\"items\": [") else { return nil }
    return Int64(body[r.upperBound...].prefix { $0.isNumber })
}

/// One random batch from what this client currently sees (it may be stale: refusals are expected).
func randomBatch(_ view: Snapshot, trashed: [Int64], _ rng: inout SeededGenerator) -> String {
    let all = view.allItemIDs.map { Int64($0.rawValue) }
    func pick() -> Int64 { all.isEmpty ? 1 : all[Int(rng.next() % UInt64(all.count))] }
    let s = view.sectionCount == 0 ? 0 : Int(rng.next() % UInt64(view.sectionCount))
    let section = view.sectionCount == 0 ? 1 : Int64(view.sectionID(at: s).rawValue)
    let count = view.sectionCount == 0 ? 0 : view.itemCount(inSection: s)
    let op: String
    switch rng.next() % 12 {
    case 0, 1, 2, 3: op = #"{"op": "move", "items": [\#(pick())], "to": {"section": \#(section), "index": \#(Int(rng.next() % UInt64(count + 1)))}}"#
    case 4: op = #"{"op": "move", "items": [\#(pick()), \#(pick())], "to": {"after": \#(pick())}}"#
    case 5, 6: op = #"{"op": "swap", "a": \#(pick()), "b": \#(pick())}"#
    case 7: op = #"{"op": "copy", "items": [\#(pick())], "to": {"before": \#(pick())}}"#
    case 8: op = #"{"op": "trash", "items": [\#(pick())]}"#
    case 9: op = trashed.isEmpty ? #"{"op": "renameItem", "item": \#(pick()), "title": "r"}"# : #"{"op": "restore", "items": [\#(trashed[Int(rng.next() % UInt64(trashed.count))])]}"#
    case 10: op = #"{"op": "renameItem", "item": \#(pick()), "title": "t\#(rng.next() % 1000)"}"#
    default: op = #"{"op": "moveSection", "section": \#(section), "index": \#(Int(rng.next() % UInt64(max(1, view.sectionCount))))}"#
    }
    return #"{"operations": [\#(op)]}"#
}
