import Testing
import Foundation
import GridEngine
import GalleryCore
@testable import GalleryStore
import StoreTestSupport

/// Issue 15.3: a hot-path batch's answer (one item moved, an insert, an outcome) takes the
/// gallery's sections and name from the batch before it instead of reading them
/// (`SectionsAndName`, kept per gallery and version). Every answer must still carry them as the
/// rows are at its version: after section and gallery changes, inside a group commit, after a
/// refused batch, and on PostgreSQL after another instance's change.
@Suite struct AnswerSectionsTests {
    /// The sections and name as the rows are now.
    static func rows(_ store: GalleryStore, _ gallery: Int64) async throws -> ([SectionInfoJSON], String) {
        let snap = try await store.snapshot(gallery)
        return (snap.sections.map { SectionInfoJSON(id: $0.id, title: $0.title) }, snap.gallery.name)
    }

    static func expectCurrent(_ store: GalleryStore, _ gallery: Int64, _ answer: BatchResult,
                              _ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let (sections, name) = try await rows(store, gallery)
        #expect(answer.changes.sections == sections, comment, sourceLocation: sourceLocation)
        #expect(answer.changes.name == name, comment, sourceLocation: sourceLocation)
    }

    @Test(arguments: Backend.tested) func everyMovesAnswerCarriesTheSectionsAndNameOfItsVersion(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let (g, sections) = try await makeGallery(store, sections: 3, perSection: 6)
        let ids = try await store.snapshot(g.id).sections[0].items.map(\.id)
        var k = 0
        func move(_ why: Comment) async throws {
            let r = try await store.apply(gallery: g.id, [.move(items: [ids[k % ids.count]], to: .index(section: sections[1], index: 0))])
            k += 1
            try await Self.expectCurrent(store, g.id, r, why)
        }
        try await move("first move")
        try await move("second move (from the kept sections)")
        _ = try await store.apply(gallery: g.id, [.renameSection(sections[1], title: "Renamed")])
        try await move("after a section's rename")
        #expect(try await Self.rows(store, g.id).0[1].title == "Renamed")
        _ = try await store.renameGallery(g.id, name: "New name")
        try await move("after the gallery's rename")
        let created = try await store.apply(gallery: g.id, [.createSection(title: "Fourth", index: 0)]).createdSections[0]
        try await move("after a section was created")
        _ = try await store.apply(gallery: g.id, [.moveSection(created, index: 3)])
        try await move("after a section was moved")
        _ = try await store.apply(gallery: g.id, [.deleteSection(sections[2])])
        try await move("after a section was deleted")
        let (now, name) = try await Self.rows(store, g.id)
        #expect(name == "New name")
        #expect(now.map(\.title) == ["Section 1", "Renamed", "Fourth"])
    }

    /// In one group commit: a rename between two moves reaches the second move's answer; a
    /// refused rename (its savepoint undone) does not.
    @Test func aGroupsMovesAnswerTheNameOfTheBatchBeforeThemInTheSameTransaction() async throws {
        let (store, _) = try await makeStore(.sqlite)
        let (g, sections) = try await makeGallery(store, sections: 2, perSection: 5)
        let ids = try await store.snapshot(g.id).sections[0].items.map(\.id)
        _ = try await store.apply(gallery: g.id, [.move(items: [ids[0]], to: .end(section: sections[1]))]) // kept: "Test"
        let held = try await GroupCommitTests.HeldWriter(store)
        let before = store.batchGroupStats
        var tasks: [Task<BatchResult, any Error>] = []
        let writes: [[StoreWrite]] = [
            [.client(.move(items: [ids[1]], to: .end(section: sections[1])))],
            [.renameGallery("Renamed in the group")],
            [.client(.move(items: [ids[2]], to: .end(section: sections[1])))],
            [.client(.move(items: [999_999], to: .end(section: sections[1])))], // refused: no such item
            [.client(.move(items: [ids[3]], to: .end(section: sections[1])))],
        ]
        let waiting = store.waitingBatchCount
        for (n, w) in writes.enumerated() {
            tasks.append(Task { try await store.apply(gallery: g.id, w, payload: ["test": n]) })
            while store.waitingBatchCount < waiting + n + 1 { await Task.yield() }
        }
        try await held.release()
        var names: [String?] = []
        for t in tasks { names.append((try? await t.value)?.changes.name) }
        #expect(names == ["Test", "Renamed in the group", "Renamed in the group", nil, "Renamed in the group"])
        #expect(store.batchGroupStats.batches - before.batches == writes.count, "the five shared one transaction")
        let r = try await store.apply(gallery: g.id, [.move(items: [ids[4]], to: .end(section: sections[1]))])
        try await Self.expectCurrent(store, g.id, r, "after the group")
    }

    /// PostgreSQL, two instances: a section renamed on B reaches A's next move's answer (A's kept
    /// sections are of an older version).
    @Test func aChangeOnAnotherInstanceReachesTheNextAnswer() async throws {
        guard FanoutTests.enabled else { return }
        let (a, b) = try await FanoutTests.twoStores()
        defer { try? a.close(); try? b.close() }
        let (g, sections) = try await makeGallery(a, sections: 2, perSection: 4)
        let ids = try await a.snapshot(g.id).sections[0].items.map(\.id)
        let r1 = try await a.apply(gallery: g.id, [.move(items: [ids[0]], to: .end(section: sections[1]))])
        try await Self.expectCurrent(a, g.id, r1, "A's first move")
        _ = try await b.apply(gallery: g.id, [.renameSection(sections[0], title: "Renamed on B")])
        _ = try await b.renameGallery(g.id, name: "Named on B")
        let r2 = try await a.apply(gallery: g.id, [.move(items: [ids[1]], to: .end(section: sections[1]))])
        #expect(r2.changes.sections.first?.title == "Renamed on B")
        #expect(r2.changes.name == "Named on B")
        try await Self.expectCurrent(a, g.id, r2, "A's move after B's changes")
    }
}
