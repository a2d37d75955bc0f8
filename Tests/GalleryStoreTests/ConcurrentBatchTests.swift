import Testing
import Foundation
import GridEngine
import GalleryCore
@testable import GalleryStore
import StoreTestSupport

/// Issue 15: many batches at once on one gallery — each its own version with its own answer, a
/// refused one changes nothing, single moves made in place — and memory, rows, the live stream
/// and catch-up agree afterwards.
@Suite struct ConcurrentBatchTests {
    @Test(arguments: Backend.tested) func concurrentBatchesEachGetTheirOwnVersionAndAnswer(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let (g, _) = try await makeGallery(store, sections: 3, perSection: 40)
        let start = try await store.snapshot(g.id)
        let ids = start.sections.flatMap(\.items).map(\.id)
        let sections = start.sections.map(\.id)
        let (stream, cancel) = try await store.subscribe(gallery: g.id, since: start.version)

        enum Kind: Sendable { case move, stale, unknown, copy }
        let n = 240
        var rng = SeededGenerator(seed: 15)
        let plan: [(Kind, Int64, Int64)] = (0..<n).map { k in
            let kind: Kind = k % 24 == 5 ? .stale : k % 24 == 11 ? .unknown : k % 24 == 17 ? .copy : .move
            return (kind, ids.randomElement(using: &rng)!, sections.randomElement(using: &rng)!)
        }
        let results = await withTaskGroup(of: (Kind, Result<BatchResult, any Error>).self) { group in
            for (kind, item, section) in plan {
                group.addTask {
                    do {
                        switch kind {
                        case .move: return (kind, .success(try await store.apply(gallery: g.id, [.move(items: [item], to: .end(section: section))])))
                        case .copy: return (kind, .success(try await store.apply(gallery: g.id, [.copy(items: [item], to: .index(section: section, index: 0))])))
                        case .stale: return (kind, .success(try await store.apply(gallery: g.id, baseVersion: start.version, [.move(items: [item], to: .end(section: section))])))
                        case .unknown: return (kind, .success(try await store.apply(gallery: g.id, [.move(items: [9_999_999], to: .end(section: section))])))
                        }
                    } catch { return (kind, .failure(error)) }
                }
            }
            var out: [(Kind, Result<BatchResult, any Error>)] = []
            for await r in group { out.append(r) }
            return out
        }
        var versions: [Int64] = []
        for (kind, result) in results {
            switch (kind, result) {
            case (.move, .success(let r)), (.copy, .success(let r)):
                versions.append(r.version)
                #expect(r.changes.fromVersion == r.version - 1 && r.changes.toVersion == r.version)
            case (.stale, .failure(let e)):
                guard case StoreError.stale = e else { Issue.record("stale batch answered \(e)"); continue }
            case (.unknown, .failure(let e)):
                guard case StoreError.itemNotFound(9_999_999) = e else { Issue.record("unknown item answered \(e)"); continue }
            default:
                Issue.record("\(kind) answered \(result)")
            }
        }
        let committed = n - n / 24 * 2
        #expect(versions.count == committed)
        #expect(versions.sorted() == Array(start.version + 1 ... start.version + Int64(committed)), "gap-free, one version each")

        // The stream carried every version once, in order; replayed, it arrives at the rows.
        var shown = try Snapshot(gallery: start)
        var seen: [Int64] = []
        for await event in stream {
            guard case let .changes(c) = event else { Issue.record("a snapshot on the stream"); break }
            #expect(c.fromVersion == (seen.last ?? start.version))
            try replay(c, on: &shown)
            seen.append(c.toVersion)
            if seen.count == committed { break }
        }
        cancel()
        let rows = try Snapshot(gallery: try await store.snapshot(g.id))
        #expect(shown == rows)
        let live = try await store.database.writeWithoutTransaction { db in try store.current(db, g.id).1 }
        #expect(live == rows, "the live snapshot is the rows")
        var caught = try Snapshot(gallery: start)
        try replay(try #require(try await store.changes(gallery: g.id, since: start.version)), on: &caught)
        #expect(caught == rows)
    }
}
