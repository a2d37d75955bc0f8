import Testing
@testable import GridEngine

/// Hit-tests, drop destinations and the pinch anchor on hand-checked layouts.
@Suite struct LayoutQueryTests {
    // Grid of LayoutExactFrameTests: cells 40 at x 5 and 55, rows at 25 and 75 (section 0,
    // 3 items, height 120), section 1 at 120 with one item at y 145.
    let grid = CollectionLayout(configuration: LayoutExactFrameTests.gridConfig, aspects: [[1, 1, 1], [1]])

    @Test func hitTestingIsHalfOpenAndIgnoresSpacingAndHeaders() {
        #expect(grid.indexPath(at: Point(x: 5, y: 25)) == IndexPath(item: 0, section: 0))
        #expect(grid.indexPath(at: Point(x: 45, y: 25)) == nil)          // item 0 ends at 45
        #expect(grid.indexPath(at: Point(x: 55, y: 64.9)) == IndexPath(item: 1, section: 0))
        #expect(grid.indexPath(at: Point(x: 55, y: 65)) == nil)          // line spacing
        #expect(grid.indexPath(at: Point(x: 50, y: 10)) == nil)          // header
        #expect(grid.indexPath(at: Point(x: 75, y: 95)) == nil)          // empty slot after item 2
        #expect(grid.indexPath(at: Point(x: 10, y: 150)) == IndexPath(item: 0, section: 1))
        #expect(grid.indexPath(at: Point(x: 10, y: 1000)) == nil)
    }

    @Test func dropOnTheMiddleOfAnItemGoesIntoItAndNearItsEdgesBetweenItems() {
        let s0 = { (i: Int) in IndexPath(item: i, section: 0) }
        #expect(grid.dropDestination(at: Point(x: 75, y: 45)) == .into(s0(1)))       // centre of item 1
        #expect(grid.dropDestination(at: Point(x: 10, y: 45)) == .insert(at: s0(0))) // left quarter of item 0
        #expect(grid.dropDestination(at: Point(x: 40, y: 45)) == .insert(at: s0(1))) // right quarter of item 0
        #expect(grid.dropDestination(at: Point(x: 25, y: 28)) == .insert(at: s0(1))) // top band, right of centre
        #expect(grid.dropDestination(at: Point(x: 50, y: 45)) == .insert(at: s0(1))) // spacing between 0 and 1
        #expect(grid.dropDestination(at: Point(x: 75, y: 95)) == .insert(at: s0(3))) // past the last item
        #expect(grid.dropDestination(at: Point(x: 75, y: 117)) == .insert(at: s0(3))) // bottom inset
        #expect(grid.dropDestination(at: Point(x: 50, y: 10)) == .insert(at: s0(0))) // header
        #expect(grid.dropDestination(at: Point(x: 50, y: 500)) == nil)
        #expect(grid.dropDestination(at: Point(x: -1, y: 45)) == nil)
    }

    @Test func dropOnTheGapCellGoesToTheEndOfItsSection() {
        var config = LayoutExactFrameTests.gridConfig
        config.showsGapCells = true
        let layout = CollectionLayout(configuration: config, aspects: [[1, 1, 1], []])
        #expect(layout.dropDestination(at: Point(x: 60, y: 80)) == .insert(at: IndexPath(item: 3, section: 0)))
        #expect(layout.indexPath(at: Point(x: 60, y: 80)) == nil)
        // The empty section's gap cell is its first slot.
        #expect(layout.gapCellFrame(section: 1) == Rect(x: 5, y: 145, width: 40, height: 40))
        #expect(layout.dropDestination(at: Point(x: 25, y: 165)) == .insert(at: IndexPath(item: 0, section: 1)))
    }

    @Test func waterfallDropsChooseBeforeOrAfterByTheVerticalHalf() {
        // Frames from LayoutExactFrameTests: 0 (0,0,50,50) 1 (60,0,50,100) 2 (0,60,50,25) 3 (0,95,50,50).
        let layout = CollectionLayout(configuration: LayoutExactFrameTests.waterfallConfig, aspects: [[1, 0.5, 2, 1]])
        let s0 = { (i: Int) in IndexPath(item: i, section: 0) }
        #expect(layout.dropDestination(at: Point(x: 25, y: 72)) == .into(s0(2)))
        #expect(layout.dropDestination(at: Point(x: 25, y: 62)) == .insert(at: s0(2)))
        #expect(layout.dropDestination(at: Point(x: 25, y: 84)) == .insert(at: s0(3)))
        #expect(layout.dropDestination(at: Point(x: 25, y: 55)) == .insert(at: s0(2)))  // spacing above item 2
        #expect(layout.dropDestination(at: Point(x: 80, y: 130)) == .insert(at: s0(4))) // below column 1
        #expect(layout.indexPath(at: Point(x: 80, y: 99)) == s0(1))
        #expect(layout.indexPath(at: Point(x: 55, y: 10)) == nil)                       // between columns
    }

    @Test func justifiedHitTestFindsItemsOfUnequalWidth() {
        let layout = CollectionLayout(configuration: LayoutExactFrameTests.justifiedConfig, aspects: [[2, 1.2, 1.2, 2, 4, 0.5]])
        #expect(layout.indexPath(at: Point(x: 51, y: 60)) == nil)                       // spacing 48..52
        #expect(layout.indexPath(at: Point(x: 53, y: 60)) == IndexPath(item: 2, section: 0))
        #expect(layout.indexPath(at: Point(x: 19, y: 200)) == IndexPath(item: 5, section: 0))
        #expect(layout.dropDestination(at: Point(x: 60, y: 200)) == .insert(at: IndexPath(item: 6, section: 0)))
    }

    @Test func pinchingFromFourToTwoColumnsKeepsTheItemUnderTheFingers() {
        // Width 100, no spacing: 4 columns of 25. Item 9 is row 2, column 1: (25, 50, 25, 25).
        let config = LayoutConfiguration(kind: .grid(columns: 4), containerWidth: 100)
        var layout = CollectionLayout(configuration: config, aspects: [Array(repeating: 1, count: 20)])
        // Anchor (37.5, 12.5) in the view with offset 50 → content (37.5, 62.5): item 9's centre.
        let offset = layout.reconfigure(kind: .grid(columns: 2), keeping: Point(x: 37.5, y: 12.5),
                                        contentOffset: Point(x: 0, y: 50))
        // 2 columns of 50: item 9 is row 4, column 1: (50, 200, 50, 50), centre y 225.
        #expect(layout.frame(of: IndexPath(item: 9, section: 0)) == Rect(x: 50, y: 200, width: 50, height: 50))
        #expect(offset == Point(x: 0, y: 212.5))
        layout.checkInvariants()
    }

    @Test func layoutsSwitchKindAtRunTime() {
        var layout = CollectionLayout(configuration: LayoutExactFrameTests.gridConfig, aspects: [[1, 0.5, 2]])
        var config = layout.configuration
        config.kind = .waterfall(columns: 2)
        layout.reconfigure(config)
        layout.checkInvariants()
        // Waterfall with the same 40-wide columns: item 1 (aspect 0.5) is 80 tall.
        #expect(layout.frame(of: IndexPath(item: 1, section: 0)) == Rect(x: 55, y: 25, width: 40, height: 80))
        #expect(layout.frame(of: IndexPath(item: 2, section: 0)) == Rect(x: 5, y: 75, width: 40, height: 20))
    }
}
