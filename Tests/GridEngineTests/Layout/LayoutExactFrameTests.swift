import Testing
@testable import GridEngine

/// Small layouts whose frames were worked out by hand (the arithmetic is in the comments).
@Suite struct LayoutExactFrameTests {
    func expectFrame(_ layout: CollectionLayout, _ item: Int, _ section: Int,
                     _ x: Double, _ y: Double, _ w: Double, _ h: Double,
                     sourceLocation: SourceLocation = #_sourceLocation) {
        guard let f = layout.frame(of: IndexPath(item: item, section: section)) else {
            Issue.record("no frame for item \(item) in section \(section)", sourceLocation: sourceLocation)
            return
        }
        let ok = abs(f.minX - x) < 1e-9 && abs(f.minY - y) < 1e-9 && abs(f.width - w) < 1e-9 && abs(f.height - h) < 1e-9
        #expect(ok, "item \(item),\(section): got \(f)", sourceLocation: sourceLocation)
    }

    // Width 100, insets 5 all round, header 20, spacing 10: available 90,
    // cell (90 - 10) / 2 = 40. Items start at 20 + 5 = 25; rows every 50.
    static let gridConfig = LayoutConfiguration(
        kind: .grid(columns: 2), containerWidth: 100, headerHeight: 20,
        sectionInsets: EdgeInsets(all: 5), itemSpacing: 10, lineSpacing: 10)

    @Test func aTwoColumnGridWithHeadersPlacesSquareCellsRowByRow() {
        let layout = CollectionLayout(configuration: Self.gridConfig, aspects: [[1, 1, 1], [2]])
        layout.checkInvariants()
        expectFrame(layout, 0, 0, 5, 25, 40, 40)
        expectFrame(layout, 1, 0, 55, 25, 40, 40)
        expectFrame(layout, 2, 0, 5, 75, 40, 40)
        // Section 0: items end at 75 + 40 = 115, + bottom inset 5 = 120.
        #expect(layout.sectionFrame(0) == Rect(x: 0, y: 0, width: 100, height: 120))
        #expect(layout.headerFrame(section: 1) == Rect(x: 0, y: 120, width: 100, height: 20))
        expectFrame(layout, 0, 1, 5, 145, 40, 40)   // grid ignores the item's own aspect
        #expect(layout.contentSize == Size(width: 100, height: 190))
    }

    @Test func gridGapCellsTakeTheNextSlotWithoutMovingItems() {
        var config = Self.gridConfig
        config.showsGapCells = true
        let layout = CollectionLayout(configuration: config, aspects: [[1, 1, 1], [1, 1]])
        layout.checkInvariants()
        #expect(layout.gapCellFrame(section: 0) == Rect(x: 55, y: 75, width: 40, height: 40))
        // Section 1 is full (2 items): its gap cell opens a new row, 25 + 50 = 75 below its top 120.
        #expect(layout.gapCellFrame(section: 1) == Rect(x: 5, y: 195, width: 40, height: 40))
        #expect(layout.contentSize.height == 120 + 120)
        expectFrame(layout, 1, 1, 55, 145, 40, 40)
    }

    @Test func aGridWithAFixedAspectMakesWideCells() {
        // 2 columns of 50, aspect 2: cells 50 × 25.
        let config = LayoutConfiguration(kind: .grid(columns: 2, aspect: 2), containerWidth: 100)
        let layout = CollectionLayout(configuration: config, aspects: [[1, 1, 1]])
        expectFrame(layout, 2, 0, 0, 25, 50, 25)
        #expect(layout.contentSize.height == 50)
    }

    @Test func aFlowLayoutWrapsFixedSizeItemsLeftAligned() {
        // 30 × 20 items, spacing 5: (100 + 5) / 35 = 3 per row; rows every 25.
        let config = LayoutConfiguration(kind: .flow(itemSize: Size(width: 30, height: 20)), containerWidth: 100,
                                         itemSpacing: 5, lineSpacing: 5)
        let layout = CollectionLayout(configuration: config, aspects: [[1, 1, 1, 1]])
        layout.checkInvariants()
        expectFrame(layout, 0, 0, 0, 0, 30, 20)
        expectFrame(layout, 1, 0, 35, 0, 30, 20)
        expectFrame(layout, 2, 0, 70, 0, 30, 20)
        expectFrame(layout, 3, 0, 0, 25, 30, 20)
        #expect(layout.contentSize.height == 45)
    }

    // Width 110, 2 columns, spacing 10: columns 50 wide at x 0 and 60.
    static let waterfallConfig = LayoutConfiguration(kind: .waterfall(columns: 2), containerWidth: 110,
                                                     itemSpacing: 10, lineSpacing: 10)

    @Test func waterfallPutsEachItemIntoTheShortestColumn() {
        let layout = CollectionLayout(configuration: Self.waterfallConfig, aspects: [[1, 0.5, 2, 1]])
        layout.checkInvariants()
        expectFrame(layout, 0, 0, 0, 0, 50, 50)     // tie at 0 → leftmost; column 0 next at 60
        expectFrame(layout, 1, 0, 60, 0, 50, 100)   // aspect 0.5 → height 100; column 1 next at 110
        expectFrame(layout, 2, 0, 0, 60, 50, 25)    // 60 < 110; column 0 next at 95
        expectFrame(layout, 3, 0, 0, 95, 50, 50)    // 95 < 110; column 0 ends at 145
        #expect(layout.contentSize.height == 145)
    }

    @Test func waterfallTiesGoToTheLeftmostColumnAndTheGapCellToTheShortest() {
        var config = Self.waterfallConfig
        config.showsGapCells = true
        let layout = CollectionLayout(configuration: config, aspects: [[1, 1, 1, 0.5, 2, 1]])
        layout.checkInvariants()
        expectFrame(layout, 0, 0, 0, 0, 50, 50)
        expectFrame(layout, 1, 0, 60, 0, 50, 50)
        expectFrame(layout, 2, 0, 0, 60, 50, 50)    // columns tie at 60 → leftmost
        expectFrame(layout, 3, 0, 60, 60, 50, 100)  // column 1 at 60 < column 0 at 120
        expectFrame(layout, 4, 0, 0, 120, 50, 25)
        expectFrame(layout, 5, 0, 0, 155, 50, 50)   // column 0 at 155 < column 1 at 170
        // Gap cell: column 1 (170) is shorter than column 0 (215): square 50 at y 170.
        #expect(layout.gapCellFrame(section: 0) == Rect(x: 60, y: 170, width: 50, height: 50))
        #expect(layout.contentSize.height == 220)
    }

    // Width 100, target row height 40, spacing 4.
    static let justifiedConfig = LayoutConfiguration(kind: .justified(rowHeight: 40), containerWidth: 100,
                                                     itemSpacing: 4, lineSpacing: 4)

    @Test func justifiedRowsFillTheWidthAndTheLastRowKeepsTheTargetHeight() {
        let layout = CollectionLayout(configuration: Self.justifiedConfig, aspects: [[2, 1.2, 1.2, 2, 4, 0.5]])
        layout.checkInvariants()
        // Row 0: [2] is 80 wide; adding 1.2 gives 3.2 × 40 + 4 = 132 > 100. With it the row
        // shrinks to (100 - 4) / 3.2 = 30 (ratio 40/30 = 1.33); without it, [2] stretches to
        // 100 / 2 = 50 (ratio 1.25): nearer, so item 0 closes the row alone at height 50.
        expectFrame(layout, 0, 0, 0, 0, 100, 50)
        // Row 1 at 54: [1.2, 1.2] is 2.4 × 40 + 4 = 100 exactly; adding 2 overflows: with it
        // (100 - 8) / 4.4 = 20.9 (ratio 1.91), without it (100 - 4) / 2.4 = 40 (ratio 1).
        expectFrame(layout, 1, 0, 0, 54, 48, 40)
        expectFrame(layout, 2, 0, 52, 54, 48, 40)
        // Row 2 at 98: [2] is 80; 4 alone is 160 > 100: too wide, so [2] closes stretched to
        // 100 / 2 = 50 and [4] gets its own row at 100 / 4 = 25.
        expectFrame(layout, 3, 0, 0, 98, 100, 50)
        expectFrame(layout, 4, 0, 0, 152, 100, 25)
        // Last row at 181: not stretched, target height, left-aligned.
        expectFrame(layout, 5, 0, 0, 181, 20, 40)
        #expect(abs(layout.contentSize.height - 221) < 1e-9)
    }

    @Test func justifiedGapCellSitsBesideAnUnstretchedLastRow() {
        var config = Self.justifiedConfig
        config.showsGapCells = true
        let layout = CollectionLayout(configuration: config, aspects: [[2, 1.2, 1.2, 2, 4, 0.5]])
        layout.checkInvariants()
        let gap = layout.gapCellFrame(section: 0) ?? .zero
        #expect(gap.minX == 24 && abs(gap.minY - 181) < 1e-9 && gap.size == Size(width: 40, height: 40))
        expectFrame(layout, 5, 0, 0, 181, 20, 40)
        // After a stretched last row ([4] alone), the gap cell starts a row below it.
        let other = CollectionLayout(configuration: config, aspects: [[4]])
        #expect(other.gapCellFrame(section: 0) == Rect(x: 0, y: 29, width: 40, height: 40))
    }

    @Test func anUnknownAspectLaysOutAsASquare() {
        let layout = CollectionLayout(configuration: Self.waterfallConfig, aspects: [[0, -1]])
        expectFrame(layout, 0, 0, 0, 0, 50, 50)
        expectFrame(layout, 1, 0, 60, 0, 50, 50)
    }
}
