import Testing
import Foundation
import GridEngine
import GalleryCore
@testable import GalleryStore
import StoreTestSupport

/// Issue 15.2: a gallery's columns at a newer version are made from older columns and what
/// changed since (the live order and the changed items' rows), and are exactly what a read of
/// the whole gallery gives — after every kind of change.
@Suite struct ColumnsUpdateTests {
    @Test(arguments: Backend.tested) func updatedColumnsEqualAFullReadAfterEveryKindOfChange(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let (g, sections) = try await makeGallery(store, sections: 3, perSection: 6)
        var rng = SeededGenerator(seed: 15)
        var old = try await store.columns(g.id)
        var checked = 0
        for round in 0..<60 {
            let snap = try await store.snapshot(g.id)
            let live = snap.sections.flatMap(\.items)
            let ids = live.map(\.id)
            let sectionIds = snap.sections.map(\.id)
            func pick() -> Int64 { ids[Int(rng.next() % UInt64(ids.count))] }
            func section() -> Int64 { sectionIds[Int(rng.next() % UInt64(sectionIds.count))] }
            switch rng.next() % 11 {
            case 0: _ = try await store.apply(gallery: g.id, [.move(items: [pick()], to: .index(section: section(), index: 0))])
            case 1: _ = try await store.apply(gallery: g.id, [.move(items: Array(Set([pick(), pick()])), to: .end(section: section()))])
            case 2: _ = try await store.apply(gallery: g.id, [.copy(items: [pick()], to: .end(section: section()))])
            case 3:
                let a = pick(), b = pick()
                if a != b { _ = try await store.apply(gallery: g.id, [.swap(a, b)]) }
            case 4:
                let t = pick()
                _ = try await store.apply(gallery: g.id, [.trash(items: [t])])
                if rng.next() % 2 == 0 { _ = try await store.apply(gallery: g.id, [.restore(items: [t])]) }
            case 5: _ = try await store.apply(gallery: g.id, [.renameItem(pick(), title: "renamed \(round) ✓")])
            case 6: _ = try await store.apply(gallery: g.id, [.insert([NewItem(title: "new \(round)")], at: .index(section: section(), index: 0))], payload: "upload")
            case 7:
                if let p = live.first(where: { $0.state == .pending }) {
                    let outcome: IngestOutcome = rng.next() % 2 == 0
                        ? .ready(hash: String(repeating: "a", count: 64), width: 300, height: 200) : .failed(reason: "HTTP 404")
                    _ = try await store.apply(gallery: g.id, [.finish(item: p.id, outcome)], payload: "finish")
                }
            case 8: _ = try await store.apply(gallery: g.id, [.renameSection(section(), title: "Section \(round)")])
            case 9:
                let created = try await store.apply(gallery: g.id, [.createSection(title: "New \(round)", index: 0)]).createdSections[0]
                _ = try await store.apply(gallery: g.id, [.move(items: [pick()], to: .end(section: created))])
            default:
                if sectionIds.count > 3, let s = sectionIds.last, !sections.contains(s) {
                    _ = try await store.apply(gallery: g.id, [.deleteSection(s)])
                } else {
                    _ = try await store.renameGallery(g.id, name: "Gallery \(round)")
                }
            }
            // Sometimes several versions pile up before the columns are brought up to date.
            guard round % 3 != 0 else { continue }
            let full = try await store.columns(g.id)
            let updated = try #require(try await store.columns(g.id, updating: old), "round \(round)")
            #expect(updated == full, "round \(round): updated from version \(old.gallery.version) to \(full.gallery.version)")
            old = updated
            checked += 1
        }
        #expect(checked == 40)
    }

    @Test(arguments: Backend.tested) func columnsOutsideTheWindowAreNotUpdated(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend, historyEvery: shortHistory)
        let (g, _) = try await makeGallery(store, sections: 2, perSection: 4)
        let old = try await store.columns(g.id)
        let ids = try await store.snapshot(g.id).sections[0].items.map(\.id)
        let total = Int(store.historyEvery) * (LiveGallery.maxCheckpoints + 1)
        for k in 0..<total { _ = try await store.apply(gallery: g.id, [.swap(ids[k % 2], ids[2 + k % 2])]) }
        #expect(try await store.columns(g.id, updating: old) == nil, "older than the catch-up window: read the gallery")
        // Columns that do not match the history (a tampered content version) are refused, not patched.
        var recent = try await store.columns(g.id)
        _ = try await store.apply(gallery: g.id, [.swap(ids[0], ids[3])])
        recent.contentVersions[0] &+= 7
        #expect(try await store.columns(g.id, updating: recent) == nil)
    }

    @Test func idPositionsDenseAndSparse() {
        let dense = IDPositions([5, 3, 4, 9])
        #expect(dense.dense && dense[9] == 3 && dense[3] == 1 && dense[6] == nil && dense[2] == nil && dense[10] == nil)
        let sparse = IDPositions([1, 10_000_000, 5])
        #expect(!sparse.dense && sparse[10_000_000] == 1 && sparse[5] == 2 && sparse[6] == nil)
        #expect(IDPositions([])[1] == nil)
    }
}
