import Foundation
import GRDB
import GalleryCore
import GalleryStore

/// The operation log on disk as versions go by (issue 15.4: "compacted behind checkpoints with a
/// bounded size on disk"): a gallery of `--items` takes `--versions` single moves in process, and
/// every tenth of the way the log's rows and bytes, the checkpoints' rows and bytes and the
/// database file are read. The log is bounded when those numbers stop growing.
func runHistoryBenchmark(_ o: BenchOptions) async throws {
    let versions = o.number("--versions") ?? 20_000
    print("")
    print("### The operation log on disk: \(o.items) items in \(o.sections) sections, \(versions) single moves")
    let folder = temporaryFolder("history")
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = try GalleryStore(folder: folder)
    let per = o.items / o.sections
    let sections = benchSections(o.sections, per: per)
    let (gallery, _) = try await store.importGallery(name: "Bench", sections: sections)
    let start = try await store.snapshot(gallery.id)
    let sectionIds = start.sections.map(\.id)
    let itemIds = start.sections.flatMap { $0.items.map(\.id) }
    var rng = SystemRandomNumberGenerator()
    func megabytes(_ bytes: Int64) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }
    print("")
    print("| versions | log rows | log bytes (payload + stages) | checkpoints | checkpoint bytes | gallery.sqlite + WAL |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for k in 1...versions {
        let id = itemIds.randomElement(using: &rng)!, section = sectionIds.randomElement(using: &rng)!
        _ = try await store.apply(gallery: gallery.id, [.move(items: [id], to: .index(section: section, index: Int.random(in: 0..<(per / 2), using: &rng)))])
        guard k % max(1, versions / 10) == 0 else { continue }
        let row = try await store.pool.read { db in
            try Row.fetchOne(db, sql: """
                SELECT (SELECT COUNT(*) FROM operation WHERE galleryId = ?1) AS logRows,
                       (SELECT COALESCE(SUM(LENGTH(payload) + COALESCE(LENGTH(stages), 0)), 0) FROM operation WHERE galleryId = ?1) AS logBytes,
                       (SELECT COUNT(*) FROM checkpoint WHERE galleryId = ?1) AS checkpoints,
                       (SELECT COALESCE(SUM(LENGTH(snapshot)), 0) FROM checkpoint WHERE galleryId = ?1) AS checkpointBytes
                """, arguments: [gallery.id])!
        }
        let files = ["gallery.sqlite", "gallery.sqlite-wal"].compactMap {
            (try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent($0).path)[.size] as? NSNumber)?.int64Value
        }.reduce(0, +)
        print("| \(k) | \(row["logRows"] as Int64) | \(megabytes(row["logBytes"])) | \(row["checkpoints"] as Int64) | \(megabytes(row["checkpointBytes"])) | \(megabytes(files)) |")
    }
}
