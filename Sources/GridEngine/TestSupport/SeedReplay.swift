// Test support (issue 11): compiled only with ENGINE_TEST_SUPPORT — debug builds of the package
// (Package.swift) and engine-test.wasm (scripts/build-wasm.sh --test-support), never into
// engine.wasm or a release build.
#if ENGINE_TEST_SUPPORT

/// The seeds' scenarios played as one deterministic session through a ``GridController``:
/// swap (seed 000), long-press reorder with edge auto-scroll (002), multi-item drag, drops
/// from outside with placeholders, the trash (003), section gap cells (004), keyboard drag,
/// copies, undo and redo, a live update. For the parity test: natively and in engine.wasm
/// `SeedReplay.run()` must give the same digests.
///
///     let result = SeedReplay.run()
///     result.stateDigest   // arrangement, frames, scroll, session
///     result.effectsDigest // every effect in order
public enum SeedReplay {
    public struct Result: Sendable {
        public var stateDigest: UInt64
        public var effectsDigest: UInt64
        public var renderDigest: UInt64
        public var effectCount: Int
        public var commitCount: Int
        /// Item ids per section at the end.
        public var finalOrder: [[UInt64]]
        /// Every effect in order, and the snapshots before and after the session.
        public var effects: [GridEffect]
        public var initial: Snapshot
        public var final: Snapshot
    }

    public static let titles = ["Apple", "Banana", "Cherry", "Date", "Dragon", "Sheep", "V-Malicious", "X-Code",
                                "GreatWall", "TaiTan", "Milk", "🥸"]

    /// Two sections of the seed's fruits (8 and 4), a 4-column grid under 30 pt headers in a
    /// 400 × 600 viewport (the grid is 366 high), and a trash target below the grid.
    public static func makeController() -> GridController {
        let ids = (1...12).map { ItemID(UInt64($0)) }
        let snapshot = (try? Snapshot([(id: SectionID(100), items: Array(ids[0..<8])), (id: SectionID(101), items: Array(ids[8...]))])) ?? Snapshot()
        var interaction = InteractionConfiguration()
        interaction.cadence = .fast
        let layout = LayoutConfiguration(kind: .grid(columns: 4), containerWidth: 400, headerHeight: 30, itemSpacing: 4, lineSpacing: 4)
        var grid: GridController
        do {
            grid = try GridController(snapshot: snapshot, aspects: [[Double](repeating: 1, count: 8), [Double](repeating: 1, count: 4)],
                                      layout: layout, viewport: Size(width: 400, height: 600), interaction: interaction)
        } catch {
            fatalError("SeedReplay fixture")
        }
        for (k, t) in titles.enumerated() { grid.setTitle(t, for: ItemID(UInt64(k + 1))) }
        grid.outsideTargets = [OutsideTarget(id: 1, frame: Rect(x: 300, y: 520, width: 100, height: 60))]
        return grid
    }

    public static func run() -> Result {
        var r = _Runner(grid: makeController())
        let initial = r.grid.snapshot
        // Seed 000: long-press Banana, drag onto Date in swap mode.
        r.grid.configuration.reorderMode = .swap
        r.longPress(2)
        r.drag(to: r.centre(4))
        r.up(r.centre(4))
        r.settle()
        r.grid.configuration.reorderMode = .insert
        // Seed 003: Apple with Sheep tapped in, into section 1's gap cell.
        r.longPress(1)
        r.drag(to: r.centre(7))
        r.down(r.centre(6), id: 1)
        r.up(r.centre(6), id: 1)
        if let gap = r.grid.layout.gapCellFrame(section: 1) {
            let p = Point(x: gap.midX - r.grid.contentOffset.x, y: gap.midY - r.grid.contentOffset.y)
            r.drag(to: p)
            r.up(p)
        }
        r.settle()
        // Seed 002: in a 200 pt viewport, Cherry past the bottom edge: auto-scroll while reordering.
        r.grid.setViewport(Size(width: 400, height: 200))
        r.longPress(3)
        r.drag(to: Point(x: 150, y: 190))
        for _ in 0..<20 { r.tick(1.0 / 60) }
        // A wheel turn back up during the drag: the engine scrolls and keeps reordering.
        r.send(.wheel(delta: Point(x: 0, y: -30), time: r.time))
        r.tick(1.0 / 60)
        r.up(Point(x: 150, y: 190))
        r.settle()
        r.grid.setViewport(Size(width: 400, height: 600))
        r.send(.scroll(offset: .zero, time: r.time))
        // Seed 003: two URLs dropped onto Dragon; Milk is dragged in among them; the first load fails.
        let dragon = r.centre(5)
        r.send(.externalDragEnter(items: [[.url, .image], [.url, .image], [.text]], location: Point(x: 200, y: 100), time: r.time))
        r.send(.externalDragMove(location: dragon, modifiers: [], time: r.time + 0.1))
        r.send(.externalDrop(location: dragon, time: r.time + 0.2))
        var waiting: [PlaceholderID] = []
        for e in r.effects { if case .loadDroppedData(let p, _, _) = e { waiting.append(p) } }
        r.longPress(11)
        r.drag(to: r.centre(8))
        r.up(r.centre(11))
        r.settle()
        if waiting.count == 2 {
            r.absorb((try? r.grid.deletePlaceholder(waiting[0])) ?? [])
            r.absorb((try? r.grid.commitInsertion(waiting[1], item: ItemID(500), aspect: 1.5)) ?? [])
        }
        // B3: keyboard.
        r.grid.focus(ItemID(10))
        for key in [Key.space, .left, .left, .up, .space] { r.key(key) }
        r.settle()
        // Seed 003: Date into the trash.
        r.longPress(4)
        r.drag(to: Point(x: 350, y: 550))
        r.up(Point(x: 350, y: 550))
        r.settle()
        // Seed 004: an option-drag copies X-Code.
        r.modifiers = [.option]
        r.longPress(8)
        r.drag(to: r.centre(1))
        r.up(r.grid.session?.location ?? r.centre(1))
        r.settle()
        r.modifiers = []
        // B4 and B2: undo twice, redo once, then a live insert from elsewhere.
        r.absorb(r.grid.undo())
        r.absorb(r.grid.undo())
        r.absorb(r.grid.redo())
        var model = r.grid.modelSnapshot
        try? model.insertItems([ItemID(900)], at: IndexPath(item: 0, section: 0))
        r.absorb((try? r.grid.applyLiveSnapshot(model, aspects: [ItemID(900): 0.75])) ?? [])
        // B6: an image pasted after Apple arrives.
        r.grid.focus(ItemID(1))
        let pasted = r.grid.paste([[.image], [.text]])
        r.absorb(pasted)
        for e in pasted {
            if case .loadDroppedData(let p, _, _) = e { r.absorb((try? r.grid.commitInsertion(p, item: ItemID(501), aspect: 0.8)) ?? []) }
        }

        var order: [[UInt64]] = []
        for s in 0..<r.grid.snapshot.sectionCount { order.append(r.grid.snapshot.items(inSection: s).map { $0.rawValue }) }
        var commits = 0
        for e in r.effects { if case .commit = e { commits += 1 } }
        return Result(stateDigest: r.grid.stateDigest, effectsDigest: GridController.digest(r.effects),
                      renderDigest: r.grid.renderDigest, effectCount: r.effects.count, commitCount: commits, finalOrder: order,
                      effects: r.effects, initial: initial, final: r.grid.snapshot)
    }

    struct _Runner {
        var grid: GridController
        var time = 0.0
        var effects: [GridEffect] = []
        var modifiers: KeyModifiers = []

        mutating func absorb(_ e: [GridEffect]) { effects.append(contentsOf: e) }
        mutating func send(_ e: InteractionEvent) { absorb(grid.handle(e)) }

        func centre(_ raw: UInt64) -> Point {
            guard let ip = grid.displayedSnapshot.indexPath(of: ItemID(raw)), let f = grid.layout.frame(of: ip) else { return .zero }
            return Point(x: f.midX - grid.contentOffset.x, y: f.midY - grid.contentOffset.y)
        }

        mutating func down(_ p: Point, id: Int = 0) {
            send(.pointerDown(PointerEvent(id: id, location: p, time: time, kind: .touch, modifiers: modifiers)))
        }
        mutating func move(_ p: Point) {
            time += 1.0 / 60
            send(.pointerMove(PointerEvent(id: 0, location: p, time: time, kind: .touch, modifiers: modifiers)))
        }
        mutating func up(_ p: Point, id: Int = 0) {
            time += 1.0 / 60
            send(.pointerUp(PointerEvent(id: id, location: p, time: time, kind: .touch, modifiers: modifiers)))
        }
        mutating func tick(_ dt: Double) {
            time += dt
            absorb(grid.tick(now: time))
        }
        mutating func key(_ k: Key) {
            time += 0.1
            send(.key(KeyEvent(k, time: time)))
        }
        mutating func longPress(_ raw: UInt64) {
            down(centre(raw))
            tick(0.3)
            tick(0.3)
        }
        mutating func drag(to p: Point) {
            let from = grid.session?.location ?? p
            for k in 1...6 {
                let f = Double(k) / 6
                move(Point(x: from.x + (p.x - from.x) * f, y: from.y + (p.y - from.y) * f))
                tick(0.03)
            }
        }
        mutating func settle() { for _ in 0..<30 { tick(1.0 / 60) } }
    }
}

#endif
