import Testing
import Foundation
import GalleryCore
@testable import GalleryStore
import StoreTestSupport
import Synchronization

/// Deleting a gallery hides it for everyone in one short transaction; its rows go afterwards a
/// part at a time (one transaction of a million items held every gallery's writes ~7 s, issue
/// 15's limits), and a start finishes a delete a stopped server left half way.
@Suite struct DeleteInPartsTests {
    /// The rows a gallery still has in each table that refers to it.
    static func rows(_ store: GalleryStore, _ gallery: Int64) async throws -> [String: Int] {
        try await store.database.read { db in
            var n: [String: Int] = [:]
            for table in ["item", "section", "operation", "checkpoint", "member", "share_link"] {
                n[table] = try db.value("SELECT COUNT(*) FROM \(table) WHERE galleryId = ?", [gallery], as: Int.self) ?? -1
            }
            n["gallery"] = try db.value("SELECT COUNT(*) FROM gallery WHERE id = ?", [gallery], as: Int.self) ?? -1
            return n
        }
    }

    static func sections(_ counts: [Int]) -> [(title: String, items: [NewItem])] { ImportInPartsTests.sections(counts) }

    /// A gallery of `n` items in one section, its rows written in one statement (an import of
    /// 40,000 items takes a minute on PostgreSQL in a debug build); never loaded, only deleted.
    static func bulkGallery(_ store: GalleryStore, items n: Int) async throws -> Int64 {
        let g = try await store.createGallery(name: "Big")
        try await store.database.write { db in
            let section = try db.value("SELECT id FROM section WHERE galleryId = ?", [g.id], as: Int64.self)!
            try db.execute("""
                WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < ?)
                INSERT INTO item (galleryId, sectionId, rank, title, state, createdAt) SELECT ?, ?, 'r', 'bulk', 'failed', 0 FROM n
                """, [n, g.id, section])
        }
        return g.id
    }

    @Test(arguments: Backend.tested) func aDeletedGalleryIsGoneAtOnceAndItsRowsAfter(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend, historyEvery: shortHistory)
        let olga = try await store.createAccount(name: "olga", passwordHash: "hash", admin: true).id
        let (g, _) = try await store.importGalleryInParts(name: "Doomed", sections: Self.sections([3_000, 1_500]), owner: olga)
        let (kept, _) = try await store.importGalleryInParts(name: "Kept", sections: Self.sections([700]), owner: olga)
        // A log long enough for a catch-up checkpoint, a share link, a live stream.
        for k in 0..<(Int(shortHistory) + 5) { _ = try await store.renameGallery(g.id, name: "Doomed \(k)") }
        _ = try await store.createLink(gallery: g.id, createdBy: olga, role: .viewer, tokenHash: "t", passwordHash: nil,
                                       expiresAt: nil, options: LinkOptions(allowDownload: false, showMetadata: false))
        let before = try await Self.rows(store, g.id)
        #expect(before["item"] == 4_500 && before["operation"]! > 30 && before["checkpoint"]! > 0 && before["share_link"] == 1, "\(before)")
        let (events, cancel) = try await store.subscribe(gallery: g.id, since: nil)
        defer { cancel() }

        try await store.deleteGallery(g.id)
        // Gone for everyone at once, whether or not its rows are still there.
        await #expect(throws: StoreError.galleryNotFound(g.id)) { try await store.gallery(g.id) }
        await #expect(throws: StoreError.galleryNotFound(g.id)) { try await store.columns(g.id) }
        await #expect(throws: StoreError.galleryNotFound(g.id)) { try await store.snapshot(g.id) }
        await #expect(throws: StoreError.galleryNotFound(g.id)) { try await store.renameGallery(g.id, name: "Back") }
        await #expect(throws: StoreError.galleryNotFound(g.id)) { try await store.deleteGallery(g.id) }
        await #expect(throws: StoreError.galleryNotFound(g.id)) { try await store.duplicateGallery(g.id, name: nil, owner: olga) }
        #expect(try await store.listGalleries().map(\.id) == [kept.id])
        #expect(try await store.role(account: olga, gallery: g.id) == nil)
        #expect(try await store.links(gallery: g.id).isEmpty)
        // An ownerless gallery goes to the first admin at every start: not one being deleted.
        try await store.adoptOwnerlessGalleries()
        #expect(try await store.role(account: olga, gallery: g.id) == nil)
        var last: GalleryEvent?
        for await e in events { last = e }
        guard case .deleted = last else { Issue.record("the stream ended with \(String(describing: last))"); return }

        await store.finishPurge()
        let after = try await Self.rows(store, g.id)
        #expect(after.values.allSatisfy { $0 == 0 }, "\(after)")
        #expect(try await store.galleriesBeingDeleted().isEmpty)
        #expect(try await store.gallery(kept.id).itemCount == 700)
        #expect(try await store.snapshot(kept.id).sections[0].items.count == 700)
    }

    @Test(arguments: Backend.tested) func writesElsewhereRunWhileTheRowsGo(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let other = try await store.createGallery(name: "Other")
        let total = 40_000
        let big = try await Self.bulkGallery(store, items: total)
        #expect(try await Self.rows(store, big)["item"] == total)
        // Between two parts a write elsewhere gets the writer; some rows are gone then, some not yet.
        let seen = Mutex<[Int]>([])
        store.afterPurgePart.withLock { $0 = { table, _ in
            guard table == "item" else { return }
            _ = try? await store.renameGallery(other.id, name: "Other, renamed")
            let left = (try? await store.database.read { db in
                try db.value("SELECT COUNT(*) FROM item WHERE galleryId = ?", [big], as: Int.self)
            }) ?? nil
            seen.withLock { $0.append(left ?? -1) }
        } }
        try await store.deleteGallery(big)
        await store.finishPurge()
        let left = seen.withLock { $0 }
        #expect(left.count > 1 && left.contains { $0 > 0 && $0 < total }, "items left after each part: \(left)")
        #expect(try await store.gallery(other.id).name == "Other, renamed")
        #expect(try await Self.rows(store, big).values.allSatisfy { $0 == 0 })
    }

    /// Two purges of one gallery at once (PostgreSQL: instances starting together, or joining on
    /// another's delete): each skips the rows the other holds, and neither deletes sections while
    /// items are left (that would cascade to them in one transaction).
    @Test(arguments: Backend.tested) func twoPurgesAtOnceShareTheWork(_ backend: Backend) async throws {
        let (first, place) = try await makeStore(backend)
        let second = try await place.open()
        let total = 30_000
        let big = try await Self.bulkGallery(first, items: total)
        let sectionsEarly = Mutex(0)
        for store in [first, second] {
            store.afterPurgePart.withLock { $0 = { table, _ in
                guard table == "section" else { return }
                let items = (try? await store.database.read { db in
                    try db.value("SELECT COUNT(*) FROM item WHERE galleryId = ?", [big], as: Int.self)
                }) ?? nil
                if items != 0 { sectionsEarly.withLock { $0 += 1 } }
            } }
        }
        try await first.database.write { db in try db.execute("UPDATE gallery SET deleting = 1 WHERE id = ?", [big]) }
        first.startPurge()
        second.startPurge()
        await first.finishPurge()
        await second.finishPurge()
        #expect(sectionsEarly.withLock { $0 } == 0, "a purge deleted sections while items were left")
        #expect(try await Self.rows(first, big).values.allSatisfy { $0 == 0 })
    }

    /// On PostgreSQL another instance joins in when it hears of a delete.
    @Test func anotherInstanceJoinsInOnPostgreSQL() async throws {
        guard Backend.tested.contains(.postgres) else { return }
        let (first, place) = try await makeStore(.postgres)
        let second = try await place.open()
        second.startFollowing()
        defer { try? first.close(); try? second.close() }
        #expect(await FanoutTests.eventually { second.followingSessions >= 1 }, "the second instance listens")
        let parted = Mutex<[String]>([])
        second.afterPurgePart.withLock { $0 = { table, _ in parted.withLock { $0.append(table) } } }
        let big = try await Self.bulkGallery(first, items: 30_000)
        // The first instance's purge is held at its first part, as if it had stopped there.
        let (held, release) = AsyncStream<Void>.makeStream()
        first.afterPurgePart.withLock { $0 = { _, _ in for await _ in held { break } } }
        try await first.deleteGallery(big)
        await second.finishPurge()
        var waited = 0
        while try await Self.rows(second, big)["gallery"] != 0, waited < 3000 {
            try await Task.sleep(for: .milliseconds(10)); waited += 1
            await second.finishPurge()
        }
        #expect(try await Self.rows(second, big).values.allSatisfy { $0 == 0 }, "the other instance finished the delete")
        #expect(parted.withLock { $0 }.contains("item"))
        release.yield(); release.finish()
        await first.finishPurge()
    }

    @Test(arguments: Backend.tested) func aStartFinishesADeleteLeftHalfWay(_ backend: Backend) async throws {
        let (store, place) = try await makeStore(backend)
        let (g, _) = try await store.importGallery(name: "Half", sections: Self.sections([2_000, 2_000]))
        let (kept, _) = try await store.importGallery(name: "Kept", sections: Self.sections([10]))
        // As a server killed after hiding the gallery and removing some of its rows leaves it.
        try await store.database.write { db in
            try db.execute("UPDATE gallery SET deleting = 1 WHERE id = ?", [g.id])
            try db.execute("DELETE FROM item WHERE id IN (SELECT id FROM item WHERE galleryId = ? LIMIT 1500)", [g.id])
        }
        try store.close()
        let reopened = try await place.open()
        #expect(try await reopened.galleriesBeingDeleted() == [g.id])
        #expect(try await reopened.listGalleries().map(\.name) == ["Kept"])
        await #expect(throws: StoreError.galleryNotFound(g.id)) { try await reopened.renameGallery(g.id, name: "Back") }
        reopened.startPurge()
        await reopened.finishPurge()
        #expect(try await Self.rows(reopened, g.id).values.allSatisfy { $0 == 0 })
        #expect(try await reopened.gallery(kept.id).itemCount == 10)
    }
}
