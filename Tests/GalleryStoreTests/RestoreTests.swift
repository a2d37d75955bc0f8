import Testing
import Foundation
import GridEngine
import GalleryCore
@testable import GalleryStore
import StoreTestSupport

/// Restores (`BatchContext.restore`): each item finds its place by index seeks from its next live
/// neighbour, never by reading its section. Checked against a reference that reads every row and
/// applies the rules to arrays (`RestoreReference`), on tricky cases and on random histories, on
/// both backends and both paths (one by one below `BatchContext.manyRows`, `restoreMany` from it).
@Suite struct RestoreTests {
    /// Ties, several items of one rank, a deleted section, an emptied section: the order is
    /// spelled out.
    @Test(arguments: Backend.tested) func tiesSharedRanksAndADeletedSectionInOneBatch(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let (g, sections) = try await makeGallery(store, sections: 4, perSection: 10)
        let snap = try await store.snapshot(g.id)
        let a = snap.sections[0].items.map(\.id), c = snap.sections[2].items.map(\.id), d = snap.sections[3].items.map(\.id)
        let r = try await RestoreReference.rows(store, g.id)
        // 8 of the first section, 5 of the third (which keeps 5), and the fourth deleted: 16 + … ≥ manyRows.
        _ = try await store.apply(gallery: g.id, [.trash(items: Array(a[1...8]) + Array(c[0..<5]))])
        _ = try await store.apply(gallery: g.id, [.deleteSection(sections[3])])
        // In the rows only (trashed rows are not in memory): a2–a4 take a1's rank (no live item
        // holds it), a6 and a7 take a9's (a live item holds it).
        try await RestoreReference.setRank(store, of: [a[2], a[3], a[4]], to: r[a[1]]!.rank)
        try await RestoreReference.setRank(store, of: [a[6], a[7]], to: r[a[9]]!.rank)
        var rng = SeededGenerator(seed: 3)
        let ids = (Array(a[1...8]) + Array(c[0..<5]) + Array(d[0..<4])).shuffled(using: &rng)
        #expect(ids.count >= BatchContext.manyRows)
        let result = try await RestoreReference.restoreAndCheck(store, g.id, ids)
        let after = try await store.snapshot(g.id)
        // a1 keeps its rank and leads its rank's run (lowest id); a2–a4 get fresh keys below a5's;
        // a6 and a7 go after the live a9, which keeps its place.
        #expect(after.sections[0].items.map(\.id) == [a[0], a[1], a[2], a[3], a[4], a[5], a[8], a[9], a[6], a[7]])
        #expect(after.sections[2].items.map(\.id) == Array(c[0..<5]) + Array(c[5...]))
        #expect(after.sections.map(\.id) == sections, "the deleted section back at its place")
        #expect(after.sections[3].items.map(\.id) == Array(d[0..<4]))
        #expect(result.changes.stages.count == 1 && result.changes.stages[0].sectionInserts.count == 1, "the revived section inserted whole")
    }

    /// A part of a section trashed whole, restored (the page's undo in parts): each item's seek stops
    /// at the part's highest rank; those with no live item up to there go before the first live one
    /// past it, sought once (`restoreMany`). A live item inside the part's ranks still leads the
    /// items below it.
    @Test(arguments: Backend.tested) func aPartOfATrashedSectionGoesBeforeTheFirstLiveItemPastIt(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let (g, _) = try await makeGallery(store, sections: 2, perSection: 40)
        let a = try await store.snapshot(g.id).sections[0].items.map(\.id)
        _ = try await store.apply(gallery: g.id, [.trash(items: Array(a[0..<5]) + Array(a[6..<30]))])
        let part = Array(a[0..<5]) + Array(a[6..<17])
        #expect(part.count >= BatchContext.manyRows)
        _ = try await RestoreReference.restoreAndCheck(store, g.id, part.reversed())
        #expect(try await store.snapshot(g.id).sections[0].items.map(\.id) == Array(a[0..<17]) + Array(a[30...]))
        // The rest of the section, restored after: back in its place between the part and the live tail.
        _ = try await RestoreReference.restoreAndCheck(store, g.id, Array(a[17..<30]))
        #expect(try await store.snapshot(g.id).sections[0].items.map(\.id) == a)
    }

    /// One item at a time (below manyRows): a tie goes after the live item, a restore after a move
    /// that took the item's key goes after the mover, an item restored into an empty section.
    @Test(arguments: Backend.tested) func oneByOneTiesMovesAndAnEmptySection(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let (g, sections) = try await makeGallery(store, sections: 3, perSection: 8)
        let snap = try await store.snapshot(g.id)
        let a = snap.sections[0].items.map(\.id), b = snap.sections[1].items.map(\.id)
        // a3 away; a7 moved into its place meanwhile and its key given a3's (a collision a move can make).
        _ = try await store.apply(gallery: g.id, [.trash(items: [a[3]])])
        _ = try await store.apply(gallery: g.id, [.move(items: [a[7]], to: .after(item: a[2]))])
        let r = try await RestoreReference.rows(store, g.id)
        try await RestoreReference.setRank(store, of: [a[7]], to: r[a[3]]!.rank, live: true)
        _ = try await RestoreReference.restoreAndCheck(store, g.id, [a[3]])
        #expect(try await store.snapshot(g.id).sections[0].items.map(\.id) == [a[0], a[1], a[2], a[7], a[3], a[4], a[5], a[6]])
        // Two items of one rank restored one by one: the second after the first (now live).
        _ = try await store.apply(gallery: g.id, [.trash(items: [a[5], a[6]])])
        try await RestoreReference.setRank(store, of: [a[6]], to: r[a[5]]!.rank)
        _ = try await RestoreReference.restoreAndCheck(store, g.id, [a[6], a[5]])
        #expect(try await store.snapshot(g.id).sections[0].items.map(\.id) == [a[0], a[1], a[2], a[7], a[3], a[4], a[6], a[5]])
        // The second section emptied, one item back into it; then the rest in one batch of 7.
        _ = try await store.apply(gallery: g.id, [.trash(items: b)])
        _ = try await RestoreReference.restoreAndCheck(store, g.id, [b[4]])
        #expect(try await store.snapshot(g.id).sections[1].items.map(\.id) == [b[4]])
        _ = try await RestoreReference.restoreAndCheck(store, g.id, b.filter { $0 != b[4] }.reversed())
        #expect(try await store.snapshot(g.id).sections[1].items.map(\.id) == b)
        // A deleted section comes back with one item, at its place.
        _ = try await store.apply(gallery: g.id, [.deleteSection(sections[1])])
        _ = try await RestoreReference.restoreAndCheck(store, g.id, [b[2]])
        let after = try await store.snapshot(g.id)
        #expect(after.sections.map(\.id) == sections && after.sections[1].items.map(\.id) == [b[2]])
    }

    /// Bad restores refuse the whole batch on both paths and change nothing.
    @Test(arguments: Backend.tested) func badRestoresChangeNothing(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let (g, _) = try await makeGallery(store, sections: 2, perSection: 20)
        let (other, _) = try await makeGallery(store, sections: 1, perSection: 2)
        let ids = try await store.snapshot(g.id).sections.flatMap { $0.items.map(\.id) }
        let foreign = try await store.snapshot(other.id).sections[0].items[0].id
        _ = try await store.apply(gallery: other.id, [.trash(items: [foreign])])
        let away = Array(ids[0..<20])
        _ = try await store.apply(gallery: g.id, [.trash(items: away)])
        let before = try await store.snapshot(g.id)
        for many in [false, true] {
            let some = many ? away : Array(away[0..<3])
            await #expect(throws: StoreError.invalid("restore: item \(ids[30]) is not in the trash")) {
                try await store.apply(gallery: g.id, [.restore(items: some + [ids[30]])])
            }
            await #expect(throws: StoreError.itemNotFound(999_999)) { try await store.apply(gallery: g.id, [.restore(items: some + [999_999])]) }
            await #expect(throws: StoreError.itemNotFound(foreign)) { try await store.apply(gallery: g.id, [.restore(items: some + [foreign])]) }
            await #expect(throws: StoreError.invalid("restore: an item id is repeated")) { try await store.apply(gallery: g.id, [.restore(items: some + [some[0]])]) }
        }
        #expect(try await store.snapshot(g.id) == before)
        let memory = store.live.withLock { $0[g.id]!.snapshot }
        #expect(memory == (try Snapshot(gallery: before)))
    }

    /// 1,000 items over 50 sections in one batch (the server's batch limit): first without a
    /// collision — every item back exactly where it was — then with ties, shared ranks and
    /// deleted sections, against the reference; then a third of the gallery trashed again and
    /// restored one by one (15 per batch, the other path), every item back where it was.
    @Test(arguments: Backend.tested) func aThousandItemsOverManySections(_ backend: Backend) async throws {
        let (store, place) = try await makeStore(backend)
        let (g, sections) = try await makeGallery(store, sections: 50, perSection: 30)
        let start = try await store.snapshot(g.id)
        let all = start.sections.flatMap { $0.items.map(\.id) }
        let spread = all.enumerated().filter { $0.offset % 3 != 0 }.map(\.element)
        #expect(spread.count == 1000)
        var rng = SeededGenerator(seed: 1000)
        _ = try await store.apply(gallery: g.id, [.trash(items: spread)])
        _ = try await RestoreReference.restoreAndCheck(store, g.id, spread.shuffled(using: &rng))
        #expect(try await store.snapshot(g.id).sections.map { $0.items.map(\.id) } == start.sections.map { $0.items.map(\.id) })

        // Again with collisions: 100 take a live neighbour's rank, 100 share a trashed one's, and
        // five sections are deleted (their other items trashed with them).
        _ = try await store.apply(gallery: g.id, [.trash(items: spread)])
        let r = try await RestoreReference.rows(store, g.id)
        let shuffled = spread.shuffled(using: &rng)
        for id in shuffled[0..<100] {
            let mates = r.values.filter { $0.section == r[id]!.section && !$0.trashed }
            try await RestoreReference.setRank(store, of: [id], to: mates.randomElement(using: &rng)!.rank)
        }
        for k in stride(from: 100, to: 300, by: 2) {
            let (x, y) = (shuffled[k], shuffled[k + 1])
            guard r[x]!.section == r[y]!.section else { continue }
            try await RestoreReference.setRank(store, of: [x], to: r[y]!.rank)
        }
        for s in sections[10..<15] { _ = try await store.apply(gallery: g.id, [.deleteSection(s)]) }
        _ = try await RestoreReference.restoreAndCheck(store, g.id, shuffled)
        let after = try await store.snapshot(g.id)
        #expect(after.sections.map(\.id) == sections, "the deleted sections back at their places")
        #expect(after.sections.reduce(0) { $0 + $1.items.count } == 1500 - 5 * 10, "the deleted sections' other items still in the trash")

        // The rows, read by a new store, are the same gallery as memory.
        let memory = store.live.withLock { $0[g.id]!.snapshot }
        try store.close()
        let reopened = try await place.open()
        #expect(try Snapshot(gallery: try await reopened.snapshot(g.id)) == memory)

        // One by one (15 per batch: the path below manyRows) the same items find the same places
        // when no key collides: every item back where it was.
        let now = try await reopened.snapshot(g.id)
        let again = now.sections.flatMap { $0.items.map(\.id) }.filter { _ in rng.next() % 3 == 0 }
        _ = try await reopened.apply(gallery: g.id, [.trash(items: again)])
        for part in stride(from: 0, to: again.count, by: 15) {
            _ = try await RestoreReference.restoreAndCheck(reopened, g.id, Array(again[part..<min(part + 15, again.count)]).shuffled(using: &rng))
        }
        #expect(try await reopened.snapshot(g.id).sections.map { $0.items.map(\.id) } == now.sections.map { $0.items.map(\.id) })
    }

    /// Random histories: trash, moves (some onto the places trashed items left, so keys collide),
    /// ranks set equal to a live or a trashed item's in the rows, deleted sections, and restores of
    /// 1 to all trashed items in a random order — some in one batch after a move — each checked
    /// against the reference; bad restores among them.
    @Test(arguments: Backend.tested) func randomHistoriesAgreeWithTheReference(_ backend: Backend) async throws {
        for seed in [1, 2, 3] as [UInt64] {
            let (store, place) = try await makeStore(backend)
            let (g, _) = try await makeGallery(store, sections: 5, perSection: 24)
            _ = try await store.apply(gallery: g.id, [.createSection(title: "empty", index: 2)])
            var rng = SeededGenerator(seed: seed)
            var restores = (one: 0, many: 0)
            for _ in 0..<70 {
                let rows = try await RestoreReference.rows(store, g.id)
                let live = rows.values.filter { !$0.trashed }.map(\.id).sorted()
                let trashed = rows.values.filter(\.trashed).map(\.id).sorted()
                let snap = try await store.snapshot(g.id)
                switch rng.next() % 20 {
                case 0..<6 where live.count > 10:
                    let n = Int(rng.next() % 30) + 1
                    _ = try await store.apply(gallery: g.id, [.trash(items: Array(live.shuffled(using: &rng).prefix(n)))])
                case 6..<9 where !trashed.isEmpty && live.count > 2:
                    // A live item moved to just after the live item before a trashed one: it gets the key
                    // between the same neighbours the trashed item once got.
                    let t = rows[trashed.randomElement(using: &rng)!]!
                    let below = rows.values.filter { $0.section == t.section && !$0.trashed && RestoreReference.less($0.rank, t.rank) }
                        .max { RestoreReference.less($0.rank, $1.rank) }
                    let mover = live.filter { $0 != below?.id }.randomElement(using: &rng)!
                    let to: Destination = below.map { .after(item: $0.id) } ?? .index(section: t.section, index: 0)
                    if snap.sections.contains(where: { $0.id == t.section }) {
                        _ = try await store.apply(gallery: g.id, [.move(items: [mover], to: to)])
                    }
                case 9..<11 where !trashed.isEmpty:
                    // In the rows only: a trashed item takes a live or a trashed item's rank in its section.
                    let t = rows[trashed.randomElement(using: &rng)!]!
                    let mates = rows.values.filter { $0.section == t.section && $0.id != t.id }
                    if let m = mates.randomElement(using: &rng) { try await RestoreReference.setRank(store, of: [t.id], to: m.rank) }
                case 11 where snap.sections.count > 2:
                    _ = try await store.apply(gallery: g.id, [.deleteSection(snap.sections.randomElement(using: &rng)!.id)])
                case 12 where !trashed.isEmpty && !live.isEmpty:
                    // A bad restore: a live item among trashed ones. Nothing changes.
                    let some = Array(trashed.shuffled(using: &rng).prefix(Int(rng.next() % 20) + 1)) + [live.randomElement(using: &rng)!]
                    await #expect(throws: StoreError.self) { try await store.apply(gallery: g.id, [.restore(items: some.shuffled(using: &rng))]) }
                    #expect(try await store.snapshot(g.id) == snap)
                case 13..<20 where !trashed.isEmpty:
                    let many = BatchContext.manyRows
                    let n = rng.next() % 2 == 0 || trashed.count < many ? Int(rng.next() % 15) + 1 : many + Int(rng.next() % UInt64(trashed.count - many + 1))
                    let ids = Array(trashed.shuffled(using: &rng).prefix(n))
                    // Sometimes after a move in the same batch: the seeks read the batch's own rows.
                    var first: [BatchEdit] = []
                    if rng.next() % 4 == 0, let m = live.randomElement(using: &rng), let s = snap.sections.randomElement(using: &rng) {
                        first = [.move(items: [m], to: .index(section: s.id, index: Int(rng.next() % UInt64(s.items.count + 1)) - (s.items.contains { $0.id == m } ? 1 : 0)))]
                        if case .move(_, .index(_, let i)) = first[0], i < 0 { first = [] }
                    }
                    _ = try await RestoreReference.restoreAndCheck(store, g.id, ids, after: first)
                    if ids.count >= BatchContext.manyRows { restores.many += 1 } else { restores.one += 1 }
                default:
                    break
                }
            }
            // Everything back; the rows, read by a new store, are memory's gallery.
            let left = try await RestoreReference.rows(store, g.id).values.filter(\.trashed).map(\.id).sorted()
            if !left.isEmpty { _ = try await RestoreReference.restoreAndCheck(store, g.id, left.shuffled(using: &rng)) }
            let memory = store.live.withLock { $0[g.id]!.snapshot }
            try store.close()
            #expect(try Snapshot(gallery: try await place.open().snapshot(g.id)) == memory)
            #expect(restores.one > 5 && restores.many > 5, "both paths ran: \(restores)")
        }
    }
}

/// The rules of a restore applied to every row of the gallery, written for plain arrays: the
/// oracle `RestoreTests` checks the store against.
///
/// - One by one (fewer than `BatchContext.manyRows` items), in the batch's order: an item whose
///   rank a live item of its section holds gets `RankKey.keys(1, rank, the next live rank above)`;
///   it is live for the next.
/// - Many at once: per section, the items sorted by (rank, id), those of one rank together; if a
///   live item holds the rank all of them get fresh keys, else all but the first; the fresh keys
///   are `RankKey.keys(n, rank, min(next live rank above, next restored rank))`.
/// - Either way every section's order is its live rows' (rank, id) order, sections by (rank, id).
enum RestoreReference {
    struct Row { let id: Int64; let section: Int64; let rank: String; let trashed: Bool }

    static func less(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    static func rows(_ store: GalleryStore, _ gallery: Int64) async throws -> [Int64: Row] {
        try await store.database.read { db in
            var out: [Int64: Row] = [:]
            for r in try db.fetchAll("SELECT id, sectionId, rank, trashed FROM item WHERE galleryId = ?", [gallery]) {
                out[r["id"]] = Row(id: r["id"], section: r["sectionId"], rank: r["rank"], trashed: r["trashed"])
            }
            return out
        }
    }

    /// Writes ranks in the rows only: of trashed items (not in memory), or with `live`, of a live
    /// item whose place among its neighbours the new rank keeps.
    static func setRank(_ store: GalleryStore, of ids: [Int64], to rank: String, live: Bool = false) async throws {
        try await store.database.write { db in
            for id in ids {
                let changed = try db.execute("UPDATE item SET rank = ? WHERE id = ? AND trashed = ?", [rank, id, live ? 0 : 1])
                guard changed == 1 else { throw TestSetupError(description: "setRank: item \(id) is not \(live ? "live" : "trashed")") }
            }
        }
    }

    /// The rank each restored item gets, from the live ranks of its section just before the
    /// restore (`live`) and the restored items' own rows.
    static func ranks(live: [Int64: [String]], restoring items: [Row]) -> [Int64: String] {
        func firstAbove(_ r: String, _ ranks: [String]) -> String? { ranks.filter { less(r, $0) }.min(by: less) }
        var out: [Int64: String] = [:]
        if items.count < BatchContext.manyRows {
            var live = live
            for item in items {
                var rank = item.rank
                let ranks = live[item.section, default: []]
                if ranks.contains(rank) { rank = RankKey.keys(1, between: rank, and: firstAbove(rank, ranks))[0] }
                live[item.section, default: []].append(rank)
                out[item.id] = rank
            }
            return out
        }
        for (section, mine) in Dictionary(grouping: items, by: \.section) {
            let ranks = live[section, default: []]
            let sorted = mine.sorted { $0.rank == $1.rank ? $0.id < $1.id : less($0.rank, $1.rank) }
            var groups: [[Row]] = []
            for item in sorted {
                if groups.last?.first?.rank == item.rank { groups[groups.count - 1].append(item) } else { groups.append([item]) }
            }
            for (k, group) in groups.enumerated() {
                let rank = group[0].rank
                let tie = ranks.contains(rank)
                let upper = [firstAbove(rank, ranks), k + 1 < groups.count ? groups[k + 1][0].rank : nil].compactMap { $0 }.min(by: less)
                let fresh = RankKey.keys(tie ? group.count : group.count - 1, between: rank, and: upper)
                for (n, item) in group.enumerated() {
                    out[item.id] = tie ? fresh[n] : (n == 0 ? rank : fresh[n - 1])
                }
            }
        }
        return out
    }

    /// Restores `ids` in one batch (after `first`, when given) and checks the result: the ranks the
    /// reference gives, memory's order equal to the rows' (rank, id) order, no two live items of a
    /// section on one rank, and the answer's stages turning the snapshot before into the one after.
    @discardableResult
    static func restoreAndCheck(_ store: GalleryStore, _ gallery: Int64, _ ids: [Int64], after first: [BatchEdit] = [],
                                sourceLocation: SourceLocation = #_sourceLocation) async throws -> BatchResult {
        let before = try await rows(store, gallery)
        let shown = try await store.snapshot(gallery)
        let result = try await store.apply(gallery: gallery, first + [.restore(items: ids)])
        let after = try await rows(store, gallery)
        let restoredSet = Set(ids)
        // The live ranks just before the restore: the rows after it, but for the restored items.
        var live: [Int64: [String]] = [:]
        for r in after.values where !r.trashed && !restoredSet.contains(r.id) { live[r.section, default: []].append(r.rank) }
        let expected = ranks(live: live, restoring: ids.map { before[$0]! })
        for id in ids {
            #expect(after[id]?.trashed == false, "item \(id) restored", sourceLocation: sourceLocation)
            #expect(after[id]?.rank == expected[id], "item \(id)'s rank (was \(before[id]!.rank))", sourceLocation: sourceLocation)
        }
        // Memory (the live snapshot) in the rows' order, with the rows' content versions.
        let fromRows = try await store.snapshot(gallery)
        let memory = store.live.withLock { $0[gallery]!.snapshot }
        #expect(memory == (try Snapshot(gallery: fromRows)), "memory and rows agree", sourceLocation: sourceLocation)
        for section in fromRows.sections {
            let ranks = section.items.map { after[$0.id]!.rank }
            #expect(Set(ranks).count == ranks.count, "no two live items of section \(section.id) on one rank", sourceLocation: sourceLocation)
        }
        var replayed = try Snapshot(gallery: shown)
        try replay(result.changes, on: &replayed)
        #expect(replayed == (try Snapshot(gallery: fromRows)), "the stages replay", sourceLocation: sourceLocation)
        return result
    }
}
