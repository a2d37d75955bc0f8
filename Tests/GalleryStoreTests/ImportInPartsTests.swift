import Testing
import Foundation
import GalleryCore
@testable import GalleryStore
import StoreTestSupport

/// An archive import goes in parts (the attacker review of session 27: one transaction of 300,000
/// items held every gallery's writes ~26 s): the gallery and its sections first, then its items a
/// part at a time, each part a version; writes elsewhere run between two parts.
@Suite struct ImportInPartsTests {
    static func sections(_ counts: [Int]) -> [(title: String, items: [NewItem])] {
        counts.enumerated().map { s, n in
            (title: "S\(s)", items: (0..<n).map { NewItem(title: "s\(s)-\($0)", state: .failed, reason: "missing") })
        }
    }

    /// The gallery called `name` once the first transaction of its import or copy has made it.
    static func appearing(_ name: String, in store: GalleryStore) async throws -> GalleryInfo {
        while true {
            if let g = try await store.listGalleries().first(where: { $0.name == name }) { return g }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test(arguments: Backend.tested) func theGalleryComesOutWholeInOrderAndOwned(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let owner = try await store.createAccount(name: "olga", passwordHash: "hash", admin: false).id
        let (g, items) = try await store.importGalleryInParts(name: "Imported", sections: Self.sections([2_600, 0, 700]), owner: owner)
        #expect(items.count == 3_300 && g.itemCount == 3_300)
        #expect(g.version > 2, "went in parts: version \(g.version)")
        let snapshot = try await store.snapshot(g.id)
        #expect(snapshot.sections.map(\.title) == ["S0", "S1", "S2"])
        for (s, section) in snapshot.sections.enumerated() {
            #expect(section.items.map(\.title) == Self.sections([2_600, 0, 700])[s].items.map(\.title))
            #expect(section.items.allSatisfy { $0.state == .failed && $0.reason == "missing" })
        }
        #expect(try await store.role(account: owner, gallery: g.id) == .owner)
        // Refused before anything is written, as the one-transaction import.
        await #expect(throws: StoreError.invalid("title must not contain U+0000")) {
            try await store.importGalleryInParts(name: "Bad", sections: [(title: "ok", items: [NewItem(title: "a\u{0}b")])])
        }
        #expect(try await store.listGalleries().map(\.name) == ["Imported"])
    }

    @Test(arguments: Backend.tested) func writesElsewhereRunWhileAnImportIsUnderWay(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let other = try await store.createGallery(name: "Other")
        let total = 30_000
        let importing = Task { try await store.importGalleryInParts(name: "Big", sections: Self.sections([total])) }
        // The gallery is there after the first part of the import (its rows and sections)...
        let big = try await Self.appearing("Big", in: store)
        // ...and a write elsewhere is answered while it still fills.
        _ = try await store.renameGallery(other.id, name: "Other, renamed")
        let meanwhile = try await store.gallery(big.id).itemCount
        #expect(meanwhile < total, "a write elsewhere waited for the whole import (\(meanwhile) of \(total) items in by then)")
        let (done, _) = try await importing.value
        #expect(done.itemCount == total)
    }

    @Test(arguments: Backend.tested) func aGalleryDeletedWhileImportingEndsTheImport(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let importing = Task { try await store.importGalleryInParts(name: "Doomed", sections: Self.sections([30_000])) }
        let doomed = try await Self.appearing("Doomed", in: store)
        try await store.deleteGallery(doomed.id)
        await #expect(throws: StoreError.galleryNotFound(doomed.id)) { try await importing.value }
        #expect(try await store.listGalleries().isEmpty)
    }

    /// A copy goes in parts too: the same arrangement (after moves and with items in the trash,
    /// which is not copied), and a write elsewhere is answered while it fills.
    @Test(arguments: Backend.tested) func aCopyIsTheSameArrangementMadeInParts(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let (g, items) = try await store.importGalleryInParts(name: "Source", sections: Self.sections([20_000, 3]))
        let sections = try await store.snapshot(g.id).sections.map(\.id)
        _ = try await store.apply(gallery: g.id, [.move(items: [items[0].id, items[5].id], to: .index(section: sections[1], index: 1)),
                                                  .trash(items: [items[7].id, items[20_001].id])])
        let other = try await store.createGallery(name: "Other")
        let copying = Task { try await store.duplicateGallery(g.id, name: nil) }
        let copy = try await Self.appearing("Source copy", in: store)
        _ = try await store.renameGallery(other.id, name: "Other, renamed")
        let meanwhile = try await store.gallery(copy.id).itemCount
        #expect(meanwhile < 20_001, "a write elsewhere waited for the whole copy (\(meanwhile) items in by then)")
        let done = try await copying.value
        #expect(done.itemCount == 20_001 && done.version > 2)
        let original = try await store.snapshot(g.id), copied = try await store.snapshot(done.id)
        #expect(copied.sections.map(\.title) == original.sections.map(\.title))
        for (a, b) in zip(original.sections, copied.sections) {
            #expect(a.items.map(\.title) == b.items.map(\.title))
            #expect(a.items.map(\.state) == b.items.map(\.state) && a.items.map(\.reason) == b.items.map(\.reason))
            #expect(Set(a.items.map(\.id)).isDisjoint(with: b.items.map(\.id)))
        }
        #expect(try await store.trash(done.id).isEmpty)
    }
}
