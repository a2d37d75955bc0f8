import Foundation
import GridEngine
import GalleryCore
import GalleryStore

/// Catching up from an older version (a window that reconnects): the store's answer now (the
/// logged stages since that version, O(changes)) beside what it did before issue 15 — rebuild
/// the snapshot at that version from the checkpoint below it (replaying up to 250 versions,
/// each O(n)) and diff it against now (O(n)) — on the same gallery, in the same run.
func runCatchUpBenchmarks(_ o: BenchOptions) async throws {
    print("")
    print("### Catch-up, \(o.items) items in \(o.sections) sections")
    let folder = temporaryFolder("catchup")
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = try GalleryStore(folder: folder)
    let per = o.items / o.sections
    let sections = benchSections(o.sections, per: per)
    let (gallery, _) = try await store.importGallery(name: "Bench", sections: sections)
    let start = try await store.snapshot(gallery.id)
    let sectionIds = start.sections.map(\.id)
    let itemIds = start.sections.flatMap { $0.items.map(\.id) }
    var rng = SystemRandomNumberGenerator()
    // 1,000 versions of single moves, with a trash and a restore every 50.
    var kept: [Int64: Snapshot] = [start.version: try Snapshot(gallery: start)]
    for k in 0..<1_000 {
        let r: BatchResult
        if k % 50 == 25 {
            r = try await store.apply(gallery: gallery.id, [.trash(items: [itemIds[k]])])
        } else if k % 50 == 26 {
            r = try await store.apply(gallery: gallery.id, [.restore(items: [itemIds[k - 1]])])
        } else {
            r = try await store.apply(gallery: gallery.id, [.move(items: [itemIds.randomElement(using: &rng)!],
                                                                 to: .index(section: sectionIds.randomElement(using: &rng)!, index: Int.random(in: 0..<(per / 2), using: &rng)))])
        }
        if r.version % 250 == 0 { kept[r.version] = try Snapshot(gallery: try await store.snapshot(gallery.id)) }
    }
    let now = try await store.snapshot(gallery.id)
    let nowSnapshot = try Snapshot(gallery: now)
    func median(_ runs: Int, _ body: () async throws -> Void) async rethrows -> Double {
        var times: [Double] = []
        for _ in 0..<runs { let t = nowSeconds(); try await body(); times.append(nowSeconds() - t) }
        return times.sorted()[runs / 2]
    }
    print("")
    print("| versions behind | stages sent | now: the logged stages since (O(changes)) | before: replay from the checkpoint + diff (O(n) per version) | ratio |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for since in [now.version - 9, now.version - 99, now.version - 251, now.version - 500, now.version - 999] {
        guard let changes = try await store.changes(gallery: gallery.id, since: since) else { continue }
        let fast = try await median(5) { _ = try await store.changes(gallery: gallery.id, since: since) }
        // Before: the snapshot at `since` rebuilt from the checkpoint below it, then diffed against now.
        let checkpoint = since - since % 250
        guard let base = kept[checkpoint], let replay = try await store.changes(gallery: gallery.id, since: checkpoint) else { continue }
        let steps = replay.stages.prefix(replay.stages.count - changes.stages.count).compactMap(\.batchUpdate)
        let slow = try await median(3) {
            var s = base
            for b in steps { try s.apply(b) }
            _ = try StagedChangeset(from: s, to: nowSnapshot).stages
        }
        print("| \(now.version - since) | \(changes.stages.count) | \(ms(fast)) | \(ms(slow)) (\(steps.count) versions replayed) | \(String(format: "%.0f", slow / fast))× |")
    }
}
