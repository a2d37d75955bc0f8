import Testing
import Foundation
import GridEngine
import GalleryCore
@testable import GalleryStore
import StoreTestSupport

/// Every stage a client receives names the items it deletes, moves and reloads, so a client
/// that keeps no arrangement (the page: its engine holds the order) knows what a change
/// touches. Checked against the arrangement before each stage, for batches of every kind and
/// for catch-up diffs.
@Suite struct StageIDsTests {
    /// The arrangement as sections of ids.
    static func arrangement(_ s: GallerySnapshotJSON) -> [[Int64]] { s.sections.map { $0.items.map(\.id) } }

    /// Each stage's ids are the items at its paths in the arrangement that stage applies to.
    static func expectIDsMatch(_ changes: ChangesJSON, from before: GallerySnapshotJSON) throws {
        var snapshot = try Snapshot(before.sections.map { s in (SectionID(UInt64(s.id)), s.items.map { ItemID(UInt64($0.id)) }) })
        for stage in changes.stages {
            let update = try #require(stage.batchUpdate)
            let deleted = try #require(stage.deletedIDs), moved = try #require(stage.movedIDs), reloaded = try #require(stage.reloadedIDs)
            #expect(deleted == update.itemDeletes.map { snapshot.itemID(at: $0).rawValue })
            #expect(moved == update.itemMoves.map { snapshot.itemID(at: $0.from).rawValue })
            #expect(reloaded == update.itemReloads.map { snapshot.itemID(at: $0.at).rawValue })
            snapshot = try snapshot.applying(update)
        }
    }

    @Test(arguments: Backend.tested) func everyBatchKindNamesTheItemsItsStagesTouch(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let (g, _) = try await makeGallery(store, sections: 2, perSection: 8)
        let start = try await store.snapshot(g.id)
        let a = start.sections[0].items.map(\.id), b = start.sections[1].items.map(\.id)
        let batches: [[BatchEdit]] = [
            [.move(items: [a[0]], to: .index(section: start.sections[1].id, index: 2))],
            [.swap(a[1], b[3])],
            [.copy(items: [a[2], b[0]], to: .before(item: a[4]))],
            [.trash(items: [a[5], b[1]])],
            [.restore(items: [a[5]])],
            [.move(items: [a[6], a[7], b[5]], to: .index(section: start.sections[0].id, index: 0))],
            [.trash(items: [b[6]]), .move(items: [a[3]], to: .end(section: start.sections[1].id))],
        ]
        var touched = 0
        for ops in batches {
            let before = try await store.snapshot(g.id)
            let result = try await store.apply(gallery: g.id, ops)
            try Self.expectIDsMatch(result.changes, from: before)
            touched += result.changes.stages.reduce(0) { $0 + ($1.deletedIDs?.count ?? 0) + ($1.movedIDs?.count ?? 0) }
        }
        #expect(touched >= 10, "the batches delete and move items: their stages name them")
        // The hot path (one item moved) names it.
        let one = try await store.apply(gallery: g.id, [.move(items: [b[2]], to: .index(section: start.sections[0].id, index: 1))])
        #expect(one.changes.stages.map { $0.movedIDs } == [[UInt64(b[2])]])
    }

    @Test(arguments: Backend.tested) func aCatchUpDiffNamesItsItemsStageByStage(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let (g, _) = try await makeGallery(store, sections: 3, perSection: 12)
        let old = try await store.snapshot(g.id)
        let a = old.sections[0].items.map(\.id), c = old.sections[2].items.map(\.id)
        _ = try await store.apply(gallery: g.id, [.trash(items: [a[1], c[4]])])
        _ = try await store.apply(gallery: g.id, [.move(items: [a[3], a[8]], to: .index(section: old.sections[2].id, index: 0))])
        _ = try await store.apply(gallery: g.id, [.moveSection(old.sections[2].id, index: 0)])
        _ = try await store.apply(gallery: g.id, [.renameItem(c[0], title: "renamed")])
        let changes = try #require(try await store.changes(gallery: g.id, since: old.version))
        #expect(!changes.stages.isEmpty)
        try Self.expectIDsMatch(changes, from: old)
    }

    /// The stored log keeps the stages as they were streamed, ids included (catch-up serves them
    /// as they are); a row without the ids (older code) is not served.
    @Test func theStoredLogKeepsTheIDsAndRefusesRowsWithout() throws {
        var b = BatchUpdate()
        b.itemDeletes = [IndexPath(item: 0, section: 0)]
        b.itemCountsAfter = [0]
        let s = try Snapshot([(id: SectionID(1), items: [ItemID(7)], versions: [0])])
        let text = try CatchUpLog.encodeStages(StageJSON.stages([b], from: s))
        #expect(text.contains("\"deletedIDs\":[7]"))
        #expect(CatchUpLog.decodeStages(text) == StageJSON.stages([b], from: s))
        let bare = try CatchUpLog.encodeStages([StageJSON(b)])
        #expect(CatchUpLog.decodeStages(bare) == nil)
        // Ids that do not name the items at the stage's places are refused when replayed.
        var wrong = StageJSON.stages([b], from: s)[0]
        wrong.deletedIDs = [8]
        var replayed = s
        #expect(!replayed.applyChecked(wrong) && replayed == s)
        #expect(replayed.applyChecked(StageJSON.stages([b], from: s)[0]) && replayed.itemCount == 0)
    }
}
