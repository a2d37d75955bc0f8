import Foundation
#if canImport(Glibc)
import Glibc
#endif
import GridEngine
import GalleryCore
@testable import GalleryStore
import StoreTestSupport

/// Stores on real SQLite files in fresh temporary folders (images there for both backends).
let storeTestRoot: URL = {
    // One folder per test process under a shared base: runs from several worktrees may go on at
    // the same time on one machine, so a run removes only the folders of processes that ended.
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-store-tests.by-process")
    try? FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? [] {
        guard let pid = Int32(entry), pid != getpid() else { continue }
        if kill(pid, 0) != 0 && errno == ESRCH { try? FileManager.default.removeItem(at: base.appendingPathComponent(entry)) }
    }
    let root = base.appendingPathComponent("\(getpid())")
    try? FileManager.default.removeItem(at: root)
    try! FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    return root
}()

/// `historyEvery`: versions between catch-up checkpoints (the shipped 250 unless a test walks
/// whole windows: `shortHistory`).
func makeStore(_ backend: Backend = .sqlite, historyEvery: Int64 = GalleryStore.defaultHistoryEvery) async throws -> (GalleryStore, StorePlace) {
    let folder = storeTestRoot.appendingPathComponent(UUID().uuidString)
    let place = StorePlace(folder: folder, databaseURL: try await backend.databaseURL(), historyEvery: historyEvery)
    return (try await place.open(), place)
}

/// Catch-up checkpoints every 25 versions instead of 250, for the tests that fill and pass
/// whole catch-up windows (eight intervals): the same logic in a tenth of the batches — those
/// tests were most of the suite's time on PostgreSQL. `CatchUpTests` keeps one history at the
/// shipped 250.
let shortHistory: Int64 = 25

/// Where a test store's rows and images are: reopened by `open()` (a restart) with the same
/// checkpoint interval.
struct StorePlace {
    let folder: URL
    let databaseURL: String?
    var historyEvery: Int64 = GalleryStore.defaultHistoryEvery

    /// Off Swift's pool: on PostgreSQL the store's migration waits for the server.
    func open() async throws -> GalleryStore {
        try await GalleryStore.open(folder: folder, databaseURL: databaseURL, historyEvery: historyEvery)
    }
}

/// A gallery with `sections` sections of `perSection` pending items titled "s-i".
func makeGallery(_ store: GalleryStore, sections: Int, perSection: Int) async throws -> (GalleryInfo, [Int64]) {
    let g = try await store.createGallery(name: "Test")
    let first = try await store.snapshot(g.id).sections[0].id
    var sectionIds = [first]
    for s in 1..<max(1, sections) {
        let r = try await store.apply(gallery: g.id, [.createSection(title: "S\(s)", index: nil)])
        sectionIds.append(r.createdSections[0])
    }
    for (s, id) in sectionIds.enumerated() where perSection > 0 {
        let items = (0..<perSection).map { NewItem(title: "\(s)-\($0)") }
        _ = try await store.apply(gallery: g.id, [.insert(items, at: .end(section: id))], payload: "seed")
    }
    return (try await store.gallery(g.id), sectionIds)
}

func titles(_ s: GallerySnapshotJSON) -> [[String]] { s.sections.map { $0.items.map(\.title) } }

/// Applies the JSON stages of a change to a snapshot, validating each against it.
func replay(_ changes: ChangesJSON, on snapshot: inout Snapshot) throws {
    for stage in changes.stages {
        let b = stage.batchUpdate!
        try BatchUpdate.validate(b, against: snapshot)
        try snapshot.apply(b)
    }
}
