import Foundation
import GalleryCore
import GridEngine
import GalleryStore
import Synchronization
import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import GalleryServer

/// Issue 15's limits: one batch that moves every item of a 100k gallery, and how the store answers
/// others meanwhile — reads (the pool's readers) and a single move (which waits for the writer).
/// With `--postgres URL` (a role that may CREATE DATABASE) the same again on a new PostgreSQL database.
/// `--batch-items 5000,10000` moves that many items (spread over the gallery) instead of all, a run each.
/// `--copy-baseline`: each batch also made the way before session 16 (the whole engine snapshot
/// copied first: `GalleryStore.batchesInPlace` false), alternating with the shipped way on the
/// same gallery, `--rounds` pairs. With `--http`, the same switch instead of the old batch limit,
/// and `--moving N` moves only N of the items (e.g. the issue's 100k in a 1M gallery);
/// `--http --flat-limit-baseline`: the shipped limit beside 1,000 at any gallery size (before session 16).
/// `--scattered`: the batch is one operation per item, each moving it to a place of its own (a random
/// index in a random section) — the shape of an undo of a spread move, which puts each item back.
/// `--whole-diff-baseline`: each run again with the batch's diff comparing every section (before
/// session 17) first, `--rounds` pairs.
/// `--section-ops`: batches that add, remove or move a section and restores, beside the way before
/// session 18 (`runSectionBatchBenchmarks`).
func runLimitsBenchmarks(_ o: BenchOptions) async throws {
    let server = o.text("--postgres")
    if o.has("--restore") {
        try await runRestoreBenchmarks(o, postgres: server)
        return
    }
    if o.has("--section-ops") {
        try await runSectionBatchBenchmarks(o)
        if let server {
            try await runSectionBatchBenchmarks(o, database: try PostgresDatabase.createDatabase(beside: server, named: "bench_\(UInt32.random(in: 0...UInt32.max))"))
        }
        return
    }
    let copyBaseline = o.has("--copy-baseline")
    if o.has("--http") {
        let moving = o.number("--moving")
        if copyBaseline {
            // The shipped limit both times: the batches copying the snapshot (before session 16), then in place.
            for _ in 0..<max(1, o.rounds) {
                for inPlace in [false, true] {
                    GalleryStore.batchesInPlace = inPlace
                    try await runLimitsHTTP(o, limit: nil, moving: moving)
                }
            }
            GalleryStore.batchesInPlace = true
            return
        }
        if o.has("--flat-limit-baseline") {
            // The shipped limit (scaled with the gallery past 500,000 items), then 1,000 at any size (before session 16).
            for _ in 0..<max(1, o.rounds) {
                try await runLimitsHTTP(o, limit: nil, moving: moving)
                try await runLimitsHTTP(o, limit: nil, fullUpTo: 0, moving: moving)
            }
            return
        }
        // The shipped limit, then the one before session 14 (100,000: the whole move in one batch) as the baseline.
        try await runLimitsHTTP(o, limit: nil, moving: moving)
        try await runLimitsHTTP(o, limit: 100_000, moving: moving)
        return
    }
    let modes = copyBaseline ? (0..<max(1, o.rounds)).flatMap { _ in [false, true] } : [true]
    let baseline = o.has("--diff-stages")
    let scattered = o.has("--scattered")
    for batch in o.batchItems.isEmpty ? [nil] : o.batchItems.map(Optional.some) {
        if baseline {
            // The baseline beside it: the batch's stage from a diff of the whole gallery (before session 14).
            GalleryStore.recordsStages = false
            try await runLimits(o, batch: batch, database: nil, modes: [false], scattered: scattered)
            GalleryStore.recordsStages = true
        }
        if o.has("--whole-diff-baseline") {
            for _ in 0..<max(1, o.rounds) {
                for changedOnly in [false, true] {
                    GalleryStore.diffsChangedSectionsOnly = changedOnly
                    try await runLimits(o, batch: batch, database: nil, modes: [true], scattered: scattered)
                }
            }
            continue
        }
        try await runLimits(o, batch: batch, database: nil, modes: modes, scattered: scattered)
        if let server {
            try await runLimits(o, batch: batch, database: try PostgresDatabase.createDatabase(beside: server, named: "bench_\(UInt32.random(in: 0...UInt32.max))"),
                                modes: modes, scattered: scattered)
        }
    }
}

/// `modes`: one run each on the same gallery, true the shipped way (`GalleryStore.batchesInPlace`),
/// false the baseline that copies the snapshot; each run's batch names other items (spread the same way).
/// `scattered`: one operation per item, each to a random place (see `--scattered`).
func runLimits(_ o: BenchOptions, batch: Int?, database: String?, modes: [Bool], scattered: Bool = false) async throws {
    let folder = temporaryFolder("limits")
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = try GalleryStore(folder: folder, databaseURL: database)
    let per = o.items / o.sections
    let sections = benchSections(o.sections, per: per)
    let (gallery, _) = try await store.importGallery(name: "Bench", sections: sections)
    let snap = try await store.snapshot(gallery.id)
    let every = snap.sections.flatMap { $0.items.map(\.id) }
    _ = try await store.gallery(gallery.id) // warm
    _ = try await store.apply(gallery: gallery.id, [.move(items: [every[1]], to: .end(section: snap.sections[1].id))])
    for (run, inPlace) in modes.enumerated() {
    GalleryStore.batchesInPlace = inPlace
    defer { GalleryStore.batchesInPlace = true }
    print("")
    print("### Limits on \(database == nil ? "SQLite" : "PostgreSQL")\(GalleryStore.recordsStages ? "" : " (baseline: stages from a diff)")\(inPlace ? "" : " (baseline: the snapshot copied, before session 16)")\(GalleryStore.diffsChangedSectionsOnly ? "" : " (baseline: every section diffed, before session 17)"): a batch moving \(batch ?? o.items) items\(scattered ? " each to a place of its own" : ""), \(o.items) items in \(o.sections) sections")
    // The items the big batch names: all, or `batch` of them spread evenly over the gallery (a
    // later run on the same gallery the ones just after them: not moved yet).
    let all = batch.map { n in (0..<min(n, every.count)).map { every[min(every.count - 1, $0 * every.count / min(n, every.count) + (modes.count > 1 ? 2 + run : 0))] } } ?? every
    let finished = Mutex(false)
    var rng = SystemRandomNumberGenerator()
    let edits: [BatchEdit] = scattered
        ? all.map { .move(items: [$0], to: .index(section: snap.sections.randomElement(using: &rng)!.id, index: Int.random(in: 0..<per, using: &rng))) }
        : [.move(items: all.reversed(), to: .end(section: snap.sections[0].id))]
    let big = Task { () -> (Double, Int) in
        defer { finished.withLock { $0 = true } }
        let t = nowSeconds()
        let r = try await store.apply(gallery: gallery.id, edits)
        return (nowSeconds() - t, r.rowsWritten)
    }
    // The single move goes 50 ms into the whole gallery's batch, 5 ms into a smaller one (it waits for the writer).
    let delay = batch == nil ? 50 : 5
    try await Task.sleep(for: .milliseconds(delay))
    let single = Task { () -> Double in
        let t = nowSeconds()
        _ = try await store.apply(gallery: gallery.id, [.move(items: [every[every.count / 2 + 1]], to: .end(section: snap.sections[2].id))])
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
    print("| the batch: \(all.count) items moved in \(edits.count == 1 ? "one operation" : "\(edits.count) operations") (\(rows) rows written) | \(ms(bigTime)) |")
    print("| a single move sent \(delay) ms after it (waits for the writer) | \(ms(singleTime)) |")
    print("| reads meanwhile (gallery info, \(reads.count) reads every 10 ms): p50 / max | \(ms(percentile(reads, 0.5))) / \(ms(reads.last ?? 0)) |")
    // The same items put in the trash and back, each in one batch; then copied.
    for (name, op) in [("trashed", BatchEdit.trash(items: all)), ("restored", .restore(items: all)),
                       ("copied to the end of the last section", .copy(items: all, to: .end(section: snap.sections.last!.id)))] {
        let t = nowSeconds()
        _ = try await store.apply(gallery: gallery.id, [op])
        print("| the \(all.count) items \(name) in one batch | \(ms(nowSeconds() - t)) |")
    }
    }
    if modes.count > 1 { try await engineParts(store, gallery.id, items: batch ?? o.items) }
}

/// The engine's part of such a batch at this size, alone (median of 5, each on a fresh copy made
/// before the clock starts): the copy of the whole snapshot that the baseline makes, and the
/// delete and insert of `items` items spread over every section (each touched section's tail
/// renumbered in the id table), which both ways make.
func engineParts(_ store: GalleryStore, _ gallery: Int64, items: Int) async throws {
    let json = try await store.snapshot(gallery)
    let snapshot = try Snapshot(json.sections.map { s in (id: SectionID(UInt64(s.id)), items: s.items.map { ItemID(UInt64($0.id)) }) })
    let every = json.sections.flatMap { $0.items.map { ItemID(UInt64($0.id)) } }
    let n = min(items, every.count)
    let spread = (0..<n).map { every[$0 * every.count / n] }
    var copies: [Double] = [], edits: [Double] = []
    for _ in 0..<5 {
        var copy = snapshot
        var t = nowSeconds()
        // The copy-on-write of the whole snapshot: a move to another section writes the id table.
        try copy.moveItem(every[0], to: GridEngine.IndexPath(item: 0, section: 1))
        copies.append(nowSeconds() - t)
        t = nowSeconds()
        try copy.deleteItems(spread)
        try copy.insertItems(spread, at: GridEngine.IndexPath(item: copy.itemCount(inSection: 0), section: 0))
        edits.append(nowSeconds() - t)
    }
    copies.sort(); edits.sort()
    print("| the engine alone: a copy of the whole snapshot (\(every.count) items; the baseline's) | \(ms(copies[2])) |")
    print("| the engine alone: \(n) items spread over \(json.sections.count) sections deleted and inserted (both ways) | \(ms(edits[2])) |")
}


/// Issue 15's limits as a client meets them, over HTTP (`limits --http`): a real server with the
/// shipped batch limit and a gallery of 100k items to move plus one section of others (110k in
/// 11 sections at the defaults). A batch naming the 100k is refused with 413 naming the limit;
/// then the same move goes in parts of that size one after another, each placed after the last
/// item of the part before, as the page sends it (Web/js/parts.js), while a probe moves one of
/// the other items in the same gallery every 10 ms and reads the gallery list: what
/// each probe waited is the issue's "next request".
func runLimitsHTTP(_ o: BenchOptions, limit configured: Int?, fullUpTo: Int? = nil, moving count: Int? = nil) async throws {
    let folder = temporaryFolder("limits-http")
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = try GalleryStore(folder: folder)
    let per = o.items / o.sections
    let sections = benchSections(o.sections + 1, per: per)
    let (gallery, _) = try await store.importGallery(name: "Bench", sections: sections)
    let snap = try await store.snapshot(gallery.id)
    let moving = Array(snap.sections.dropLast().flatMap { $0.items.map(\.id) }.reversed().prefix(count ?? .max))
    let others = snap.sections.last!.items.map(\.id)
    let target = snap.sections.last!.id
    let owner = try await store.createAccount(name: "bench", passwordHash: "x", admin: true, onlyIfFirst: true)
    _ = try await store.createToken(account: owner.id, name: "bench", scope: .write, tokenHash: Secrets.digest("gat_bench_limits"))
    let running = try await BenchServer.start(folder: folder, portBase: 19_500) { c in
        if let configured { c.maxBatchItems = configured }
        if let fullUpTo { c.batchLimitFullUpTo = fullUpTo }
    }
    // The gallery's own limit (smaller past `batchLimitFullUpTo` items, as the server answers).
    let limit = running.server.configuration.batchLimit(itemCount: per * (o.sections + 1))
    let base = running.base, gid = gallery.id
    @Sendable func post(_ body: String) async throws -> (HTTPResponseStatus, String, Double) {
        var r = HTTPClientRequest(url: base + "/api/galleries/\(gid)/batch")
        r.method = .POST
        r.headers.add(name: "Authorization", value: "Bearer gat_bench_limits")
        r.headers.add(name: "Content-Type", value: "application/json")
        r.body = .bytes(ByteBuffer(string: body))
        let t = nowSeconds()
        let response = try await HTTPClient.shared.execute(r, timeout: .seconds(120))
        let answer = String(buffer: try await response.body.collect(upTo: 64 << 20))
        return (response.status, answer, nowSeconds() - t)
    }
    @Sendable func get(_ path: String) async throws -> Double {
        var r = HTTPClientRequest(url: base + path)
        r.headers.add(name: "Authorization", value: "Bearer gat_bench_limits")
        let t = nowSeconds()
        let response = try await HTTPClient.shared.execute(r, timeout: .seconds(60))
        _ = try await response.body.collect(upTo: 64 << 20)
        guard response.status == .ok else { throw BenchFailure("GET \(path): \(response.status)") }
        return nowSeconds() - t
    }
    @Sendable func move(_ ids: ArraySlice<Int64>, to: String) -> String {
        #"{"operations":[{"op":"move","items":[\#(ids.map(String.init).joined(separator: ","))],"to":\#(to)}]}"#
    }
    @Sendable func probeMove(_ k: Int) -> String { move([others[k % others.count]], to: #"{"section":\#(target),"index":0}"#) }
    _ = try await post(probeMove(0)) // warm

    // The whole move in one batch: refused, and how soon the next request is answered.
    var refusedIn = 0.0, nextAfterRefusal = 0.0
    if moving.count > limit {
        let (status, refusal, t) = try await post(move(moving[...], to: #"{"section":\#(target)}"#))
        guard status == .payloadTooLarge, refusal.contains("\"maxItems\":\(limit)") else { throw BenchFailure("the whole move: \(status) \(refusal.prefix(200))") }
        refusedIn = t
        nextAfterRefusal = try await post(probeMove(1)).2
    }

    // In parts, with the probes going.
    let done = Mutex(false)
    let probes = Task { () -> ([Double], [Double]) in
        var writes: [Double] = [], reads: [Double] = []
        var k = 2
        while !done.withLock({ $0 }) {
            let (s, _, t) = try await post(probeMove(k))
            guard s == .ok else { throw BenchFailure("probe move: \(s)") }
            writes.append(t)
            reads.append(try await get("/api/galleries"))
            k += 1
            try await Task.sleep(for: .milliseconds(10))
        }
        return (writes, reads)
    }
    var parts: [Double] = []
    let started = nowSeconds()
    var previous: Int64? = nil
    for from in stride(from: 0, to: moving.count, by: limit) {
        let chunk = moving[from..<min(from + limit, moving.count)]
        let to = previous.map { #"{"after":\#($0)}"# } ?? #"{"section":\#(target)}"#
        let (s, answer, t) = try await post(move(chunk, to: to))
        guard s == .ok else { throw BenchFailure("part at \(from): \(s) \(answer.prefix(200))") }
        parts.append(t)
        previous = chunk.last
    }
    let total = nowSeconds() - started
    done.withLock { $0 = true }
    var (writes, reads) = try await probes.value
    await running.stop()
    // The moved items are in the last section in the order asked for.
    let after = try await store.snapshot(gallery.id)
    let unmoved = Set(others) // once: built per item, it took minutes at 1M
    let landed = after.sections.last!.items.map(\.id).filter { !unmoved.contains($0) }
    guard landed == moving, after.sections.dropLast().reduce(0, { $0 + $1.items.count }) == per * o.sections - moving.count else {
        throw BenchFailure("the parts did not make the order one batch would")
    }
    parts.sort(); writes.sort(); reads.sort()
    print("")
    print("### Limits over HTTP\(GalleryStore.batchesInPlace ? "" : " (baseline: the snapshot copied, before session 16)"): \(moving.count) items moved by a client, \(per * o.sections + others.count) items, batch limit \(limit)")
    print("")
    print("| | time |")
    print("| --- | ---: |")
    if moving.count > limit {
        print("| one batch naming all \(moving.count): 413 naming the limit, answered in | \(ms(refusedIn)) |")
        print("| the next request (a single move) after the refusal | \(ms(nextAfterRefusal)) |")
    }
    print("| the same move in \(parts.count) parts of \(limit), one after another: all done in | \(ms(total)) |")
    print("| a part: p50 / max | \(ms(percentile(parts, 0.5))) / \(ms(parts.last ?? 0)) |")
    print("| meanwhile a single move in the same gallery every 10 ms (\(writes.count)): p50 / p99 / max | \(ms(percentile(writes, 0.5))) / \(ms(percentile(writes, 0.99))) / \(ms(writes.last ?? 0)) |")
    print("| meanwhile the gallery list (\(reads.count)): p50 / p99 / max | \(ms(percentile(reads, 0.5))) / \(ms(percentile(reads, 0.99))) / \(ms(reads.last ?? 0)) |")
}
