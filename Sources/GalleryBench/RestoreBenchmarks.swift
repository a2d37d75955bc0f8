import Foundation
import GalleryCore
import GalleryStore
import Synchronization

/// `limits --restore`: a restore of 1,000 items spread over every section of a big gallery (the
/// server's batch limit), in process. Per size (`--restore-sizes 100000,1000000`, `--sections`,
/// 100 by default here): the gallery seeded once; then `--rounds` rounds, each trashing the
/// 1,000 items and restoring them twice — with the index seeks (`restoreMany`, shipped) and with
/// the code before session 15 (each touched section's live rows read and the section laid out
/// again, the stage from a diff: `GalleryStore.restoresBySeek = false`), in alternating order.
/// Meanwhile a probe sends a single move of another item every 2 ms: it waits for the writer, as
/// every other window's move does. With `--postgres URL` the same on a new PostgreSQL database.
func runRestoreBenchmarks(_ o: BenchOptions, postgres: String?) async throws {
    let sizes = o.numbers("--restore-sizes") ?? [100_000, 1_000_000]
    let sections = o.has("--sections") ? o.sections : 100
    for size in sizes {
        try await runRestore(o, items: size, sections: sections, database: nil)
        if let postgres {
            try await runRestore(o, items: size, sections: sections,
                                 database: try PostgresDatabase.createDatabase(beside: postgres, named: "bench_\(UInt32.random(in: 0...UInt32.max))"))
        }
    }
}

func runRestore(_ o: BenchOptions, items: Int, sections: Int, database: String?) async throws {
    let folder = temporaryFolder("restore")
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = try GalleryStore(folder: folder, databaseURL: database)
    let per = items / sections
    let seeded = nowSeconds()
    let (gallery, _) = try await store.importGallery(name: "Bench", sections: benchSections(sections, per: per))
    let seedTime = nowSeconds() - seeded
    let gid = gallery.id
    let order = try await store.database.read { db in
        try db.values("SELECT id FROM item WHERE galleryId = ? AND trashed = 0 ORDER BY sectionId, rank, id", [gid], as: Int64.self)
    }
    // 1,000 items spread evenly over the gallery (10 per section at 100 sections). The probes move
    // an item of a small section of their own (its keys never meet the restored items').
    let k = 1_000
    let restored = (0..<k).map { order[$0 * order.count / k] }
    let probeSection = try await store.apply(gallery: gid, [.createSection(title: "probe", index: nil)]).createdSections[0]
    let probe = try await store.apply(gallery: gid, [.insert([NewItem(title: "p0"), NewItem(title: "p1")], at: .end(section: probeSection))],
                                      payload: "seed").createdItems[0]
    _ = try await store.gallery(gid) // the live snapshot loaded
    _ = try await store.apply(gallery: gid, [.move(items: [probe], to: .index(section: probeSection, index: 1))])

    struct Figures { var restore: [Double] = []; var trash: [Double] = []; var probeMax: [Double] = []; var probes = 0 }
    var byVariant = [true: Figures(), false: Figures()]
    print("")
    print("### Restoring \(k) items spread over \(sections) sections of \(items) items on \(database == nil ? "SQLite" : "PostgreSQL") (seeded in \(String(format: "%.1f", seedTime)) s)")
    for round in 0..<max(1, o.rounds) {
        for seek in round % 2 == 0 ? [false, true] : [true, false] {
            let t0 = nowSeconds()
            _ = try await store.apply(gallery: gid, [.trash(items: restored)])
            byVariant[seek]!.trash.append(nowSeconds() - t0)
            GalleryStore.restoresBySeek = seek
            defer { GalleryStore.restoresBySeek = true }
            let finished = Mutex(false)
            let probes = Task { () -> [Double] in
                var waits: [Double] = []
                var index = 0
                while !finished.withLock({ $0 }) {
                    let t = nowSeconds()
                    _ = try await store.apply(gallery: gid, [.move(items: [probe], to: .index(section: probeSection, index: index))])
                    waits.append(nowSeconds() - t)
                    index = 1 - index
                    try await Task.sleep(for: .milliseconds(2))
                }
                return waits
            }
            try await Task.sleep(for: .milliseconds(20)) // the probes going first
            let t1 = nowSeconds()
            _ = try await store.apply(gallery: gid, [.restore(items: restored.reversed())])
            let took = nowSeconds() - t1
            finished.withLock { $0 = true }
            let waits = try await probes.value
            GalleryStore.restoresBySeek = true
            byVariant[seek]!.restore.append(took)
            byVariant[seek]!.probeMax.append(waits.max() ?? 0)
            byVariant[seek]!.probes += waits.count
            // Every item back where it was (no key was taken meanwhile).
            let now = try await store.database.read { db in
                try db.values("SELECT id FROM item WHERE galleryId = ? AND trashed = 0 AND sectionId <> ? ORDER BY sectionId, rank, id", [gid, probeSection], as: Int64.self)
            }
            guard now == order else { throw BenchFailure("the restore did not put the items back in their places") }
        }
    }
    func list(_ xs: [Double]) -> String { xs.map { String(format: "%.1f", $0 * 1000) }.joined(separator: " / ") }
    print("")
    print("| | before (each section's rows read, the stage diffed) | index seeks (shipped) |")
    print("| --- | ---: | ---: |")
    print("| the \(k) items restored in one batch, ms per round | \(list(byVariant[false]!.restore)) | \(list(byVariant[true]!.restore)) |")
    print("| the longest wait of a single move sent meanwhile, ms per round | \(list(byVariant[false]!.probeMax)) | \(list(byVariant[true]!.probeMax)) |")
    print("| (the same \(k) items trashed in one batch before it, ms per round) | \(list(byVariant[false]!.trash)) | \(list(byVariant[true]!.trash)) |")
}
