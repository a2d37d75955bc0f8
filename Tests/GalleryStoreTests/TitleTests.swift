import Testing
import Foundation
import GalleryCore
@testable import GalleryStore
import StoreTestSupport

/// Titles and names as every write takes them (the attacker review of session 27): an import
/// checks its titles as a batch does, and U+0000 is refused everywhere instead of cutting the
/// text short without a word.
@Suite struct TitleTests {
    @Test(arguments: Backend.tested) func titlesAndNamesAreCheckedTheSameByBatchesAndImports(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let long = String(repeating: "t", count: 501)
        let withNUL = "ab\u{0000}cd"
        for (sections, reason) in [([(title: long, items: [NewItem]())], "title is longer than 500 characters"),
                                   ([(title: "ok", items: [NewItem(title: long, sourceURL: "https://example.com/a.jpg")])], "title is longer than 500 characters"),
                                   ([(title: withNUL, items: [NewItem]())], "title must not contain U+0000")] {
            await #expect(throws: StoreError.invalid(reason)) { try await store.importGallery(name: "Imported", sections: sections) }
        }
        await #expect(throws: StoreError.invalid("name must not contain U+0000")) { try await store.importGallery(name: withNUL, sections: []) }
        #expect(try await store.listGalleries().isEmpty, "nothing of a refused import is written")
        let (g, _) = try await store.importGallery(name: "Fine", sections: [(title: String(repeating: "s", count: 500), items: [])])
        let section = try await store.snapshot(g.id).sections[0].id
        await #expect(throws: StoreError.invalid("title must not contain U+0000")) {
            try await store.apply(gallery: g.id, [.renameSection(section, title: withNUL)])
        }
        await #expect(throws: StoreError.invalid("title is longer than 500 characters")) {
            try await store.apply(gallery: g.id, [.renameSection(section, title: long)])
        }
        // Text that is allowed comes back byte for byte.
        let odd = "tab\there, nbsp\u{00A0}, emoji 🙂, rtl \u{202E}x"
        _ = try await store.apply(gallery: g.id, [.renameSection(section, title: odd)])
        #expect(try await store.snapshot(g.id).sections[0].title == odd)
    }
}
