import Foundation
import GalleryCore
import GalleryStore
import Synchronization

/// Issue 15's limits: one batch that moves every item of a 100k gallery, and how the store answers
/// others meanwhile — reads (the pool's readers) and a single move (which waits for the writer).
/// With `--postgres URL` (a role that may CREATE DATABASE) the same again on a new PostgreSQL database.
func runLimitsBenchmarks(_ o: BenchOptions, _ args: [String]) async throws {
    try await runLimits(o, database: nil)
    if let server = args.firstIndex(of: "--postgres").flatMap({ args.indices.contains($0 + 1) ? args[$0 + 1] : nil }) {
        try await runLimits(o, database: try PostgresDatabase.createDatabase(beside: server, named: "bench_\(UInt32.random(in: 0...UInt32.max))"))
    }
}

func runLimits(_ o: BenchOptions, database: String?) async throws {
    print("")
    print("### Limits on \(database == nil ? "SQLite" : "PostgreSQL"): a batch moving \(o.items) items, \(o.items) items in \(o.sections) sections")
    let folder = temporaryFolder("limits")
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = try GalleryStore(folder: folder, databaseURL: database)
    let per = o.items / o.sections
    let sections = (0..<o.sections).map { s in
        (title: "S\(s)", items: (0..<per).map { i in
            NewItem(title: "\(s)-\(i)", fileHash: String(repeating: "0", count: 64), width: 400 + i % 600, height: 300, state: .ready)
        })
    }
    let (gallery, _) = try await store.importGallery(name: "Bench", sections: sections)
    let snap = try await store.snapshot(gallery.id)
    let all = snap.sections.flatMap { $0.items.map(\.id) }
    _ = try await store.gallery(gallery.id) // warm
    _ = try await store.apply(gallery: gallery.id, [.move(items: [all[0]], to: .end(section: snap.sections[1].id))])
    let finished = Mutex(false)
    let big = Task { () -> (Double, Int) in
        defer { finished.withLock { $0 = true } }
        let t = nowSeconds()
        let r = try await store.apply(gallery: gallery.id, [.move(items: all.reversed(), to: .end(section: snap.sections[0].id))])
        return (nowSeconds() - t, r.rowsWritten)
    }
    try await Task.sleep(for: .milliseconds(50))
    let single = Task { () -> Double in
        let t = nowSeconds()
        _ = try await store.apply(gallery: gallery.id, [.move(items: [all[5]], to: .end(section: snap.sections[2].id))])
        return nowSeconds() - t
    }
    var reads: [Double] = []
    while !finished.withLock({ $0 }) {
        let t = nowSeconds()
        _ = try await store.gallery(gallery.id)
        reads.append(nowSeconds() - t)
        try await Task.sleep(for: .milliseconds(10))
    }
    let (bigTime, rows) = try await big.value
    let singleTime = try await single.value
    reads.sort()
    print("")
    print("| | time |")
    print("| --- | ---: |")
    print("| the batch: \(all.count) items moved in one operation (\(rows) rows written) | \(ms(bigTime)) |")
    print("| a single move sent 50 ms after it (waits for the writer) | \(ms(singleTime)) |")
    print("| reads meanwhile (gallery info, \(reads.count) reads every 10 ms): p50 / max | \(ms(percentile(reads, 0.5))) / \(ms(reads.last ?? 0)) |")
    // The same items put in the trash and back, each in one batch; then copied.
    for (name, op) in [("trashed", BatchEdit.trash(items: all)), ("restored", .restore(items: all)),
                       ("copied to the end of the last section", .copy(items: all, to: .end(section: snap.sections.last!.id)))] {
        let t = nowSeconds()
        _ = try await store.apply(gallery: gallery.id, [op])
        print("| the \(all.count) items \(name) in one batch | \(ms(nowSeconds() - t)) |")
    }
}

