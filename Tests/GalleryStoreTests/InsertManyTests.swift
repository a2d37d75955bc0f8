import Testing
import Foundation
import GalleryCore
@testable import GalleryStore
import StoreTestSupport

/// New items go in `ItemRows.rowsPerInsert` rows to a statement; the ids returned are told apart
/// by their ranks, so the answer, the rows and the live order agree across statements.
@Suite struct InsertManyTests {
    @Test(arguments: Backend.tested) func manyItemsKeepTheirOrderAndIds(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let g = try await store.createGallery(name: "Many")
        let section = try await store.snapshot(g.id).sections[0].id
        let n = ItemRows.rowsPerInsert * 2 + 37
        let titles = (0..<n).map { "t\($0)" }
        let r = try await store.apply(gallery: g.id, [.insert(titles.map { NewItem(title: $0) }, at: .end(section: section))], payload: "test")
        #expect(r.createdItems.count == n)
        // Each id answered is the row of its title.
        for k in [0, 1, ItemRows.rowsPerInsert - 1, ItemRows.rowsPerInsert, n - 1] {
            #expect(try await store.item(r.createdItems[k]).title == titles[k])
        }
        #expect(try await store.snapshot(g.id).sections[0].items.map(\.id) == r.createdItems)
        // The live order is the rows' order: a move places by its neighbours there.
        _ = try await store.apply(gallery: g.id, [.move(items: [r.createdItems[0]], to: .index(section: section, index: n - 1))])
        _ = try await store.apply(gallery: g.id, [.move(items: [r.createdItems[n - 1]], to: .index(section: section, index: 0))])
        let expected = [titles[n - 1]] + titles[1..<(n - 1)] + [titles[0]]
        #expect(try await store.snapshot(g.id).sections[0].items.map(\.title) == expected)
        // Inserted between two items, in several statements too.
        let more = (0..<(ItemRows.rowsPerInsert + 3)).map { "m\($0)" }
        _ = try await store.apply(gallery: g.id, [.insert(more.map { NewItem(title: $0) }, at: .index(section: section, index: 1))], payload: "test")
        #expect(try await store.snapshot(g.id).sections[0].items.map(\.title) == [expected[0]] + more + expected[1...])
    }
}
