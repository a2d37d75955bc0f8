import GridEngine

// Interaction benchmarks: what one frame of a drag costs at 10k and 100k items through
// the GridController façade (a pointer move with live reorder, then the render output
// of the visible cells), beside a full relayout of the same items in the same run.
//   swift run -c release --scratch-path .build-bench grid-bench interaction

func runInteractionBenchmarks() {
    let viewport = Size(width: 1200, height: 800)
    print("Interaction: container \(Int(viewport.width)) pt, viewport \(Int(viewport.width))×\(Int(viewport.height)), 100 sections, header 40, insets 8, spacing 4, aspects 0.3–3.0 (seeded).")
    print("A touch lifts an item in the first screen; each measured move jumps the pointer between two cells of that screen, so every move shifts the dragged item live (preview snapshot + layout update) and re-targets.")
    print("")
    printRow(["layout", "items", "pointer move (live reorder)", "move + visibleCells()", "(cells)", "full relayout (prepare)", "whole gesture: down, lift, move, drop + commit, settle"])
    printRow(Array(repeating: "---", count: 7))
    let kinds: [(String, LayoutKind)] = [("grid 6 col", .grid(columns: 6)), ("waterfall 6 col", .waterfall(columns: 6)),
                                         ("justified 200", .justified(rowHeight: 200))]
    for count in [10_000, 100_000] {
        var rng = SeededGenerator(seed: 2024)
        let sections = 100
        let per = count / sections
        var spec: [(id: SectionID, items: [ItemID])] = []
        var aspects: [[Double]] = []
        for s in 0..<sections {
            spec.append((id: SectionID(UInt64(s + 1)), items: (0..<per).map { ItemID(UInt64(s * per + $0 + 1)) }))
            aspects.append((0..<per).map { _ in 0.3 + 2.7 * rng.nextUnit() })
        }
        let snapshot = try! Snapshot(spec)
        for (name, kind) in kinds {
            let config = LayoutConfiguration(kind: kind, containerWidth: viewport.width, headerHeight: 40,
                                             sectionInsets: EdgeInsets(all: 8), itemSpacing: 4, lineSpacing: 4)
            var interaction = InteractionConfiguration()
            interaction.cadence = .immediate
            let idle = try! GridController(snapshot: snapshot, aspects: aspects, layout: config, viewport: viewport,
                                           interaction: interaction)
            // Lift the third item of the screen; targets: the centres of two later items.
            func centre(_ g: GridController, _ item: Int) -> Point {
                let f = g.layout.frame(of: IndexPath(item: item, section: 0))!
                return Point(x: f.midX, y: f.midY)
            }
            let a = centre(idle, 8), b = centre(idle, 14)
            var lifted = idle
            _ = lifted.handle(.pointerDown(PointerEvent(location: centre(idle, 2), time: 0, kind: .touch)))
            _ = lifted.tick(now: 0.5)
            var t = 1.0
            var flip = false
            var dragging = lifted
            let move = measure("move", iterations: 9, inner: 200) {
                t += 0.016
                flip.toggle()
                blackHole(dragging.handle(.pointerMove(PointerEvent(location: flip ? a : b, time: t, kind: .touch))))
            }
            var cells = 0
            let moveRender = measure("move+render", iterations: 9, inner: 200) {
                t += 0.016
                flip.toggle()
                blackHole(dragging.handle(.pointerMove(PointerEvent(location: flip ? a : b, time: t, kind: .touch))))
                let c = dragging.visibleCells()
                cells = c.count
                blackHole(c)
            }
            var layout = idle.layout
            var flat: [Double] = []
            for s in aspects { flat.append(contentsOf: s) }
            let counts = Array(repeating: per, count: sections)
            let prepare = measure("prepare", iterations: 9) { layout.prepare(aspects: flat, sectionCounts: counts) }
            // A whole gesture on a uniquely owned controller: down, long press (lift), one
            // move, drop (commit), settle; so nothing is copied that a host would not copy.
            var owner = idle
            let gesture = measure("gesture", iterations: 9) {
                t += 10
                blackHole(owner.handle(.pointerDown(PointerEvent(location: centre(owner, 2), time: t, kind: .touch))))
                blackHole(owner.tick(now: t + 0.5))
                blackHole(owner.handle(.pointerMove(PointerEvent(location: b, time: t + 0.6, kind: .touch))))
                blackHole(owner.handle(.pointerUp(PointerEvent(location: b, time: t + 0.7, kind: .touch))))
                blackHole(owner.tick(now: t + 2))
            }
            owner.checkInvariants()
            dragging.checkInvariants()
            printRow([name, count >= 100_000 ? "100k" : "10k", formatNanos(move.medianNanos), formatNanos(moveRender.medianNanos),
                      "\(cells)", formatNanos(prepare.medianNanos), formatNanos(gesture.medianNanos)])
        }
    }
}
