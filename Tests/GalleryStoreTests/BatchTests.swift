import Testing
import Foundation
import GridEngine
import GalleryCore
@testable import GalleryStore
import StoreTestSupport

@Suite struct BatchTests {
    @Test(arguments: Backend.tested) func moveOneItemWritesOneItemRowPlusVersionAndLog(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let (g, sections) = try await makeGallery(store, sections: 2, perSection: 50)
        let snap = try await store.snapshot(g.id)
        let moved = snap.sections[0].items[3].id
        let r = try await store.apply(gallery: g.id, baseVersion: g.version, [.move(items: [moved], to: .index(section: sections[1], index: 10))])
        #expect(r.rowsWritten == 3)
        #expect(r.version == g.version + 1)
        let after = try await store.snapshot(g.id)
        #expect(after.sections[1].items[10].id == moved)
        #expect(after.sections[0].items.count == 49 && after.sections[1].items.count == 51)
        // The staged changes turn the old snapshot into the new one.
        var s = try Snapshot(gallery: snap)
        try replay(r.changes, on: &s)
        #expect(s == (try Snapshot(gallery: after)))
    }

    @Test(arguments: Backend.tested) func moveSeveralBeforeAndAfterAnAnchorKeepsTheirOrder(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let (g, _) = try await makeGallery(store, sections: 1, perSection: 10)
        let ids = try await store.snapshot(g.id).sections[0].items.map(\.id)
        _ = try await store.apply(gallery: g.id, [.move(items: [ids[8], ids[1]], to: .before(item: ids[5]))])
        #expect(titles(try await store.snapshot(g.id)) == [["0-0", "0-2", "0-3", "0-4", "0-8", "0-1", "0-5", "0-6", "0-7", "0-9"]])
        _ = try await store.apply(gallery: g.id, [.move(items: [ids[0]], to: .after(item: ids[9]))])
        #expect(titles(try await store.snapshot(g.id))[0].last == "0-0")
    }

    /// Many items moved or trashed at once are written in one statement (`SQLDialect.idRankPairs`,
    /// `.ids`): the rows, read again by a new store, agree with memory and the answer's stages —
    /// on both backends, whose SQL for it differs.
    @Test(arguments: Backend.tested) func manyItemsMovedAndTrashedAtOnceAgreeWithTheRows(_ backend: Backend) async throws {
        let (store, place) = try await makeStore(backend)
        let (g, sections) = try await makeGallery(store, sections: 3, perSection: 30)
        let before = try await store.snapshot(g.id)
        let all = before.sections.flatMap { $0.items.map(\.id) }
        // 40 items from all three sections, in an order of their own, into the middle of the second.
        var rng = SeededGenerator(seed: 15)
        let moved = Array(all.shuffled(using: &rng).prefix(40))
        let anchor = try #require(before.sections[1].items.map(\.id).first { !moved.contains($0) })
        let r = try await store.apply(gallery: g.id, [.move(items: moved, to: .before(item: anchor))])
        #expect(r.rowsWritten == 42, "40 items, the version, the log")
        let after = try await store.snapshot(g.id)
        let second = after.sections[1].items.map(\.id)
        let at = try #require(second.firstIndex(of: anchor))
        #expect(Array(second[(at - 40)..<at]) == moved, "the moved items in their order, before the anchor")
        var replayed = try Snapshot(gallery: before)
        try replay(r.changes, on: &replayed)
        #expect(replayed == (try Snapshot(gallery: after)))

        let trashed = Array(moved.prefix(20))
        let t = try await store.apply(gallery: g.id, [.trash(items: trashed)])
        #expect(t.rowsWritten == 22)
        let now = try await store.snapshot(g.id)
        #expect(Set(now.sections.flatMap { $0.items.map(\.id) }).isDisjoint(with: trashed))
        #expect(now.sections.map(\.items.count).reduce(0, +) == 70)

        // 30 copied at once (in the batch's order, right after the anchor), one copy each.
        let copied = Array(all.shuffled(using: &rng).prefix(30)).filter { !trashed.contains($0) }
        let c = try await store.apply(gallery: g.id, [.copy(items: copied, to: .after(item: anchor))])
        #expect(c.createdItems.count == copied.count && Set(c.createdItems).count == copied.count)
        let withCopies = try await store.snapshot(g.id)
        let second2 = withCopies.sections[1].items
        let at2 = try #require(second2.firstIndex { $0.id == anchor })
        #expect(second2[(at2 + 1)...(at2 + copied.count)].map(\.id) == c.createdItems, "the copies in the batch's order after the anchor")
        let titleOf = Dictionary(uniqueKeysWithValues: withCopies.sections.flatMap(\.items).map { ($0.id, $0.title) })
        #expect(c.createdItems.map { titleOf[$0] } == copied.map { titleOf[$0] }, "each copy is of its item")
        _ = try await store.apply(gallery: g.id, [.trash(items: c.createdItems)])
        _ = try await store.apply(gallery: g.id, [.purge(items: c.createdItems)])
        #expect(titles(try await store.snapshot(g.id)) == titles(now), "the copies gone again")
        let end = try await store.snapshot(g.id)

        // The rows say the same after a restart; a restore puts the 20 back where they were.
        try store.close()
        let reopened = try await place.open()
        #expect(try await reopened.snapshot(g.id) == end)
        _ = try await reopened.apply(gallery: g.id, [.restore(items: trashed)])
        #expect(titles(try await reopened.snapshot(g.id)) == titles(after))
        _ = sections
    }

    /// Many items restored at once (`restoreMany`): each section's rows read once and the items
    /// merged in by rank. Ranks that live items hold now (given out while the items were away)
    /// get fresh keys just after them; a deleted section comes back at its place; purging many
    /// deletes their rows. The rows, read again after a restart, agree with memory.
    @Test(arguments: Backend.tested) func manyItemsRestoredAtOnceFindTheirPlacesAndFreshKeys(_ backend: Backend) async throws {
        let (store, place) = try await makeStore(backend)
        let (g, sections) = try await makeGallery(store, sections: 3, perSection: 40)
        let before = try await store.snapshot(g.id)
        let first = before.sections[0].items.map(\.id)
        let away = Array(first[10..<30])
        _ = try await store.apply(gallery: g.id, [.trash(items: away)])
        // While they are away, five take item 9's rank and five item 30's (what keys given out
        // meanwhile can do), in the rows only: trashed rows are not in memory.
        let rank = { (id: Int64) in try await store.database.read { db in try db.value("SELECT rank FROM item WHERE id = ?", [id], as: String.self)! } }
        let (r9, r30) = (try await rank(first[9]), try await rank(first[30]))
        try await store.database.write { db in
            for id in away[0..<5] { try db.execute("UPDATE item SET rank = ? WHERE id = ?", [r9, id]) }
            for id in away[5..<10] { try db.execute("UPDATE item SET rank = ? WHERE id = ?", [r30, id]) }
        }
        // The second section deleted (its 40 items to the trash), restored with the 20 above in one batch.
        _ = try await store.apply(gallery: g.id, [.deleteSection(sections[1])])
        let second = before.sections[1].items.map(\.id)
        let r = try await store.apply(gallery: g.id, [.restore(items: away.reversed() + second)])
        let after = try await store.snapshot(g.id)
        #expect(after.sections.map(\.id) == sections, "the deleted section back at its place")
        #expect(after.sections[1].items.map(\.id) == second)
        var expected: [Int64] = Array(first[0..<10])
        expected += away[0..<5]
        expected += away[10..<20]
        expected.append(first[30])
        expected += away[5..<10]
        expected += first[31...]
        #expect(after.sections[0].items.map(\.id) == expected)
        var replayed = try Snapshot(gallery: before)
        try replay(try #require(try await store.changes(gallery: g.id, since: before.version)), on: &replayed)
        #expect(replayed == (try Snapshot(gallery: after)))
        _ = r
        // No two live items of a section share a rank; the rows' order is memory's after a restart.
        let shared = try await store.database.read { db in
            try db.value("SELECT COUNT(*) FROM (SELECT sectionId, rank FROM item WHERE galleryId = ? AND trashed = 0 GROUP BY sectionId, rank HAVING COUNT(*) > 1) AS d", [g.id], as: Int.self)!
        }
        #expect(shared == 0)
        try store.close()
        let reopened = try await place.open()
        #expect(try await reopened.snapshot(g.id) == after)

        // Many purged at once: trashed first; a live item among them refuses the whole batch.
        let gone = Array(second.prefix(20))
        _ = try await reopened.apply(gallery: g.id, [.trash(items: gone)])
        await #expect(throws: StoreError.self) { try await reopened.apply(gallery: g.id, [.purge(items: gone + [second[30]])]) }
        _ = try await reopened.apply(gallery: g.id, [.purge(items: gone)])
        let left = try await reopened.database.read { db in try db.value("SELECT COUNT(*) FROM item WHERE galleryId = ?", [g.id], as: Int.self)! }
        #expect(left == 100)
        #expect(try await reopened.snapshot(g.id).sections[1].items.map(\.id) == Array(second.dropFirst(20)))
    }

    @Test(arguments: Backend.tested) func swapExchangesPlacesAcrossSections(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let (g, _) = try await makeGallery(store, sections: 2, perSection: 3)
        let snap = try await store.snapshot(g.id)
        let r = try await store.apply(gallery: g.id, [.swap(snap.sections[0].items[0].id, snap.sections[1].items[2].id)])
        #expect(r.rowsWritten == 4)
        #expect(titles(try await store.snapshot(g.id)) == [["1-2", "0-1", "0-2"], ["1-0", "1-1", "0-0"]])
    }

    @Test(arguments: Backend.tested) func copyMakesNewItemsInOrderAndLeavesOriginals(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let (g, sections) = try await makeGallery(store, sections: 2, perSection: 3)
        let snap = try await store.snapshot(g.id)
        let r = try await store.apply(gallery: g.id, [.copy(items: [snap.sections[0].items[2].id, snap.sections[0].items[0].id], to: .index(section: sections[1], index: 1))])
        #expect(r.createdItems.count == 2)
        #expect(titles(try await store.snapshot(g.id)) == [["0-0", "0-1", "0-2"], ["1-0", "0-2", "0-0", "1-1", "1-2"]])
    }

    /// The gallery list (and one gallery's info) counts a gallery once per version, or takes the
    /// count of its live snapshot: every change of the count — insert, copy, trash, restore, a
    /// section trashed — is a new version.
    @Test(arguments: Backend.tested) func theListedItemCountFollowsEveryVersion(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let (g, sections) = try await makeGallery(store, sections: 2, perSection: 4)
        func listed() async throws -> Int {
            let n = try #require(try await store.listGalleries().first { $0.id == g.id }).itemCount
            #expect(try await store.gallery(g.id).itemCount == n)
            return n
        }
        #expect(try await listed() == 8)
        #expect(try await listed() == 8) // from the cache
        let ids = try await store.snapshot(g.id).sections[0].items.map(\.id)
        _ = try await store.apply(gallery: g.id, [.trash(items: [ids[0], ids[1]])])
        #expect(try await listed() == 6)
        _ = try await store.apply(gallery: g.id, [.restore(items: [ids[0]])])
        #expect(try await listed() == 7)
        _ = try await store.apply(gallery: g.id, [.copy(items: [ids[2]], to: .end(section: sections[1]))])
        #expect(try await listed() == 8)
        _ = try await store.apply(gallery: g.id, [.insert([NewItem(title: "new")], at: .end(section: sections[1]))], payload: "upload")
        #expect(try await listed() == 9)
        _ = try await store.apply(gallery: g.id, [.deleteSection(sections[1])])
        let shown = try await store.snapshot(g.id).sections.reduce(0) { $0 + $1.items.count }
        #expect(try await listed() == shown && shown == 3)
    }

    @Test(arguments: Backend.tested) func trashRestoreAndPurgeKeepThePlace(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let (g, _) = try await makeGallery(store, sections: 1, perSection: 5)
        let ids = try await store.snapshot(g.id).sections[0].items.map(\.id)
        _ = try await store.apply(gallery: g.id, [.trash(items: [ids[1], ids[3]])])
        #expect(titles(try await store.snapshot(g.id)) == [["0-0", "0-2", "0-4"]])
        #expect(try await store.trash(g.id).map(\.id).sorted() == [ids[1], ids[3]])
        // Meanwhile something else moves; the restored item still goes back between its old neighbours.
        _ = try await store.apply(gallery: g.id, [.move(items: [ids[4]], to: .index(section: try await store.snapshot(g.id).sections[0].id, index: 0))])
        _ = try await store.apply(gallery: g.id, [.restore(items: [ids[1]])])
        #expect(titles(try await store.snapshot(g.id)) == [["0-4", "0-0", "0-1", "0-2"]])
        _ = try await store.apply(gallery: g.id, [.purge(items: [ids[3]])])
        #expect(try await store.trash(g.id).isEmpty)
        await #expect(throws: StoreError.itemNotFound(ids[3])) { try await store.apply(gallery: g.id, [.restore(items: [ids[3]])]) }
        await #expect(throws: StoreError.invalid("purge: item \(ids[0]) is not in the trash")) { try await store.apply(gallery: g.id, [.purge(items: [ids[0]])]) }
    }

    @Test(arguments: Backend.tested) func deletedSectionComesBackWithARestoredItem(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let (g, sections) = try await makeGallery(store, sections: 3, perSection: 2)
        let middle = try await store.snapshot(g.id).sections[1].items.map(\.id)
        _ = try await store.apply(gallery: g.id, [.deleteSection(sections[1])])
        #expect(titles(try await store.snapshot(g.id)) == [["0-0", "0-1"], ["2-0", "2-1"]])
        _ = try await store.apply(gallery: g.id, [.restore(items: [middle[1]])])
        let s = try await store.snapshot(g.id)
        #expect(s.sections.map(\.id) == sections)
        #expect(titles(s) == [["0-0", "0-1"], ["1-1"], ["2-0", "2-1"]])
    }

    @Test(arguments: Backend.tested) func aFailingOperationLeavesTheWholeBatchUnapplied(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let (g, sections) = try await makeGallery(store, sections: 1, perSection: 4)
        let before = try await store.snapshot(g.id)
        let ids = before.sections[0].items.map(\.id)
        await #expect(throws: StoreError.invalid("index 9 is out of range 0...3 for section \(sections[0])")) {
            try await store.apply(gallery: g.id, [.move(items: [ids[0]], to: .end(section: sections[0])),
                                                  .move(items: [ids[1]], to: .index(section: sections[0], index: 9))])
        }
        await #expect(throws: StoreError.itemNotFound(9999)) { try await store.apply(gallery: g.id, [.trash(items: [ids[2], 9999])]) }
        await #expect(throws: StoreError.sectionNotFound(777)) { try await store.apply(gallery: g.id, [.move(items: [ids[2]], to: .end(section: 777))]) }
        await #expect(throws: StoreError.stale(baseVersion: 0, currentVersion: before.version)) {
            try await store.apply(gallery: g.id, baseVersion: 0, [.trash(items: [ids[0]])])
        }
        #expect(try await store.snapshot(g.id) == before)
        // The in-memory snapshot was not touched either: the next batch diffs from the real state.
        let r = try await store.apply(gallery: g.id, [.trash(items: [ids[0]])])
        var s = try Snapshot(gallery: before)
        try replay(r.changes, on: &s)
        #expect(s == (try Snapshot(gallery: try await store.snapshot(g.id))))
    }

    @Test(arguments: Backend.tested) func randomBatchesKeepMemoryRowsAndCatchUpInStep(_ backend: Backend) async throws {
        let (store, place) = try await makeStore(backend)
        let (g, _) = try await makeGallery(store, sections: 3, perSection: 20)
        var rng = SeededGenerator(seed: 7)
        let start = try await store.snapshot(g.id)
        var shown = try Snapshot(gallery: start)
        var applied = 0
        for _ in 0..<150 {
            let snap = try await store.snapshot(g.id)
            let op = randomOperation(snap, &rng)
            guard let op else { continue }
            let r: BatchResult
            do { r = try await store.apply(gallery: g.id, [op]) } catch is StoreError { continue }
            applied += 1
            try replay(r.changes, on: &shown)
            #expect(shown == (try Snapshot(gallery: try await store.snapshot(g.id))))
        }
        #expect(applied > 100)
        // Catch-up from the start is one staged diff to the same state.
        var caught = try Snapshot(gallery: start)
        try replay(try #require(try await store.changes(gallery: g.id, since: start.version)), on: &caught)
        #expect(caught == shown)
        // A second store on the same file (a restart) reads the same gallery.
        let reopened = try await place.open()
        #expect(try Snapshot(gallery: try await reopened.snapshot(g.id)) == shown)
        // …and still catches up from a version of the first run (CatchUpLog), to the same state.
        var afterRestart = try Snapshot(gallery: start)
        try replay(try #require(try await reopened.changes(gallery: g.id, since: start.version)), on: &afterRestart)
        #expect(afterRestart == shown)
    }
}

/// A random operation on a gallery snapshot (moves, copies, swaps, trash, restore, sections).
func randomOperation(_ snap: GallerySnapshotJSON, _ rng: inout SeededGenerator) -> BatchEdit? {
    let all = snap.sections.flatMap { $0.items.map(\.id) }
    func pick() -> Int64? { all.isEmpty ? nil : all[Int(rng.next() % UInt64(all.count))] }
    func section() -> SectionJSON { snap.sections[Int(rng.next() % UInt64(snap.sections.count))] }
    guard !snap.sections.isEmpty else { return .createSection(title: "new", index: 0) }
    switch rng.next() % 10 {
    case 0, 1, 2:
        guard let a = pick() else { return nil }
        let s = section()
        return .move(items: [a], to: .index(section: s.id, index: Int(rng.next() % UInt64(s.items.count + 1))))
    case 3:
        guard let a = pick(), let b = pick(), a != b else { return nil }
        return .move(items: [a, b], to: .end(section: section().id))
    case 4:
        guard let a = pick(), let b = pick(), a != b else { return nil }
        return .swap(a, b)
    case 5:
        guard let a = pick(), let b = pick(), a != b else { return nil }
        return rng.next() % 2 == 0 ? .before(a, b) : .copy(items: [a], to: .after(item: b))
    case 6:
        guard let a = pick() else { return nil }
        return .trash(items: [a])
    case 7:
        guard let a = pick() else { return nil }
        return .renameItem(a, title: "renamed \(rng.next() % 100)")
    case 8:
        return .createSection(title: "S", index: Int(rng.next() % UInt64(snap.sections.count + 1)))
    default:
        return .moveSection(section().id, index: Int(rng.next() % UInt64(snap.sections.count)))
    }
}

extension BatchEdit {
    static func before(_ a: Int64, _ b: Int64) -> BatchEdit { .move(items: [a], to: .before(item: b)) }
}

@Suite struct CatchUpWindowTests {
    /// The window in memory keeps `maxCheckpoints` checkpoints once the gallery has passed more:
    /// up to that many intervals of versions (API.md: "eight checkpoint intervals"). Until session
    /// 32 the ninth's arrival dropped two: 7 and 8 in turn.
    @Test func theWindowKeepsMaxCheckpointsCheckpoints() async throws {
        let (store, _) = try await makeStore(.sqlite, historyEvery: shortHistory)
        let (g, sections) = try await makeGallery(store, sections: 2, perSection: 5)
        let ids = try await store.snapshot(g.id).sections.flatMap { $0.items.map(\.id) }
        let total = Int(shortHistory) * (LiveGallery.maxCheckpoints + 3) + 7
        var counts: Set<Int> = []
        for k in 0..<total {
            let r = try await store.apply(gallery: g.id, [.move(items: [ids[k % ids.count]], to: .index(section: sections[k % 2], index: 0))])
            // Past the window's first filling, every version's window holds exactly that many.
            if r.version > shortHistory * Int64(LiveGallery.maxCheckpoints) {
                counts.insert(store.live.withLock { $0[g.id]!.checkpoints.count })
            }
        }
        #expect(counts == [LiveGallery.maxCheckpoints], "checkpoints held: \(counts.sorted())")
        let (checkpoints, version) = store.live.withLock { ($0[g.id]!.checkpoints, $0[g.id]!.version) }
        let newest = version - version % shortHistory
        #expect(checkpoints == (0..<Int64(LiveGallery.maxCheckpoints)).reversed().map { newest - $0 * shortHistory }, "\(checkpoints) at \(version)")
        // A version just inside the oldest interval still catches up; one before it does not.
        #expect(try await store.changes(gallery: g.id, since: checkpoints[0]) != nil)
        #expect(try await store.changes(gallery: g.id, since: checkpoints[0] - 1) == nil)
    }

    @Test(arguments: Backend.tested) func versionsInsideTheWindowCatchUpAndOlderOnesFallBackToTheSnapshot(_ backend: Backend) async throws {
        let (store, place) = try await makeStore(backend, historyEvery: shortHistory)
        let (g, sections) = try await makeGallery(store, sections: 2, perSection: 10)
        let start = try await store.snapshot(g.id)
        let ids = start.sections.flatMap { $0.items.map(\.id) }
        var shown: [Int64: Snapshot] = [start.version: try Snapshot(gallery: start)]
        var rng = SeededGenerator(seed: 3)
        let total = Int(store.historyEvery) * (LiveGallery.maxCheckpoints + 1)
        for k in 0..<total {
            let id = ids[Int(rng.next() % UInt64(ids.count))]
            let r = try await store.apply(gallery: g.id, [.move(items: [id], to: .index(section: sections[k % 2], index: 0))])
            if k % 11 == 0 || k > total - 5 { shown[r.version] = try Snapshot(gallery: try await store.snapshot(g.id)) }
        }
        let now = try Snapshot(gallery: try await store.snapshot(g.id))
        let oldest = store.live.withLock { $0[g.id]!.oldestVersion }
        #expect(oldest > start.version)
        for (version, snapshot) in shown.sorted(by: { $0.key < $1.key }) {
            let changes = try await store.changes(gallery: g.id, since: version)
            if version < oldest {
                #expect(changes == nil, "version \(version) is older than the window")
            } else {
                var s = snapshot
                try replay(try #require(changes), on: &s)
                #expect(s == now, "catch-up from \(version)")
            }
        }
        // After a restart the window is rebuilt from SQLite: it starts at a persisted checkpoint
        // (every `historyEvery`th version) no older than the window, and answers the same way.
        try store.close()
        let reopened = try await place.open()
        #expect(try await reopened.changes(gallery: g.id, since: start.version) == nil)
        let rebuilt = reopened.live.withLock { $0[g.id]!.oldestVersion }
        let version = try await reopened.gallery(g.id).version
        #expect(rebuilt % shortHistory == 0 && rebuilt > start.version && rebuilt >= version - CatchUpLog.window(every: shortHistory), "\(rebuilt)")
        for (version, snapshot) in shown.sorted(by: { $0.key < $1.key }) {
            let changes = try await reopened.changes(gallery: g.id, since: version)
            if version < rebuilt {
                #expect(changes == nil, "version \(version) is older than the rebuilt window")
            } else {
                var s = snapshot
                try replay(try #require(changes), on: &s)
                #expect(s == now, "catch-up from \(version) after the restart")
            }
        }
    }
}
