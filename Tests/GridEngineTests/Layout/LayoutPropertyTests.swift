import Testing
@testable import GridEngine

/// Random sections, aspects (0.3–3.0), widths, kinds and spacing, from seeds.
@Suite struct LayoutPropertyTests {
    struct Case {
        var config: LayoutConfiguration
        var aspects: [[Double]]
    }

    static func randomKind(_ rng: inout SeededGenerator) -> LayoutKind {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return .grid(columns: Int.random(in: 1...7, using: &rng),
                             aspect: Bool.random(using: &rng) ? 1 : Double.random(in: 0.5...2, using: &rng))
        case 1: return .flow(itemSize: Size(width: Double.random(in: 20...160, using: &rng),
                                            height: Double.random(in: 20...160, using: &rng)))
        case 2: return .waterfall(columns: Int.random(in: 1...7, using: &rng))
        default: return .justified(rowHeight: Double.random(in: 30...220, using: &rng))
        }
    }

    static func randomCase(seed: UInt64) -> Case {
        var rng = SeededGenerator(seed: seed)
        var config = LayoutConfiguration(kind: randomKind(&rng), containerWidth: Double.random(in: 120...1400, using: &rng))
        config.headerHeight = Bool.random(using: &rng) ? 0 : Double.random(in: 10...60, using: &rng)
        config.sectionInsets = EdgeInsets(top: Double.random(in: 0...20, using: &rng), left: Double.random(in: 0...20, using: &rng),
                                          bottom: Double.random(in: 0...20, using: &rng), right: Double.random(in: 0...20, using: &rng))
        config.itemSpacing = Double.random(in: 0...12, using: &rng)
        config.lineSpacing = Double.random(in: 0...12, using: &rng)
        config.showsGapCells = Bool.random(using: &rng)
        let sections = Int.random(in: 1...5, using: &rng)
        var aspects: [[Double]] = []
        for _ in 0..<sections {
            let n = Int.random(in: 0...70, using: &rng)
            aspects.append((0..<n).map { _ in Double.random(in: 0.3...3.0, using: &rng) })
        }
        return Case(config: config, aspects: aspects)
    }

    /// Every element by brute force, from the per-element accessors.
    static func allAttributes(_ layout: CollectionLayout) -> [LayoutAttributes] {
        var out: [LayoutAttributes] = []
        for s in 0..<layout.numberOfSections {
            if let h = layout.headerFrame(section: s) { out.append(.init(kind: .header, indexPath: IndexPath(item: 0, section: s), frame: h)) }
            for i in 0..<layout.numberOfItems(inSection: s) {
                let ip = IndexPath(item: i, section: s)
                out.append(.init(kind: .item, indexPath: ip, frame: layout.frame(of: ip)!))
            }
            if let g = layout.gapCellFrame(section: s) {
                out.append(.init(kind: .gapCell, indexPath: IndexPath(item: layout.numberOfItems(inSection: s), section: s), frame: g))
            }
        }
        return out
    }

    static func sorted(_ a: [LayoutAttributes]) -> [LayoutAttributes] {
        func rank(_ k: LayoutElementKind) -> Int { k == .header ? 0 : k == .item ? 1 : 2 }
        return a.sorted { x, y in
            if x.indexPath.section != y.indexPath.section { return x.indexPath.section < y.indexPath.section }
            if rank(x.kind) != rank(y.kind) { return rank(x.kind) < rank(y.kind) }
            return x.indexPath.item < y.indexPath.item
        }
    }

    static func expectSameFrames(_ a: CollectionLayout, _ b: CollectionLayout, sourceLocation: SourceLocation = #_sourceLocation) {
        let x = allAttributes(a), y = allAttributes(b)
        #expect(x.count == y.count, sourceLocation: sourceLocation)
        // Report only the first difference: whole layouts are too long to read.
        if let i = (0..<min(x.count, y.count)).first(where: { x[$0] != y[$0] }) {
            Issue.record("first difference at \(i): \(x[i]) vs \(y[i])", sourceLocation: sourceLocation)
        }
        #expect(a.contentSize == b.contentSize, sourceLocation: sourceLocation)
    }

    @Test(arguments: 0..<60)
    func noTwoFramesOverlapWithinASectionAndEveryCentreHitsItsItem(seed: Int) {
        let c = Self.randomCase(seed: UInt64(seed))
        let layout = CollectionLayout(configuration: c.config, aspects: c.aspects)
        layout.checkInvariants()
        for s in 0..<layout.numberOfSections {
            let section = layout.sectionFrame(s)
            var frames: [Rect] = []
            for i in 0..<layout.numberOfItems(inSection: s) {
                let ip = IndexPath(item: i, section: s)
                let f = layout.frame(of: ip)!
                #expect(f.minY >= section.minY && f.maxY <= section.maxY + 1e-9)
                if f.width > 0 && f.height > 0 {
                    #expect(layout.indexPath(at: f.center) == ip)
                    #expect(layout.dropDestination(at: f.center) == .into(ip))
                }
                frames.append(f)
            }
            if let g = layout.gapCellFrame(section: s) {
                frames.append(g)
                #expect(layout.indexPath(at: g.center) == nil)
                #expect(layout.dropDestination(at: g.center) == .insert(at: IndexPath(item: layout.numberOfItems(inSection: s), section: s)))
            }
            for i in 0..<frames.count {
                for j in (i + 1)..<frames.count { #expect(!frames[i].intersects(frames[j]), "overlap \(i) \(j) in section \(s)") }
            }
        }
    }

    @Test(arguments: 0..<60)
    func visibleQueriesAndHitTestsEqualABruteForceScan(seed: Int) {
        let c = Self.randomCase(seed: UInt64(seed) &+ 1000)
        let layout = CollectionLayout(configuration: c.config, aspects: c.aspects)
        let all = Self.allAttributes(layout)
        var rng = SeededGenerator(seed: UInt64(seed))
        let size = layout.contentSize
        for _ in 0..<25 {
            let rect = Rect(x: Double.random(in: -50...size.width, using: &rng), y: Double.random(in: -50...(size.height + 10), using: &rng),
                            width: Double.random(in: 0...size.width, using: &rng), height: Double.random(in: 0...800, using: &rng))
            let fast = Self.sorted(layout.attributes(in: rect))
            let slow = Self.sorted(all.filter { $0.frame.intersects(rect) })
            #expect(fast == slow)
            // A point: the hit-test equals the first item frame containing it.
            let p = Point(x: Double.random(in: 0..<size.width, using: &rng), y: Double.random(in: -10...(size.height + 10), using: &rng))
            let expected = all.first { $0.kind == .item && $0.frame.contains(p) }?.indexPath
            #expect(layout.indexPath(at: p) == expected)
            // A drop destination exists exactly inside the content.
            let d = layout.dropDestination(at: p)
            #expect((d != nil) == (p.y >= 0 && p.y < size.height && p.x >= 0))
            if case .into(let ip)? = d { #expect(ip == expected) }
            if case .insert(let ip)? = d {
                #expect(ip.item >= 0 && ip.item <= layout.numberOfItems(inSection: ip.section))
                #expect(layout.sectionFrame(ip.section).contains(p))
            }
        }
    }

    @Test(arguments: 0..<60)
    func incrementalMovesInsertsAndDeletesEqualAFullPrepare(seed: Int) {
        let c = Self.randomCase(seed: UInt64(seed) &+ 2000)
        var aspects = c.aspects
        var layout = CollectionLayout(configuration: c.config, aspects: aspects)
        var rng = SeededGenerator(seed: UInt64(seed) &+ 77)
        for step in 0..<30 {
            let nonEmpty = (0..<aspects.count).filter { !aspects[$0].isEmpty }
            let op = Int.random(in: 0..<10, using: &rng)
            if op < 6, let from = nonEmpty.randomElement(using: &rng) {
                let fi = Int.random(in: 0..<aspects[from].count, using: &rng)
                let a = aspects[from].remove(at: fi)
                let to = Int.random(in: 0..<aspects.count, using: &rng)
                let ti = Int.random(in: 0...aspects[to].count, using: &rng)
                aspects[to].insert(a, at: ti)
                layout.itemMoved(from: IndexPath(item: fi, section: from), to: IndexPath(item: ti, section: to))
            } else if op < 8 {
                let to = Int.random(in: 0..<aspects.count, using: &rng)
                let ti = Int.random(in: 0...aspects[to].count, using: &rng)
                let a = Double.random(in: 0.3...3, using: &rng)
                aspects[to].insert(a, at: ti)
                layout.itemInserted(at: IndexPath(item: ti, section: to), aspect: a)
            } else if op == 8, let from = nonEmpty.randomElement(using: &rng) {
                let fi = Int.random(in: 0..<aspects[from].count, using: &rng)
                aspects[from].remove(at: fi)
                layout.itemDeleted(at: IndexPath(item: fi, section: from))
            } else if let at = nonEmpty.randomElement(using: &rng) {
                let i = Int.random(in: 0..<aspects[at].count, using: &rng)
                aspects[at][i] = Double.random(in: 0.3...3, using: &rng)
                layout.setAspect(aspects[at][i], at: IndexPath(item: i, section: at))
            }
            layout.checkInvariants()
            let full = CollectionLayout(configuration: c.config, aspects: aspects)
            Self.expectSameFrames(layout, full)
            if step % 10 == 9 {
                layout.setShowsGapCells(!layout.configuration.showsGapCells)
                var config = c.config
                config.showsGapCells = layout.configuration.showsGapCells
                Self.expectSameFrames(layout, CollectionLayout(configuration: config, aspects: aspects))
                layout.setShowsGapCells(c.config.showsGapCells)
            }
        }
    }

    @Test(arguments: 0..<60)
    func changingDensityKeepsTheAnchoredItemWithinOnePointOnScreen(seed: Int) {
        let c = Self.randomCase(seed: UInt64(seed) &+ 3000)
        var layout = CollectionLayout(configuration: c.config, aspects: c.aspects)
        let items = Self.allAttributes(layout).filter { $0.kind == .item && $0.frame.height > 0 }
        var rng = SeededGenerator(seed: UInt64(seed) &+ 5)
        guard let anchorItem = items.randomElement(using: &rng) else { return }
        // A viewport somewhere around the item; the anchor is a point inside the item.
        let f = anchorItem.frame
        let p = Point(x: f.minX + f.width * Double.random(in: 0.1...0.9, using: &rng),
                      y: f.minY + f.height * Double.random(in: 0.1...0.9, using: &rng))
        let offset = Point(x: 0, y: p.y - Double.random(in: 0...800, using: &rng))
        let anchor = Point(x: p.x - offset.x, y: p.y - offset.y)
        let newKind = c.config.kind.withDensity(columns: Int.random(in: 1...8, using: &rng),
                                                rowHeight: Double.random(in: 30...250, using: &rng))
        let newOffset = layout.reconfigure(kind: newKind, keeping: anchor, contentOffset: offset)
        layout.checkInvariants()
        // Independently: the same item in a freshly prepared layout of the new kind.
        var config = c.config
        config.kind = newKind
        let fresh = CollectionLayout(configuration: config, aspects: c.aspects)
        let g = fresh.frame(of: anchorItem.indexPath)!
        let relative = (p.y - f.minY) / f.height
        let screenY = g.minY + relative * g.height - newOffset.y
        #expect(abs(screenY - anchor.y) <= 1)
        #expect(newOffset.x == offset.x)
    }
}
