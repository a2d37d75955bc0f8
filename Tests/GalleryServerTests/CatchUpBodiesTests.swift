import Foundation
import Testing
import NIOCore
import GalleryCore
import GalleryStore
@testable import GalleryServer

/// Issue 15's limit (session 15): ten windows back at the same version at once each write the
/// catch-up's 40 `changes` events of ~200 KB (1M items, 10,000 versions): one text per event, made
/// once, and one buffer that every stream writes — not ten copies.
@Suite struct CatchUpBodiesTests {
    /// `parts` chained parts of `stages` stages each (a real stage, repeated), as the store cuts a catch-up.
    func catchUp(parts: Int, stages: Int) async throws -> [ChangesJSON] {
        let server = try await makeServer()
        let store = server.store
        let g = try await store.createGallery(name: "Catch-up")
        let section = try await store.snapshot(g.id).sections[0].id
        _ = try await store.apply(gallery: g.id, [.insert([NewItem(title: "a"), NewItem(title: "b")], at: .end(section: section))], payload: "seed")
        let before = try await store.snapshot(g.id)
        _ = try await store.apply(gallery: g.id, [.move(items: [before.sections[0].items[1].id], to: .index(section: section, index: 0))])
        let stage = try #require(try await store.changes(gallery: g.id, since: before.version)?.stages.first)
        let info = try await store.changes(gallery: g.id, since: before.version)!
        let repeated = [StageJSON](repeating: stage, count: stages)
        var out: [ChangesJSON] = []
        for k in 0..<parts {
            let from = Int64(1000 + 256 * k)
            out.append(ChangesJSON(fromVersion: from, toVersion: from + 256, stages: repeated, items: [], sections: info.sections, name: info.name))
        }
        return out
    }

    static func storage(_ b: ByteBuffer) -> UnsafeRawPointer? { b.withUnsafeReadableBytes { $0.baseAddress.map(UnsafeRawPointer.init) } }

    @Test func tenWindowsAtOnceWriteOneBufferMadeOnce() async throws {
        let part = try await catchUp(parts: 1, stages: CatchUpBodies.minimumStages)[0]
        let bodies = CatchUpBodies(keep: .seconds(3600))
        let got = try await withThrowingTaskGroup(of: CatchUpBodies.Body.self) { group in
            for _ in 0..<10 { group.addTask { try await bodies.body(gallery: 7, part) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(bodies.made.load(ordering: .relaxed) == 1)
        #expect(Set(got.map { Self.storage($0.event) }).count == 1, "one storage written to every socket")
        // The event as a live stream sends it, and the JSON text within it (GET …/changes's).
        let text = try #require(part.fastJSON)
        #expect(Array(buffer: got[0].event) == Array("event: changes\nid: \(part.toVersion)\ndata: ".utf8) + text + Array("\n\n".utf8))
        #expect(Array(buffer: got[0].json) == text)
        #expect(try JSONDecoder().decode(ChangesJSON.self, from: Data(buffer: got[0].json)) == part)
    }

    /// A window that starts after the others have written all 40 parts (or falls that far behind)
    /// still finds each part made: the kept texts cover a whole catch-up (before: the last two).
    @Test func aWindowFortyPartsBehindFindsEveryPartMade() async throws {
        let parts = try await catchUp(parts: 40, stages: CatchUpBodies.minimumStages)
        let bodies = CatchUpBodies(keep: .seconds(3600)) // however slow the machine (a loaded run took 47 s; 10 s dropped them)
        var first: [UnsafeRawPointer?] = []
        for part in parts { first.append(Self.storage(try await bodies.body(gallery: 7, part).event)) }
        for _ in 0..<9 {
            var again: [UnsafeRawPointer?] = []
            for part in parts { again.append(Self.storage(try await bodies.body(gallery: 7, part).event)) }
            #expect(again == first)
        }
        #expect(bodies.made.load(ordering: .relaxed) == 40)
        // Another gallery's catch-up at the same versions is another text.
        _ = try await bodies.body(gallery: 8, parts[0])
        #expect(bodies.made.load(ordering: .relaxed) == 41)
    }

    /// The texts kept stay within `capacityBytes` (the oldest go first); a short catch-up is not kept.
    @Test func theKeptTextsStayWithinTheirBudget() async throws {
        let part = try await catchUp(parts: 1, stages: 4 * CatchUpBodies.minimumStages)[0]
        let size = try await CatchUpBodies().body(gallery: 1, part).event.readableBytes
        let bodies = CatchUpBodies(capacityBytes: 10 * size + size / 2, keep: .seconds(3600))
        let fit = 10
        for g in 1...(fit + 5) { _ = try await bodies.body(gallery: Int64(g), part) }
        #expect(bodies.made.load(ordering: .relaxed) == fit + 5)
        #expect(bodies.keptBytes <= bodies.capacityBytes && bodies.keptBytes == fit * size)
        _ = try await bodies.body(gallery: Int64(fit + 5), part) // the newest is kept
        #expect(bodies.made.load(ordering: .relaxed) == fit + 5)
        _ = try await bodies.body(gallery: 1, part) // the oldest went
        #expect(bodies.made.load(ordering: .relaxed) == fit + 6)
        var short = part
        short.stages = Array(part.stages.prefix(CatchUpBodies.minimumStages - 1))
        _ = try await bodies.body(gallery: 1, short)
        _ = try await bodies.body(gallery: 1, short)
        #expect(bodies.made.load(ordering: .relaxed) == fit + 8)
    }
}
