import Foundation
import Testing
import GalleryCore
@testable import GalleryStore
import StoreTestSupport

/// Ingestion leases (docs/storage.md, "Several instances"), on both backends: stores opened
/// side by side on one database stand for instances (each has its own writer connection on
/// PostgreSQL, so their claims really run at once).
@Suite struct LeaseTests {
    /// Claims `limit` at a time until nothing is left; answers what it got.
    static func drain(_ store: GalleryStore, _ owner: String) async throws -> [Int64] {
        var got: [Int64] = []
        while true {
            let claimed = try await store.claimPending(owner: owner, lease: 60, limit: 3)
            if claimed.isEmpty { return got }
            got += claimed.map(\.id)
        }
    }

    @Test(arguments: Backend.tested) func claimersAtOnceNeverGetTheSameItem(_ backend: Backend) async throws {
        let (first, place) = try await makeStore(backend)
        let (_, _) = try await makeGallery(first, sections: 2, perSection: 60)
        let all = Set(try await first.pendingItems().map(\.id))
        #expect(all.count == 120)
        let stores = [first, try await place.open(), try await place.open(), try await place.open()]
        let got = try await withThrowingTaskGroup(of: (Int, [Int64]).self) { group in
            for (i, s) in stores.enumerated() { group.addTask { (i, try await Self.drain(s, "instance-\(i)/1")) } }
            var out: [Int: [Int64]] = [:]
            for try await (i, ids) in group { out[i] = ids }
            return out
        }
        let claims = got.values.flatMap { $0 }
        #expect(claims.count == all.count, "every item claimed once: \(claims.count) claims of \(all.count) items")
        #expect(Set(claims) == all)
        // The rows say who holds each, and it is the claimer that got it.
        for (i, ids) in got {
            for id in ids.prefix(5) { #expect(try await first.lease(of: id).owner == "instance-\(i)/1") }
        }
        // Nothing is left to claim while the leases run.
        #expect(try await stores[1].claimPending(owner: "late/1", lease: 60, limit: 10).isEmpty)
    }

    @Test(arguments: Backend.tested) func aLeaseThatRanOutIsClaimedAgainAndARenewedOneIsNot(_ backend: Backend) async throws {
        let (a, place) = try await makeStore(backend)
        let b = try await place.open()
        let (_, _) = try await makeGallery(a, sections: 1, perSection: 3)
        let ids = try await a.pendingItems().map(\.id)
        // A holds all three: 0.5 s on the first two, 60 s on the third.
        #expect(try await a.claim(item: ids[0], owner: "A/1", lease: 0.5)?.id == ids[0])
        #expect(try await a.claim(item: ids[1], owner: "A/1", lease: 0.5)?.id == ids[1])
        #expect(try await a.claim(item: ids[2], owner: "A/1", lease: 60)?.id == ids[2])
        #expect(try await b.claim(item: ids[2], owner: "B/1", lease: 60) == nil, "a lease that runs is A's")
        // A renews the second (its work goes on); the first runs out.
        #expect(try await a.renewLeases(owner: "A/1", items: [ids[1]], lease: 60) == 1)
        #expect(try await b.renewLeases(owner: "B/1", items: [ids[1]], lease: 60) == 0, "only the holder renews")
        var taken: [Int64] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while taken.isEmpty && ContinuousClock.now < deadline {
            taken = try await b.claimPending(owner: "B/1", lease: 60, limit: 10).map(\.id)
            if taken.isEmpty { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(taken == [ids[0]], "only the lease that ran out changes hands")
        #expect(try await a.lease(of: ids[0]).owner == "B/1")
        #expect(try await a.lease(of: ids[1]).owner == "A/1")
        // A stops gracefully: what it holds is free at once.
        #expect(try await a.releaseLeases(owner: "A/1") == 2)
        #expect(Set(try await b.claimPending(owner: "B/1", lease: 60, limit: 10).map(\.id)) == [ids[1], ids[2]])
    }

    @Test(arguments: Backend.tested) func aFinishWithoutTheLeaseChangesNothing(_ backend: Backend) async throws {
        let (a, place) = try await makeStore(backend)
        let b = try await place.open()
        let (g, _) = try await makeGallery(a, sections: 1, perSection: 1)
        let id = try #require(try await a.pendingItems().first?.id)
        #expect(try await a.claim(item: id, owner: "A/1", lease: 0.3) != nil)
        var taken: ClaimedItem?
        let deadline = ContinuousClock.now + .seconds(30)
        while taken == nil && ContinuousClock.now < deadline {
            taken = try await b.claim(item: id, owner: "B/1", lease: 60)
            if taken == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(taken?.id == id)
        // A comes back from a stall with a result: refused, whatever it says.
        let aResult = IngestOutcome.ready(hash: String(repeating: "a", count: 64), width: 10, height: 10)
        #expect(try await !a.maySettle(item: id, .held(by: "A/1")))
        _ = try await a.apply(gallery: g.id, [.finish(item: id, aResult, lease: .held(by: "A/1"))], payload: "finish")
        var item = try await a.item(id)
        #expect(item.state == .pending && item.version == 0)
        // B, the holder, settles it once; the lease goes with it.
        let bResult = IngestOutcome.ready(hash: String(repeating: "b", count: 64), width: 30, height: 20)
        #expect(try await b.maySettle(item: id, .held(by: "B/1")))
        _ = try await b.apply(gallery: g.id, [.finish(item: id, bResult, lease: .held(by: "B/1"))], payload: "finish")
        item = try await a.item(id)
        #expect(item.state == .ready && item.fileHash == String(repeating: "b", count: 64) && item.width == 30 && item.version == 1)
        #expect(try await a.lease(of: id).owner == nil)
        // A second finish (B's own retry, or anyone without a lease) finds nothing pending.
        _ = try await b.apply(gallery: g.id, [.finish(item: id, .failed(reason: "late"), lease: .none)], payload: "finish")
        item = try await a.item(id)
        #expect(item.state == .ready && item.version == 1, "finished once")
    }

    /// One fetch settles the copies of a dropped URL that nobody holds, but not a copy another
    /// instance claimed to fetch itself.
    @Test(arguments: Backend.tested) func aURLsFinishSettlesFreeCopiesNotAnotherInstancesClaim(_ backend: Backend) async throws {
        let (a, place) = try await makeStore(backend)
        let b = try await place.open()
        let g1 = try await a.createGallery(name: "One"), g2 = try await a.createGallery(name: "Two")
        let url = "https://images.example/one.jpg"
        func drop(_ g: GalleryInfo) async throws -> Int64 {
            let s = try await a.snapshot(g.id).sections[0].id
            return try await a.apply(gallery: g.id, [.insert([NewItem(title: "one", sourceURL: url)], at: .end(section: s))], payload: "drop").createdItems[0]
        }
        let fetched = try await drop(g1), copy = try await drop(g1), elsewhere = try await drop(g2), bs = try await drop(g2)
        #expect(try await a.claim(item: fetched, owner: "A/1", lease: 60) != nil)
        #expect(try await b.claim(item: bs, owner: "B/1", lease: 60) != nil)
        let lease = LeaseCondition.heldOrFree(by: "A/1")
        let outcome = IngestOutcome.ready(hash: String(repeating: "c", count: 64), width: 4, height: 3)
        let galleries = try await a.galleriesWaiting(for: url, lease: lease)
        #expect(Set(galleries) == [g1.id, g2.id])
        for gallery in galleries { _ = try await a.apply(gallery: gallery, [.finishURL(url, outcome, lease: lease)], payload: "finish") }
        for id in [fetched, copy, elsewhere] { #expect(try await a.item(id).state == .ready) }
        #expect(try await a.item(bs).state == .pending, "B fetches its own claim and settles it")
        #expect(try await a.galleriesWaiting(for: url, lease: lease).isEmpty)
    }

    /// Two instances writing one gallery (an upload on one, finishes on the other): each batch
    /// applies to the gallery as the database has it, not to what its process loaded earlier, and
    /// none fails. Before, the second instance's next batch ran on its stale snapshot.
    /// PostgreSQL only: several instances share a PostgreSQL database (each follows the others'
    /// versions, GalleryStore+Fanout.swift); a SQLite data folder has one server process.
    @Test(arguments: Backend.tested.filter { $0 == .postgres }) func twoStoresWritingOneGalleryEachSeeTheOthersVersions(_ backend: Backend) async throws {
        let (a, place) = try await makeStore(backend)
        let b = try await place.open()
        let (g, sections) = try await makeGallery(a, sections: 1, perSection: 2)
        let start = try await a.snapshot(g.id)
        _ = try await b.snapshot(g.id)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (k, store) in [a, b].enumerated() {
                group.addTask {
                    for i in 0..<15 {
                        _ = try await store.apply(gallery: g.id, [.insert([NewItem(title: "\(k)-\(i)")], at: .end(section: sections[0]))], payload: "insert")
                    }
                }
            }
            try await group.waitForAll()
        }
        let now = try await a.snapshot(g.id)
        #expect(now.version == start.version + 30, "versions gap-free")
        #expect(now.sections[0].items.count == 32)
        // Taking turns does not churn the catch-up window: a reload writes no checkpoint of its
        // own when the instances' checkpoints and stages rebuild it, so no log row is compacted away.
        let (logged, checkpoints) = try await a.database.read { db in
            (try db.value("SELECT COUNT(*) FROM operation WHERE galleryId = ?", [g.id], as: Int64.self)!,
             try db.value("SELECT COUNT(*) FROM checkpoint WHERE galleryId = ?", [g.id], as: Int.self)!)
        }
        #expect(logged == now.version, "every version's log row is there (\(checkpoints) checkpoints)")
        // Each process's memory follows the rows: its next batch answers the database's next
        // version, and the count it keeps in memory is the rows' count.
        var expected = 32
        for store in [a, b] {
            let r = try await store.apply(gallery: g.id, [.insert([NewItem(title: "last")], at: .end(section: sections[0]))], payload: "insert")
            expected += 1
            #expect(r.version == (try await a.snapshot(g.id)).version)
            #expect(try await store.gallery(g.id).itemCount == expected)
        }
    }

    /// Things done once per database: the first caller gets them.
    @Test(arguments: Backend.tested) func aStartUpTaskGoesToOneCaller(_ backend: Backend) async throws {
        let (a, place) = try await makeStore(backend)
        let others = [a, try await place.open(), try await place.open()]
        let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
            for (i, s) in others.enumerated() { group.addTask { try await s.claimOnce("sample-gallery", by: "i\(i)") } }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(wins == 1)
    }
}
