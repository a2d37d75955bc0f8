import Testing
@testable import GridEngine

/// The seed's sample data (F1) in a 4-column grid of 100 × 100 cells, and a hand that
/// replays gestures on a ``GridController`` the way a host would: every event's effects
/// are applied to a mirror of the shown snapshot through the emitted batch updates
/// (validated first), and the controller's invariants are checked after each step.
enum Fruit {
    static let names = ["Apple", "Banana", "Cherry", "Date", "Dragon", "Sheep", "V-Malicious", "X-Code",
                        "GreatWall", "TaiTan", "Milk", "🥸"]

    static func id(_ name: String) -> ItemID {
        guard let i = names.firstIndex(of: name) else { fatalError("no fruit \(name)") }
        return ItemID(UInt64(i + 1))
    }

    static func name(_ id: ItemID) -> String {
        let i = Int(id.rawValue) - 1
        return i >= 0 && i < names.count ? names[i] : "#\(id.rawValue)"
    }

    /// A controller over `sections` of fruit names (section ids 100, 101, ...).
    static func grid(_ sections: [[String]] = [names], columns: Int = 4, headerHeight: Double = 0,
                     viewport: Size = Size(width: 400, height: 600),
                     interaction: InteractionConfiguration = Fruit.immediate, policy: DropPolicy = DropPolicy()) -> GridController {
        let snapshot = try! Snapshot(sections.enumerated().map { (id: SectionID(UInt64(100 + $0.offset)), items: $0.element.map(id)) })
        let config = LayoutConfiguration(kind: .grid(columns: columns), containerWidth: viewport.width, headerHeight: headerHeight)
        var grid = try! GridController(snapshot: snapshot, aspects: sections.map { $0.map { _ in 1.0 } }, layout: config,
                                       viewport: viewport, interaction: interaction, policy: policy)
        for n in names { grid.setTitle(n, for: id(n)) }
        return grid
    }

    static var immediate: InteractionConfiguration {
        var c = InteractionConfiguration()
        c.cadence = .immediate
        return c
    }

    /// Names per section, in order.
    static func names(_ s: Snapshot) -> [[String]] {
        (0..<s.sectionCount).map { s.items(inSection: $0).map(name) }
    }
}

struct Hand {
    var grid: GridController
    var time = 0.0
    /// Every effect so far, in order.
    var effects: [GridEffect] = []
    /// What the host shows, kept only through the emitted batch updates.
    var shown: Snapshot
    var kind: PointerKind = .touch
    var modifiers: KeyModifiers = []
    /// The aspect of every item seen so far.
    var aspects: [ItemID: Double] = [:]

    init(_ grid: GridController) {
        self.grid = grid
        self.shown = grid.snapshot
    }

    /// The centre of an item as shown now, in view coordinates.
    func centre(_ name: String) -> Point { centre(Fruit.id(name)) }

    func centre(_ item: ItemID) -> Point {
        let ip = grid.displayedSnapshot.indexPath(of: item)!
        let f = grid.displayedLayout.frame(of: ip)!
        return Point(x: f.midX - grid.contentOffset.x, y: f.midY - grid.contentOffset.y)
    }

    mutating func send(_ event: InteractionEvent) { absorb(grid.handle(event)) }

    mutating func absorb(_ new: [GridEffect]) {
        for e in new {
            if case .commit(let c) = e {
                let before = Set(shown.allItemIDs)
                for stage in c.updates {
                    do {
                        try BatchUpdate.validate(stage, against: shown)
                        shown = try shown.applying(stage)
                    } catch {
                        Issue.record("invalid batch update: \(error)")
                    }
                }
                Hand.checkItemsKept(c, before: before, after: Set(shown.allItemIDs))
            }
        }
        effects += new
        grid.checkInvariants()
        #expect(shown == grid.snapshot, "the host's mirror and the engine disagree")
        checkGeometry()
    }

    /// Every item keeps its own aspect wherever it goes (learned the first time it is
    /// seen), and the incrementally edited layout equals one prepared from scratch for the
    /// order on screen.
    mutating func checkGeometry() {
        let order = grid._order
        var inOrder: [[Double]] = []
        for s in 0..<order.sectionCount {
            var row: [Double] = []
            for i in 0..<order.itemCount(inSection: s) {
                let id = order.itemID(at: IndexPath(item: i, section: s))
                let a = grid.layout.aspect(of: IndexPath(item: i, section: s))
                if let known = aspects[id] { #expect(known == a, "item \(id.rawValue) changed aspect") } else { aspects[id] = a }
                row.append(a)
            }
            inOrder.append(row)
        }
        // While a drag passes a waterfall its columns are pinned (issue 13): no layout from
        // scratch reproduces that; the layout's own invariants still hold (checked above).
        if grid.layout.columnsPinned { return }
        let fresh = CollectionLayout(configuration: grid.layout.configuration, aspects: inOrder)
        for s in 0..<inOrder.count {
            for i in 0..<inOrder[s].count {
                let ip = IndexPath(item: i, section: s)
                #expect(fresh.frame(of: ip) == grid.layout.frame(of: ip), "incremental layout differs at \(ip)")
            }
            #expect(fresh.gapCellFrame(section: s) == grid.layout.gapCellFrame(section: s))
        }
    }

    /// Items are never lost or duplicated except by the operations that mean to: moves and
    /// swaps keep the set, copies add exactly the copies, the trash removes exactly the
    /// dropped items, placeholders come and go one by one.
    static func checkItemsKept(_ c: CommittedChange, before: Set<ItemID>, after: Set<ItemID>) {
        switch c.kind {
        case .move, .swap:
            #expect(before == after, "a \(c.kind) changed the set of items")
        case .copy:
            #expect(before.isDisjoint(with: c.copies) && after == before.union(c.copies), "a copy added other items")
        case .delete:
            #expect(after == before.subtracting(c.change.removed.map(\.id)) && after.count == before.count - c.change.removed.count,
                    "the trash removed other items")
        case .insertPlaceholders:
            #expect(after.isSuperset(of: before), "a placeholder drop removed items")
        case .commitPlaceholder:
            #expect(after.count == before.count && before.subtracting(after).count == 1, "a commit did not replace one placeholder")
        case .deletePlaceholder:
            #expect(after.count == before.count - 1 && after.isSubset(of: before), "a placeholder delete removed more")
        case .undo, .redo, .liveUpdate, .addSection, .moveSection:
            break
        case .deleteSection:
            #expect(after == before.subtracting(c.change.removed.map(\.id)), "a section delete removed other items")
        }
    }

    mutating func down(_ p: Point, id: Int = 0) {
        send(.pointerDown(PointerEvent(id: id, location: p, time: time, kind: kind, modifiers: modifiers)))
    }

    mutating func move(_ p: Point, id: Int = 0, after dt: Double = 1.0 / 60) {
        time += dt
        send(.pointerMove(PointerEvent(id: id, location: p, time: time, kind: kind, modifiers: modifiers)))
    }

    mutating func up(_ p: Point, id: Int = 0, after dt: Double = 1.0 / 60) {
        time += dt
        send(.pointerUp(PointerEvent(id: id, location: p, time: time, kind: kind, modifiers: modifiers)))
    }

    mutating func tick(_ dt: Double = 1.0 / 60) {
        time += dt
        absorb(grid.tick(now: time))
    }

    mutating func key(_ k: Key, modifiers: KeyModifiers = []) {
        time += 0.1
        send(.key(KeyEvent(k, modifiers: modifiers, time: time)))
    }

    /// Touch down on an item and hold until it lifts (F9).
    mutating func longPress(_ name: String) {
        kind = .touch
        down(centre(name))
        tick(0.25)
        tick(0.25)
    }

    /// Drags the pointer to `p` in a few steps.
    mutating func drag(to p: Point, steps: Int = 4) {
        let from = grid.session?.location ?? p
        for k in 1...steps {
            let f = Double(k) / Double(steps)
            move(Point(x: from.x + (p.x - from.x) * f, y: from.y + (p.y - from.y) * f))
        }
    }

    /// Lets the drop and settle animations run out.
    mutating func settle() { for _ in 0..<40 { tick() } }

    var commits: [CommittedChange] {
        effects.compactMap { if case .commit(let c) = $0 { return c } else { return nil } }
    }

    var announcements: [String] {
        effects.compactMap { if case .announce(let s) = $0 { return s } else { return nil } }
    }

    func cell(_ name: String) -> RenderedCell? {
        grid.visibleCells().first { $0.kind == .item && $0.item == Fruit.id(name) }
    }

    var names: [[String]] { Fruit.names(grid.snapshot) }
}
