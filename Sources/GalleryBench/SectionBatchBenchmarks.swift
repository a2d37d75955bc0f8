import Foundation
import GalleryCore
import GalleryStore
import GalleryServer
import GridEngine

/// `limits --section-ops` (session 18): batches that add, remove or move a section and restores, on
/// one gallery of `--items` in `--sections`: each case made the way before session 18
/// (`GalleryStore.sectionsInPlace` false: past 50,000 items the snapshot copied and the whole
/// gallery diffed with id tables) and the shipped way (in place, the diff matching sections by
/// id), alternating, `--rounds` pairs; with each batch, a single move sent 1 ms after it (what it
/// waits for the writer; 20 ms after the undo of a section delete, whose 20,000 ids take longer
/// than 1 ms to reach the writer). Medians per case at the end. With `--postgres URL`, the same
/// again on a new PostgreSQL database.
/// Session 19: in the in-place runs, also what a client can send at this size since a section
/// delete counts its items against the server's batch limit (`ServerConfiguration.batchLimit`,
/// 500 at 1M): the one-batch delete of a big section refused (`maxItems`), then the section
/// deleted as the page sends it (Web/js/parts.js: its items to the trash in parts of the limit,
/// the delete with the last) and its undo as the page sends it (restores in parts, then moves in
/// parts, each part after the one before) — each part with its probe move; the slowest part.
/// `database`: a PostgreSQL database's URL, else SQLite.
func runSectionBatchBenchmarks(_ o: BenchOptions, database: String? = nil) async throws {
    guard o.sections >= 20 + 2 * max(1, o.rounds) else { throw BenchFailure("--section-ops needs at least \(20 + 2 * max(1, o.rounds)) sections") }
    let folder = temporaryFolder("section-ops")
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = try GalleryStore(folder: folder, databaseURL: database)
    let per = o.items / o.sections
    let (gallery, _) = try await store.importGallery(name: "Bench", sections: benchSections(o.sections, per: per))
    let gid = gallery.id
    _ = try await store.gallery(gid) // warm
    print("")
    print("### Batches with section ops and restores on \(database == nil ? "SQLite" : "PostgreSQL"): \(o.items) items in \(o.sections) sections, \(max(1, o.rounds)) pairs")
    print("")
    print("| run | case | batch | a single move sent 1 ms after it |")
    print("| --- | --- | ---: | ---: |")
    var figures: [String: [Bool: [(Double, Double)]]] = [:], order: [String] = []
    var probe = 0
    /// One batch and the probe move beside it.
    func measure(_ name: String, _ ops: [BatchEdit], inPlace: Bool, probeSection: Int64, probeItems: [Int64], delay: Int = 1) async throws -> BatchResult {
        let big = Task { () -> (Double, BatchResult) in
            let t = nowSeconds()
            let r = try await store.apply(gallery: gid, ops)
            return (nowSeconds() - t, r)
        }
        try await Task.sleep(for: .milliseconds(delay))
        probe += 1
        let item = probeItems[probe % probeItems.count]
        let t = nowSeconds()
        _ = try await store.apply(gallery: gid, [.move(items: [item], to: .index(section: probeSection, index: probe % 50))])
        let single = nowSeconds() - t
        let (time, result) = try await big.value
        if figures[name] == nil { order.append(name) }
        figures[name, default: [:]][inPlace, default: []].append((time, single))
        print("| \(inPlace ? "in place" : "baseline: copied, whole diff") | \(name) | \(ms(time)) | \(ms(single))\(delay == 1 ? "" : " (sent \(delay) ms after)") |")
        return result
    }
    /// Batches sent one after another, as the page sends a change in parts, each with its probe:
    /// the slowest part (batch / wait), and all of them.
    func measureParts(_ name: String, _ parts: [[BatchEdit]], probeSection: Int64, probeItems: [Int64]) async throws {
        var slowest = (0.0, 0.0), total = 0.0, which = 0
        for (k, ops) in parts.enumerated() {
            let big = Task { () -> Double in
                let t = nowSeconds()
                _ = try await store.apply(gallery: gid, ops)
                return nowSeconds() - t
            }
            try await Task.sleep(for: .milliseconds(1))
            probe += 1
            let t = nowSeconds()
            _ = try await store.apply(gallery: gid, [.move(items: [probeItems[probe % probeItems.count]], to: .index(section: probeSection, index: probe % 50))])
            let single = nowSeconds() - t
            let time = try await big.value
            if time > slowest.0 { which = k }
            slowest = (max(slowest.0, time), max(slowest.1, single))
            total += time
        }
        if figures[name] == nil { order.append(name) }
        figures[name, default: [:]][true, default: []].append(slowest)
        let kind = parts[which].map { op in String(describing: op).prefix { $0 != "(" } }.joined(separator: " + ")
        print("| in place | \(name) | slowest of \(parts.count): \(ms(slowest.0)) (part \(which + 1), \(kind); all \(ms(total))) | \(ms(slowest.1)) |")
    }
    let limit = ServerConfiguration().batchLimit(itemCount: o.items)
    let rounds = max(1, o.rounds)
    for run in 0..<(2 * rounds) {
        let inPlace = run % 2 == 1
        GalleryStore.sectionsInPlace = inPlace
        defer { GalleryStore.sectionsInPlace = true }
        let snap = try await store.snapshot(gid)
        let sections = snap.sections.map(\.id)
        func items(_ s: Int64) -> [Int64] { snap.sections.first { $0.id == s }!.items.map(\.id) }
        let probeSection = sections[0], probeItems = items(sections[0])
        // Sections of this run's own (none touched by an earlier run).
        func pick(_ percent: Int) -> Int64 { sections[9 + (sections.count - 9) * percent / 100 + run] }
        let moved = pick(0), deleted = pick(30), revived = pick(60)
        let spread = (0..<100).map { k in items(sections[1 + k % 8 + 0])[(run * 100 + k) % per] }
        let created = try await measure("a section created (one operation)", [.createSection(title: "new \(run)", index: sections.count / 2)],
                                        inPlace: inPlace, probeSection: probeSection, probeItems: probeItems).createdSections[0]
        _ = try await measure("100 items spread over 8 sections moved into it, another section moved",
                              [.move(items: spread, to: .end(section: created)), .moveSection(moved, index: sections.count * 9 / 10)],
                              inPlace: inPlace, probeSection: probeSection, probeItems: probeItems)
        let gone = items(deleted)
        _ = try await measure("a section of \(gone.count) items deleted (one operation)", [.deleteSection(deleted)],
                              inPlace: inPlace, probeSection: probeSection, probeItems: probeItems)
        _ = try await measure("its undo: its \(gone.count) items restored and put back in order",
                              [.restore(items: gone), .move(items: gone, to: .index(section: deleted, index: 0))],
                              inPlace: inPlace, probeSection: probeSection, probeItems: probeItems, delay: 20)
        _ = try await measure("a section deleted with 100 of its items restored in the same batch",
                              [.deleteSection(revived), .restore(items: Array(items(revived).prefix(100)))],
                              inPlace: inPlace, probeSection: probeSection, probeItems: probeItems)
        guard inPlace else { continue }
        // What a client can send since session 19 (the server's limit at this size: `limit`).
        let big = pick(80), bigItems = items(big)
        let t = nowSeconds()
        do {
            _ = try await store.apply(gallery: gid, [.deleteSection(big)], maxItems: limit)
            throw BenchFailure("a section of \(bigItems.count) items deleted in one batch over a limit of \(limit)")
        } catch StoreError.tooManyItems(limit, bigItems.count) {}
        let refused = nowSeconds() - t, refusal = "a section of \(bigItems.count) items deleted in one batch with the server's limit of \(limit): refused (413, `maxItems`)"
        if figures[refusal] == nil { order.append(refusal) }
        figures[refusal, default: [:]][true, default: []].append((refused, 0))
        print("| in place | \(refusal) | \(ms(refused)) | – |")
        func chunks(_ ids: [Int64]) -> [[Int64]] { stride(from: 0, to: ids.count, by: limit).map { Array(ids[$0..<min(ids.count, $0 + limit)]) } }
        var deleteParts: [[BatchEdit]] = chunks(bigItems).map { [.trash(items: $0)] }
        deleteParts[deleteParts.count - 1].append(.deleteSection(big))
        try await measureParts("a section of \(bigItems.count) items deleted as the page sends it now: to the trash in parts of \(limit), the delete with the last",
                               deleteParts, probeSection: probeSection, probeItems: probeItems)
        let restoreParts: [[BatchEdit]] = chunks(bigItems).map { [.restore(items: $0)] }
        let moveParts: [[BatchEdit]] = chunks(bigItems).enumerated().map { k, part in
            [.move(items: part, to: k == 0 ? .index(section: big, index: 0) : .after(item: bigItems[k * limit - 1]))]
        }
        try await measureParts("its undo as the page sends it: restores in parts of \(limit), then moves in parts of \(limit)",
                               restoreParts + moveParts, probeSection: probeSection, probeItems: probeItems)
        let back = try await store.snapshot(gid).sections.first { $0.id == big }?.items.map(\.id)
        guard back == bigItems else { throw BenchFailure("the undo in parts did not put section \(big) back as it was") }
    }
    print("")
    print("Medians over \(rounds) runs each way (batch / the single move's wait):")
    print("")
    print("| case | baseline: copied, whole diff | in place, sections matched by id |")
    print("| --- | ---: | ---: |")
    func median(_ xs: [Double]) -> Double { let s = xs.sorted(); return s[s.count / 2] }
    for name in order {
        let old = figures[name]?[false] ?? [], new = figures[name]?[true] ?? []
        func cell(_ f: [(Double, Double)]) -> String { f.isEmpty ? "–" : "\(ms(median(f.map(\.0)))) / \(ms(median(f.map(\.1))))" }
        print("| \(name) | \(cell(old)) | \(cell(new)) |")
    }
    if database == nil { try engineSectionParts(items: o.items, sections: o.sections) }
}

/// The engine's part alone at this size (median of 5, each on a fresh copy): a section created
/// and 100 spread items moved into it, another section moved — the whole diff (the baseline's)
/// beside the diff of the sections kept with the named items; and putting it back (a refused
/// batch): the snapshot built again from the kept sections (before session 18) beside `revert(to:)`.
func engineSectionParts(items: Int, sections: Int) throws {
    let per = items / sections
    var next: UInt64 = 1
    let snapshot = try Snapshot((0..<sections).map { s in
        (id: SectionID(UInt64(10_000_000 + s)), items: (0..<per).map { _ in defer { next += 1 }; return ItemID(next) })
    })
    let spread = (0..<100).map { k in snapshot.items(inSection: 1 + k % 8)[k * 97 % per] }
    var whole: [Double] = [], named: [Double] = [], rebuilt: [Double] = [], reverted: [Double] = []
    for _ in 0..<5 {
        var edited = snapshot
        let kept = edited.sections(naming: spread)
        try edited.insertSection(SectionID(99_999_999), at: sections / 2)
        for (k, id) in spread.enumerated() { try edited.moveItem(id, to: GridEngine.IndexPath(item: k, section: sections / 2)) }
        try edited.moveSection(from: 10, to: sections - 10)
        var t = nowSeconds()
        let a = try StagedChangeset(wholeFrom: snapshot, to: edited)
        whole.append(nowSeconds() - t)
        t = nowSeconds()
        let b = try StagedChangeset(from: kept, to: edited)
        named.append(nowSeconds() - t)
        guard a == b else { throw BenchFailure("the named diff's stages are not the whole diff's") }
        t = nowSeconds()
        let again = kept.snapshot
        rebuilt.append(nowSeconds() - t)
        t = nowSeconds()
        edited.revert(to: kept)
        reverted.append(nowSeconds() - t)
        guard edited == snapshot, again == snapshot else { throw BenchFailure("not put back") }
    }
    whole.sort(); named.sort(); rebuilt.sort(); reverted.sort()
    print("")
    print("| the engine alone (\(items) items, \(sections) sections): a section created, 100 items moved into it, another moved | before | now |")
    print("| --- | ---: | ---: |")
    print("| its stages: the whole diff / the kept sections' diff (the same stages) | \(ms(whole[2])) | \(ms(named[2])) |")
    print("| put back (a refused batch): the snapshot built again / `revert(to:)` | \(ms(rebuilt[2])) | \(ms(reverted[2])) |")
}
