import Testing
@testable import GridEngine

/// Seed 001: scroll target behaviours (F6–F8) on a layout with section headers.
@Suite struct ScrollTargetTests {
    /// Two sections of 12 items (3 rows of 100 pt) under 50 pt headers: section 0 spans
    /// 0...350 (items at 50, 150, 250), section 1 spans 350...700 (items at 400, 500, 600).
    /// Viewport 400 × 300: content 700, largest offset 400.
    static func grid(width: Double = 400) -> GridController {
        let a = (1...12).map { ItemID(UInt64($0)) }, b = (13...24).map { ItemID(UInt64($0)) }
        let columns = Int(width / 100)
        return try! GridController(snapshot: Snapshot([(id: SectionID(1), items: a), (id: SectionID(2), items: b)]),
                                   aspects: [a.map { _ in 1 }, b.map { _ in 1 }],
                                   layout: LayoutConfiguration(kind: .grid(columns: columns), containerWidth: width, headerHeight: 50),
                                   viewport: Size(width: width, height: 300))
    }

    @Test func noneOnlyClampsToTheContent() {
        var grid = ScrollTargetTests.grid()
        grid.snapping = .none
        #expect(grid.scrollTarget(proposed: Point(x: 0, y: 123), velocity: Point(x: 0, y: 500)).y == 123)
        #expect(grid.scrollTarget(proposed: Point(x: 0, y: 900), velocity: .zero).y == 400)
        #expect(grid.scrollTarget(proposed: Point(x: 0, y: -40), velocity: .zero).y == 0)
    }

    @Test func pagingMovesOnePagePerFlingInItsDirection() {
        var grid = ScrollTargetTests.grid()
        grid.snapping = .paging
        #expect(grid.scrollTarget(proposed: Point(x: 0, y: 650), velocity: Point(x: 0, y: 2000)).y == 300)
        #expect(grid.scrollTarget(proposed: Point(x: 0, y: 140), velocity: Point(x: 0, y: 20)).y == 0)
        #expect(grid.scrollTarget(proposed: Point(x: 0, y: 160), velocity: Point(x: 0, y: 20)).y == 300)
        _ = grid.handle(.scroll(offset: Point(x: 0, y: 300), time: 0))
        #expect(grid.scrollTarget(proposed: Point(x: 0, y: 0), velocity: Point(x: 0, y: -900)).y == 0)
        #expect(grid.scrollTarget(proposed: Point(x: 0, y: 700), velocity: Point(x: 0, y: 900)).y == 400)   // the last page ends at the content end
    }

    @Test func viewAlignedRestsOnItemEdgesNeverOnHeaders() {
        var grid = ScrollTargetTests.grid()
        grid.snapping = .viewAligned(.never)
        #expect(grid.scrollTarget(proposed: Point(x: 0, y: 10), velocity: .zero).y == 50)       // not the header at 0
        #expect(grid.scrollTarget(proposed: Point(x: 0, y: 320), velocity: .zero).y == 250)     // not the header at 350
        #expect(grid.scrollTarget(proposed: Point(x: 0, y: 370), velocity: .zero).y == 400)
    }

    @Test func viewAlignedLimitsAFlingToOnePageAlwaysOrWhenCompact() {
        var grid = ScrollTargetTests.grid()
        grid.snapping = .viewAligned(.always)
        #expect(grid.scrollTarget(proposed: Point(x: 0, y: 2000), velocity: Point(x: 0, y: 5000)).y == 250)
        grid.snapping = .viewAligned(.never)
        #expect(grid.scrollTarget(proposed: Point(x: 0, y: 2000), velocity: Point(x: 0, y: 5000)).y == 400)
        grid.snapping = .viewAligned(.automatic)
        #expect(grid.scrollTarget(proposed: Point(x: 0, y: 2000), velocity: Point(x: 0, y: 5000)).y == 250)   // 400 wide: compact
        var wide = ScrollTargetTests.grid(width: 800)
        wide.snapping = .viewAligned(.automatic)
        // 800 wide is regular: unlimited, the fling runs to the content end (8 columns: 500 high).
        #expect(wide.scrollTarget(proposed: Point(x: 0, y: 2000), velocity: Point(x: 0, y: 5000)).y == 200)
        #expect(!ViewAlignedScrollTargetBehavior(limitBehavior: .automatic).isLimited(wide.scrollTargetContext(proposed: .zero, velocity: .zero)))
    }

    /// The seed's custom behaviour: moving down rests on the max edge of the item at the
    /// target, moving up on its min edge.
    struct EdgeSnapping: ScrollTargetBehavior {
        func updateTarget(_ target: inout ScrollTarget, context: ScrollTargetContext) {
            let y = target.rect.minY
            guard let item = context.itemFrames(in: Rect(x: 0, y: y, width: context.containerSize.width, height: 1)).first else { return }
            target.rect.origin.y = context.velocity.y > 0 ? item.maxY : item.minY
        }
    }

    @Test func aCustomBehaviourPlugsInGenerically() {
        let grid = ScrollTargetTests.grid()
        #expect(grid.scrollTarget(proposed: Point(x: 0, y: 170), velocity: Point(x: 0, y: 300), behavior: EdgeSnapping()).y == 250)
        #expect(grid.scrollTarget(proposed: Point(x: 0, y: 170), velocity: Point(x: 0, y: -300), behavior: EdgeSnapping()).y == 150)
        #expect(grid.scrollTarget(proposed: Point(x: 0, y: 20), velocity: Point(x: 0, y: 300), behavior: EdgeSnapping()).y == 20) // a header: untouched
        #expect(PagingScrollTargetBehavior.paging.resolve(Point(x: 0, y: 290), context: grid.scrollTargetContext(proposed: .zero, velocity: .zero)).y == 300)
    }

    /// Issue 13: the seed's custom behaviour is offered as a snapping choice (`.edges`), the
    /// same rule as the generic EdgeSnapping above, clamped to the content.
    @Test func theEdgesChoiceRestsOnTheMaxEdgeGoingDownAndTheMinEdgeGoingUp() {
        var grid = ScrollTargetTests.grid()
        grid.snapping = .edges
        #expect(grid.scrollTarget(proposed: Point(x: 0, y: 170), velocity: Point(x: 0, y: 300)).y == 250)
        #expect(grid.scrollTarget(proposed: Point(x: 0, y: 170), velocity: Point(x: 0, y: -300)).y == 150)
        #expect(grid.scrollTarget(proposed: Point(x: 0, y: 170), velocity: .zero).y == 150)   // at rest: the nearer edge
        #expect(grid.scrollTarget(proposed: Point(x: 0, y: 230), velocity: .zero).y == 250)
        #expect(grid.scrollTarget(proposed: Point(x: 0, y: 20), velocity: Point(x: 0, y: 300)).y == 20)   // a header: untouched
        #expect(grid.scrollTarget(proposed: Point(x: 0, y: 560), velocity: Point(x: 0, y: 300)).y == 400) // 600, clamped to the end
    }
}

extension ScrollTargetTests {
    /// Issue 13: a wheel gesture or a PageDown turns exactly one page whatever its delta
    /// (100–200 pt turns never advanced; one of 500 pt skipped two pages).
    @Test func pagingByGestureTurnsExactlyOnePage() {
        let grid = ScrollTargetTests.grid()   // pages of 300, the content ends at 400
        #expect(grid.pageStep(from: 0, direction: 1) == 300)
        #expect(grid.pageStep(from: 300, direction: 1) == 400)      // the last page ends at the content end
        #expect(grid.pageStep(from: 400, direction: 1) == 400)
        #expect(grid.pageStep(from: 400, direction: -1) == 300)     // back from the end: the page before it
        #expect(grid.pageStep(from: 300, direction: -1) == 0)
        #expect(grid.pageStep(from: 0, direction: -1) == 0)
        // Mid-way (a turn still animating is passed as where it heads, but a hand-scrolled
        // offset works too): from the nearest page.
        #expect(grid.pageStep(from: 120, direction: 1) == 300)
        #expect(grid.pageStep(from: 170, direction: 1) == 400)
    }
}
