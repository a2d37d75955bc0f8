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
