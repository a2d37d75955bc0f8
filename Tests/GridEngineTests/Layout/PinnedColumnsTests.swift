import Testing
@testable import GridEngine

/// Issue 13: in a waterfall, a block moving through the grid during a drag leaves the other
/// items in their columns where the layout allows; the drop goes back to the canonical layout.
@Suite struct PinnedColumnsTests {
    /// 30 items of varied aspects in 4 columns.
    static let aspects: [Double] = (0..<30).map { [0.6, 1.4, 0.9, 1.1, 0.75, 1.6, 1.0][$0 % 7] }

    static func columns(_ layout: CollectionLayout, _ order: [Int]) -> [Int: Int] {
        var out: [Int: Int] = [:]
        for (i, item) in order.enumerated() {
            let f = layout.frame(of: IndexPath(item: i, section: 0))!
            out[item] = Int((f.minX / (layout.configuration.containerWidth / 4)).rounded(.down))
        }
        return out
    }

    @Test func movingTheFirstItemToThirdPlaceKeepsTheOthersInTheirColumns() {
        let config = LayoutConfiguration(kind: .waterfall(columns: 4), containerWidth: 400)
        var layout = CollectionLayout(configuration: config, aspects: [Self.aspects])
        var order = Array(0..<30)
        let before = Self.columns(layout, order)
        layout.pinColumns()
        layout.itemMoved(from: IndexPath(item: 0, section: 0), to: IndexPath(item: 2, section: 0))
        order.remove(at: 0); order.insert(0, at: 2)
        let pinned = Self.columns(layout, order)
        let moved = (1..<30).filter { pinned[$0] != before[$0] }

        // The same move laid out canonically (every item in the shortest column).
        var canonical = CollectionLayout(configuration: config, aspects: [order.map { Self.aspects[$0] }])
        canonical.setShowsGapCells(false)
        let free = Self.columns(canonical, order)
        let movedFree = (1..<30).filter { free[$0] != before[$0] }
        #expect(moved.count <= 2, "pinned: \(moved.count) items changed columns")
        #expect(movedFree.count > moved.count + 4, "canonical: \(movedFree.count) changed (the bug: many)")
        layout._checkColumns(0)

        // The drop: back to the canonical layout, exactly.
        layout.unpinColumns()
        for i in 0..<30 {
            #expect(layout.frame(of: IndexPath(item: i, section: 0)) == canonical.frame(of: IndexPath(item: i, section: 0)))
        }
        #expect(!layout.columnsPinned)
    }
}

extension PinnedColumnsTests {
    /// Whole drags in a waterfall (one item, and two carried): at rest the layout is the
    /// canonical one again (the hand checks every step against a layout from scratch).
    @Test func afterAWaterfallDragTheLayoutIsCanonicalAgain() {
        let names = Fruit.names
        let snapshot = try! Snapshot([(id: SectionID(100), items: names.map(Fruit.id))])
        let config = LayoutConfiguration(kind: .waterfall(columns: 4), containerWidth: 400)
        for carried in [1, 2] {
            var grid = try! GridController(snapshot: snapshot, aspects: [names.indices.map { Self.aspects[$0] }], layout: config,
                                           viewport: Size(width: 400, height: 900), interaction: Fruit.immediate)
            for n in names { grid.setTitle(n, for: Fruit.id(n)) }
            var hand = Hand(grid)
            hand.longPress("Banana")
            if carried == 2 { hand.absorb(hand.grid.addToDrag(Fruit.id("Cherry"))) }
            hand.drag(to: hand.centre("Dragon"))
            hand.drag(to: hand.centre("Milk"))
            hand.up(hand.centre("Milk"))
            hand.settle()
            #expect(!hand.grid.layout.columnsPinned)
            hand.checkGeometry()
        }
    }
}

extension PinnedColumnsTests {
    /// The sample gallery as a phone shows it (390 pt, 4 columns): Banana and Cherry carried to
    /// Dragon's place by touch; at rest the layout is canonical.
    @Test func theSampleOnAPhoneAfterATwoItemDrag() {
        let names = Fruit.names
        let heights: [String: Double] = ["Apple": 89, "Banana": 45, "Cherry": 134, "Date": 59, "Dragon": 62, "Sheep": 89,
                                         "V-Malicious": 148, "X-Code": 57, "GreatWall": 33, "TaiTan": 134, "Milk": 111, "🥸": 89]
        let snapshot = try! Snapshot([(id: SectionID(100), items: names.map(Fruit.id)), (id: SectionID(101), items: [])])
        let config = LayoutConfiguration(kind: .waterfall(columns: 4), containerWidth: 390, headerHeight: 44,
                                         sectionInsets: EdgeInsets(top: 8, left: 8, bottom: 8, right: 8), itemSpacing: 6, lineSpacing: 6)
        var grid = try! GridController(snapshot: snapshot, aspects: [names.map { 89.5 / heights[$0]! }, []], layout: config,
                                       viewport: Size(width: 390, height: 598), interaction: Fruit.immediate)
        for n in names { grid.setTitle(n, for: Fruit.id(n)) }
        var hand = Hand(grid)
        hand.longPress("Banana")
        hand.absorb(hand.grid.addToDrag(Fruit.id("Cherry")))
        let target = hand.centre("Dragon")
        hand.drag(to: target, steps: 12)
        hand.up(target)
        hand.settle()
        #expect(!hand.grid.layout.columnsPinned)
        hand.checkGeometry()
    }
}

extension PinnedColumnsTests {
    /// A window resized (or the columns changed) mid-drag: the new layout is pinned again, so
    /// the block keeps passing without sending the others — and the "Drop here" cell the
    /// pointer goes for — to other columns; the drop unpins as before.
    @Test func aResizeMidDragPinsTheNewLayoutsColumnsAgain() {
        let ids = (1...30).map { ItemID(UInt64($0)) }
        let snapshot = try! Snapshot([(id: SectionID(1), items: ids)])
        let grid = try! GridController(snapshot: snapshot, aspects: [Self.aspects],
                                       layout: LayoutConfiguration(kind: .waterfall(columns: 4), containerWidth: 400),
                                       viewport: Size(width: 400, height: 600), interaction: Fruit.immediate)
        var hand = Hand(grid)
        hand.kind = .mouse
        let from = hand.centre(ItemID(2))
        hand.down(from)
        hand.move(Point(x: from.x + 8, y: from.y + 8))
        #expect(hand.grid.session?.phase == .dragging)
        #expect(hand.grid.layout.columnsPinned)
        hand.grid.setViewport(Size(width: 300, height: 600))
        #expect(hand.grid.layout.configuration.showsGapCells)
        #expect(hand.grid.layout.columnsPinned, "a resize mid-drag left the waterfall unpinned")
        var config = hand.grid.layout.configuration
        config.kind = .waterfall(columns: 3)
        hand.grid.setLayoutConfiguration(config)
        #expect(hand.grid.layout.columnsPinned, "a column change mid-drag left the waterfall unpinned")
        hand.checkGeometry()
        hand.up(Point(x: from.x + 8, y: from.y + 8))
        hand.settle()
        #expect(!hand.grid.layout.columnsPinned)
        hand.checkGeometry()
    }
}
