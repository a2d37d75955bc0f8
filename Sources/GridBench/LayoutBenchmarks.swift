import GridEngine

// Layout benchmarks: prepare at 10k and 100k items for every kind, then per-operation
// costs of the hot paths (visible query, hit-test, drop destination, incremental move),
// each beside its brute-force baseline (a scan over every frame) in the same run.
//   swift run -c release --scratch-path .build-layout grid-bench layout

private struct LayoutCase {
    var name: String
    var kind: LayoutKind
}

private let layoutCases: [LayoutCase] = [
    LayoutCase(name: "grid 6 col", kind: .grid(columns: 6)),
    LayoutCase(name: "flow 180×180", kind: .flow(itemSize: Size(width: 180, height: 180))),
    LayoutCase(name: "waterfall 6 col", kind: .waterfall(columns: 6)),
    LayoutCase(name: "justified 200", kind: .justified(rowHeight: 200)),
]

func runLayoutBenchmarks() {
    let viewport = Size(width: 1200, height: 800)
    print("Layout: container \(Int(viewport.width)) pt, viewport \(Int(viewport.width))×\(Int(viewport.height)), 100 sections, header 40, insets 8, spacing 4, aspects 0.3–3.0 (seeded).")
    print("Per-query figures are the median over 9 runs of 2,000 random rects/points, divided by 2,000.")
    print("")
    printRow(["layout", "items", "prepare", "visible query", "(items seen)", "brute-force visible", "hit-test", "brute-force hit", "drop destination", "move (incremental)", "move by full prepare"])
    printRow(Array(repeating: "---", count: 11))
    for count in [10_000, 100_000] {
        var rng = SeededGenerator(seed: 2024)
        let sections = 100
        let counts = Array(repeating: count / sections, count: sections)
        let aspects = (0..<count).map { _ in 0.3 + 2.7 * rng.nextUnit() }
        for c in layoutCases {
            let config = LayoutConfiguration(kind: c.kind, containerWidth: viewport.width, headerHeight: 40,
                                             sectionInsets: EdgeInsets(all: 8), itemSpacing: 4, lineSpacing: 4)
            var layout = CollectionLayout(configuration: config)
            let prepare = measure("prepare", iterations: 9) { layout.prepare(aspects: aspects, sectionCounts: counts) }
            layout.checkInvariants()
            let height = layout.contentSize.height

            let queries = 2_000
            var rects: [Rect] = [], points: [Point] = []
            for _ in 0..<queries {
                rects.append(Rect(x: 0, y: rng.nextUnit() * max(0, height - viewport.height), width: viewport.width, height: viewport.height))
                points.append(Point(x: rng.nextUnit() * viewport.width, y: rng.nextUnit() * height))
            }
            var buffer: [LayoutAttributes] = []
            var seen = 0
            let visible = measure("visible", iterations: 9) {
                seen = 0
                for r in rects { layout.attributes(in: r, into: &buffer); seen += buffer.count }
            }
            let hit = measure("hit", iterations: 9) {
                var found = 0
                for p in points where layout.indexPath(at: p) != nil { found += 1 }
                blackHole(found)
            }
            let drop = measure("drop", iterations: 9) {
                var into = 0
                for p in points { if case .into? = layout.dropDestination(at: p) { into += 1 } }
                blackHole(into)
            }
            // Baselines: scan every frame (what a layout without an index must do).
            let scanQueries = 20
            let bruteVisible = measure("brute visible", iterations: 5) {
                var n = 0
                for r in rects.prefix(scanQueries) { n += _bruteForceVisible(layout, r) }
                blackHole(n)
            }
            let bruteHit = measure("brute hit", iterations: 5) {
                var n = 0
                for p in points.prefix(scanQueries) where _bruteForceHit(layout, p) != nil { n += 1 }
                blackHole(n)
            }
            // A move inside a section of 1,000 (or 100) items, from a random item to another.
            var moves: [(IndexPath, IndexPath)] = []
            for _ in 0..<200 {
                let s = Int(rng.next() % UInt64(sections)), per = count / sections
                moves.append((IndexPath(item: Int(rng.next() % UInt64(per)), section: s),
                              IndexPath(item: Int(rng.next() % UInt64(per)), section: s)))
            }
            let move = measure("move", iterations: 9) { for (a, b) in moves { layout.itemMoved(from: a, to: b) } }
            layout.checkInvariants()
            let full = measure("full", iterations: 5) { layout.prepare(aspects: aspects, sectionCounts: counts) }

            printRow([c.name, "\(count / 1000)k", formatNanos(prepare.medianNanos),
                      formatNanos(visible.medianNanos / Double(queries)), "\(seen / queries)",
                      formatNanos(bruteVisible.medianNanos / Double(scanQueries)),
                      formatNanos(hit.medianNanos / Double(queries)),
                      formatNanos(bruteHit.medianNanos / Double(scanQueries)),
                      formatNanos(drop.medianNanos / Double(queries)),
                      formatNanos(move.medianNanos / Double(moves.count)),
                      formatNanos(full.medianNanos)])
        }
    }
    _manySectionsRow()
}

/// Prepare with many small sections (per-section overhead: tops, gap cells, column scratch).
private func _manySectionsRow() {
    var rng = SeededGenerator(seed: 7)
    let count = 100_000, sections = 10_000
    let counts = Array(repeating: count / sections, count: sections)
    let aspects = (0..<count).map { _ in 0.3 + 2.7 * rng.nextUnit() }
    var cells: [String] = ["prepare, 100k items in 10,000 sections of 10"]
    for c in layoutCases {
        let config = LayoutConfiguration(kind: c.kind, containerWidth: 1200, headerHeight: 40,
                                         sectionInsets: EdgeInsets(all: 8), itemSpacing: 4, lineSpacing: 4)
        var layout = CollectionLayout(configuration: config)
        let t = measure("prepare", iterations: 9) { layout.prepare(aspects: aspects, sectionCounts: counts) }
        cells.append(formatNanos(t.medianNanos))
    }
    print("")
    printRow(["case"] + layoutCases.map(\.name))
    printRow(Array(repeating: "---", count: layoutCases.count + 1))
    printRow(cells)
}

@inline(never) private func _bruteForceVisible(_ layout: CollectionLayout, _ rect: Rect) -> Int {
    var n = 0
    for s in 0..<layout.numberOfSections {
        for i in 0..<layout.numberOfItems(inSection: s) where layout.frame(of: IndexPath(item: i, section: s))!.intersects(rect) { n += 1 }
    }
    return n
}

@inline(never) private func _bruteForceHit(_ layout: CollectionLayout, _ p: Point) -> IndexPath? {
    for s in 0..<layout.numberOfSections {
        for i in 0..<layout.numberOfItems(inSection: s) {
            let ip = IndexPath(item: i, section: s)
            if layout.frame(of: ip)!.contains(p) { return ip }
        }
    }
    return nil
}
