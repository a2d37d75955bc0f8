import GridEngine

// Diff benchmarks: GridEngine's staged diff against the standard library's
// `target.difference(from: source).inferringMoves()` on the flattened arrays, same inputs,
// same run. Four workloads at 10k and 100k items in 10 sections, and the shuffle again with
// all items in one section (the case `scripts/bench-differencekit.sh` times beside DifferenceKit).

/// The stdlib baseline's element: id plus content version, so that a content update is a
/// difference for it too (with ids alone it would see nothing to do).
struct VersionedID: Hashable {
    var id: UInt64
    var version: UInt32
}

struct DiffWorkload {
    var name: String
    var source: Snapshot
    var target: Snapshot
}

/// Flat arrays of one snapshot: section ids, per-section item ids and versions.
struct FlatSections {
    var ids: [SectionID]
    var items: [[ItemID]]
    var versions: [[UInt32]]

    init(_ s: Snapshot) {
        ids = s.sectionIDs
        items = (0..<s.sectionCount).map { s.items(inSection: $0) }
        versions = (0..<s.sectionCount).map { s.versions(inSection: $0) }
    }

    func snapshot() -> Snapshot {
        try! Snapshot((0..<ids.count).map { (id: ids[$0], items: items[$0], versions: versions[$0]) })
    }

    func versioned() -> [VersionedID] {
        var out: [VersionedID] = []
        for s in 0..<items.count {
            for i in 0..<items[s].count { out.append(VersionedID(id: items[s][i].rawValue, version: versions[s][i])) }
        }
        return out
    }
}

func makeDiffWorkloads(items n: Int, seed: UInt64) -> [DiffWorkload] {
    makeDiffWorkloads(items: n, sections: 10, seed: seed)
}

/// The random shuffle of `n` items in one section. Ids 1,000,000 … in order, shuffled by the
/// first use of `SeededGenerator(seed:)`: the same order as the 10-section shuffle's items read
/// section by section, and as `scripts/bench-differencekit.sh`'s `Int` arrays for the same seed.
func makeOneSectionShuffle(items n: Int, seed: UInt64) -> DiffWorkload {
    let w = makeDiffWorkloads(items: n, sections: 1, seed: seed)[0]
    return DiffWorkload(name: "random shuffle, one section", source: w.source, target: w.target)
}

/// A digest of a section's item order (FNV-1a over the ids), printed so that two benchmark
/// programs can show they diffed the same permutation.
func orderDigest(_ ids: [UInt64]) -> String {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for id in ids { h = (h ^ id) &* 0x100_0000_01b3 }
    let hex = String(h, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
}

func makeDiffWorkloads(items n: Int, sections sectionCount: Int, seed: UInt64) -> [DiffWorkload] {
    var rng = SeededGenerator(seed: seed)
    var flat = FlatSections(Snapshot())
    var next: UInt64 = 1_000_000
    for s in 0..<sectionCount {
        flat.ids.append(SectionID(UInt64(s + 1)))
        var ids: [ItemID] = []
        for _ in 0..<(n / sectionCount) { ids.append(ItemID(next)); next += 1 }
        flat.items.append(ids)
        flat.versions.append([UInt32](repeating: 0, count: ids.count))
    }
    let source = flat.snapshot()
    var out: [DiffWorkload] = []

    // Random shuffle of all items over the same section sizes.
    do {
        var all = flat.items.flatMap { $0 }
        all.shuffle(using: &rng)
        var t = flat
        var k = 0
        for s in 0..<sectionCount {
            for i in 0..<t.items[s].count { t.items[s][i] = all[k]; k += 1 }
        }
        out.append(DiffWorkload(name: "random shuffle", source: source, target: t.snapshot()))
    }
    // 1 % random moves: each picked item goes to a random place in a random section.
    do {
        var t = flat
        for _ in 0..<(n / 100) {
            let s = Int.random(in: 0..<sectionCount, using: &rng)
            guard !t.items[s].isEmpty else { continue }
            let i = Int.random(in: 0..<t.items[s].count, using: &rng)
            let id = t.items[s].remove(at: i)
            let v = t.versions[s].remove(at: i)
            let d = Int.random(in: 0..<sectionCount, using: &rng)
            let j = Int.random(in: 0...t.items[d].count, using: &rng)
            t.items[d].insert(id, at: j)
            t.versions[d].insert(v, at: j)
        }
        out.append(DiffWorkload(name: "1 % random moves", source: source, target: t.snapshot()))
    }
    // 10 % deletes + 10 % inserts of new ids at random places.
    do {
        var t = flat
        for s in 0..<sectionCount {
            var keptItems: [ItemID] = []
            for id in t.items[s] where Int.random(in: 0..<10, using: &rng) != 0 { keptItems.append(id) }
            var withNew: [ItemID] = []
            for id in keptItems {
                while Int.random(in: 0..<9, using: &rng) == 0 { withNew.append(ItemID(next)); next += 1 }
                withNew.append(id)
            }
            t.items[s] = withNew
            t.versions[s] = [UInt32](repeating: 0, count: withNew.count)
        }
        out.append(DiffWorkload(name: "10 % deletes + 10 % inserts", source: source, target: t.snapshot()))
    }
    // 5 % content updates (version bumps), no change of order.
    do {
        var t = flat
        for s in 0..<sectionCount {
            for i in 0..<t.versions[s].count where Int.random(in: 0..<20, using: &rng) == 0 { t.versions[s][i] += 1 }
        }
        out.append(DiffWorkload(name: "5 % content updates", source: source, target: t.snapshot()))
    }
    return out
}

/// Times `body` `iterations` times without a warm-up (for the slow baseline); median.
func timeSlow(iterations: Int, _ body: () -> Void) -> Double {
    var samples: [Double] = []
    for _ in 0..<iterations {
        let t0 = nowNanos()
        body()
        samples.append(Double(nowNanos() - t0))
    }
    samples.sort()
    return samples[samples.count / 2]
}

func runDiffBenchmarks() {
    // `grid-bench diff --no-baseline` times GridEngine only (for quick profiling).
    let withBaseline = !CommandLine.arguments.contains("--no-baseline")
    print("## Diff")
    print("")
    printRow(["workload", "items", "GridEngine staged diff (median)", "stages", "changes (moves)",
              "stdlib difference + inferringMoves (median)", "stdlib changes", "speed-up", "building the target Snapshot"])
    printRow(["---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:"])
    for n in [10_000, 100_000] {
        for w in makeDiffWorkloads(items: n, seed: UInt64(n)) + [makeOneSectionShuffle(items: n, seed: UInt64(n))] {
            // Correctness first: the stages replay to the target, each valid.
            let changes = try! StagedChangeset(from: w.source, to: w.target)
            var shown = w.source
            for stage in changes.stages {
                try! BatchUpdate.validate(stage, against: shown)
                shown = try! shown.applying(stage)
            }
            precondition(shown == w.target, "diff did not replay to the target")

            let ours = measure("diff", iterations: n >= 100_000 ? 11 : 31) {
                blackHole(try! StagedChangeset(from: w.source, to: w.target))
            }

            // Not part of the diff, shown for scale: a snapshot keeps its id table up to date,
            // and building one from arrays (what a host does once per load) costs this.
            let flatTarget = FlatSections(w.target)
            let tuples = (0..<flatTarget.ids.count).map { (id: flatTarget.ids[$0], items: flatTarget.items[$0], versions: flatTarget.versions[$0]) }
            let build = measure("build", iterations: n >= 100_000 ? 11 : 31) { blackHole(try! Snapshot(tuples)) }

            let a = FlatSections(w.source).versioned(), b = FlatSections(w.target).versioned()
            var baselineCell = "not run"
            var baselineChanges = "-"
            var speedup = "-"
            // Myers' diff costs O((n + m) · D); a shuffle has D ≈ 2n, so 100k would take
            // about 100 × the 10k figure (minutes): not run.
            if !withBaseline {
                baselineCell = "skipped"
            } else if !(w.name.hasPrefix("random shuffle") && n >= 100_000) {
                let iterations = n >= 100_000 ? 1 : 3
                var count = 0
                let t = timeSlow(iterations: iterations) {
                    let d = b.difference(from: a).inferringMoves()
                    count = d.count
                    blackHole(d)
                }
                baselineCell = formatNanos(t) + " (\(iterations)×)"
                baselineChanges = "\(count)"
                speedup = format2(t / ours.medianNanos) + "×"
            } else {
                baselineCell = "not run: O((n+m)·D) with D ≈ 2n, ≈ 100 × the 10k time"
            }
            printRow([w.name, "\(n)", formatNanos(ours.medianNanos), "\(changes.stages.count)",
                      "\(changes.changeCount) (\(changes.moveCount))", baselineCell, baselineChanges, speedup,
                      formatNanos(build.medianNanos)])
        }
    }
    for n in [10_000, 100_000] {
        let w = makeOneSectionShuffle(items: n, seed: UInt64(n))
        print("")
        print("one-section shuffle, \(n) items: target order digest \(orderDigest(w.target.items(inSection: 0).map(\.rawValue)))")
    }
    runSnapshotEditBenchmarks()
}

/// Snapshot edits at 100k items: what one drag-and-drop commit costs the model.
func runSnapshotEditBenchmarks() {
    print("")
    print("### Snapshot edits, 100k items")
    print("")
    printRow(["edit", "10 sections of 10k", "1 section of 100k"])
    printRow(["---", "---:", "---:"])
    func build(_ sections: Int) -> Snapshot {
        var s = Snapshot()
        var next: UInt64 = 1
        for k in 0..<sections {
            var ids: [ItemID] = []
            for _ in 0..<(100_000 / sections) { ids.append(ItemID(next)); next += 1 }
            try! s.appendSection(SectionID(UInt64(k + 1)), items: ids)
        }
        return s
    }
    var rows: [(String, [String])] = []
    func add(_ name: String, _ cell: String) {
        if let i = rows.firstIndex(where: { $0.0 == name }) { rows[i].1.append(cell) } else { rows.append((name, [cell])) }
    }
    for sections in [10, 1] {
        var s = build(sections)
        let per = 100_000 / sections
        var rng = SeededGenerator(seed: 9)
        let probes = (0..<10_000).map { _ in ItemID(UInt64.random(in: 1...100_000, using: &rng)) }
        let lookup = measure("lookup", iterations: 9) { for id in probes { blackHole(s.indexPath(of: id)) } }
        add("indexPath(of:) (per lookup)", formatNanos(lookup.medianNanos / Double(probes.count)))
        // Each body moves an item and back, so the snapshot ends as it began; halved.
        let mid = ItemID(UInt64(per / 2))
        let near = measure("near", iterations: 21) {
            try! s.moveItem(mid, to: IndexPath(item: per / 2 + 9, section: 0))
            try! s.moveItem(mid, to: IndexPath(item: per / 2 - 1, section: 0))
        }
        add("moveItem 10 places along", formatNanos(near.medianNanos / 2))
        let first = ItemID(1)
        let far = measure("far", iterations: 21) {
            try! s.moveItem(first, to: IndexPath(item: per - 1, section: 0))
            try! s.moveItem(first, to: IndexPath(item: 0, section: 0))
        }
        add("moveItem first ↔ last of its section", formatNanos(far.medianNanos / 2))
        let fresh = ItemID(1_000_000)
        let insert = measure("insert", iterations: 21) {
            try! s.insertItems([fresh], at: IndexPath(item: per / 2, section: 0))
            try! s.deleteItems([fresh])
        }
        add("insert + delete one item mid-section", formatNanos(insert.medianNanos / 2))
        s.checkInvariants()
    }
    for (name, cells) in rows { printRow([name] + cells) }
}
