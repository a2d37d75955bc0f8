import Testing
@testable import GridEngine

/// Issue 2's target for many small sections: a full waterfall prepare runs one fused pass
/// (`_prepareWaterfallSections`), a full justified prepare appends every section's rows to
/// one table. They must give, bit for bit, what the per-section kernels give — the path
/// every incremental edit takes — for every item, column grouping, row, gap cell and
/// section height, with gap cells shown or not, empty sections included.
@Suite struct FullPrepareTests {
    /// The per-section path: kernel, counting sort (waterfall) and finish for each section,
    /// then the tops.
    static func perSection(_ layout: CollectionLayout) -> CollectionLayout {
        var l = layout
        for k in 0..<l._x.count { l._x[k] = -1; l._y[k] = -1; l._w[k] = -1; l._h[k] = -1 }
        for k in 0..<l._column.count { l._column[k] = -1; l._columnItems[k] = -1 }
        l._rowFirst = []
        l._sectionRowStart = [0]
        for s in 0..<l.numberOfSections {
            l._layoutSection(s, from: 0)
            l._finishSection(s)
        }
        l._recomputeTops(from: 0)
        return l
    }

    @Test(arguments: 0..<40)
    func aFullPrepareEqualsTheIncrementalKernelsBitForBit(seed: UInt64) {
        var rng = SeededGenerator(seed: 0xFA11 &+ seed)
        let sections = Int.random(in: 1...40, using: &rng)
        let counts = (0..<sections).map { _ in Int.random(in: 0..<5, using: &rng) == 0 ? 0 : Int.random(in: 1...25, using: &rng) }
        let total = counts.reduce(0, +)
        // Aspects include nonsense (squares, F16) and exact ties between columns.
        let aspects = (0..<total).map { _ -> Double in
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: return .nan
            case 1: return 1
            default: return 0.3 + 2.7 * rng.nextUnit()
            }
        }
        let kind: LayoutKind = seed % 2 == 0 ? .waterfall(columns: Int.random(in: 1...7, using: &rng))
                                             : .justified(rowHeight: 40 + 200 * rng.nextUnit())
        var config = LayoutConfiguration(kind: kind,
                                         containerWidth: 200 + 1000 * rng.nextUnit(), headerHeight: 40 * rng.nextUnit(),
                                         sectionInsets: EdgeInsets(all: 10 * rng.nextUnit()),
                                         itemSpacing: 6 * rng.nextUnit(), lineSpacing: 6 * rng.nextUnit())
        config.showsGapCells = Bool.random(using: &rng)
        var fused = CollectionLayout(configuration: config)
        fused.prepare(aspects: aspects, sectionCounts: counts)
        fused.checkInvariants()
        let reference = FullPrepareTests.perSection(fused)
        func bits(_ a: [Double]) -> [UInt64] { a.map(\.bitPattern) }
        #expect(bits(fused._x) == bits(reference._x) && bits(fused._y) == bits(reference._y))
        #expect(bits(fused._w) == bits(reference._w) && bits(fused._h) == bits(reference._h))
        #expect(fused._column == reference._column && fused._columnItems == reference._columnItems && fused._columnEnd == reference._columnEnd)
        #expect(bits(fused._gapX) == bits(reference._gapX) && bits(fused._gapY) == bits(reference._gapY))
        #expect(bits(fused._gapW) == bits(reference._gapW) && bits(fused._gapH) == bits(reference._gapH))
        #expect(bits(fused._sectionHeight) == bits(reference._sectionHeight) && bits(fused._sectionTop) == bits(reference._sectionTop))
        #expect(fused._rowFirst == reference._rowFirst && fused._sectionRowStart == reference._sectionRowStart)
    }
}
