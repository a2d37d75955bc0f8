import Testing
@testable import GridEngine

/// Issue 13: a section header the page drags scrolls the grid near the edges on the engine's
/// auto-scroll curve (`GridController.edgeScroll(pointerY:now:)`).
@Suite struct HostDragEdgeScrollTests {
    @Test func thePointerAtTheTopEdgeScrollsUpEasedInAndCappedAndStopsWhenTheDragEnds() {
        var grid = Fruit.grid(viewport: Size(width: 400, height: 200))
        _ = grid.handle(.scroll(offset: Point(x: 0, y: 100), time: 0))
        let y0 = grid.contentOffset.y
        // In the middle of the view: nothing.
        #expect(grid.edgeScroll(pointerY: 100, now: 1) == 0)
        // On the top edge: the band's overshoot is half the ramp, 250 pt/s once eased in.
        var t = 2.0, moved = 0.0, steps: [Double] = []
        _ = grid.edgeScroll(pointerY: 0, now: t)
        for _ in 0..<30 {
            t += 1.0 / 60
            let dy = grid.edgeScroll(pointerY: 0, now: t)
            steps.append(dy)
            moved += dy
        }
        #expect(steps.allSatisfy { $0 <= 0 }, "\(steps)")
        #expect(steps[0] > steps[20], "eased in: \(steps)")
        #expect(abs(steps[25] - (-250.0 / 60)) < 0.01, "250 pt/s at the edge: \(steps[25] * 60)")
        #expect(abs(grid.contentOffset.y - (y0 + moved)) < 1e-9)
        // The drag ends: no more scrolling.
        #expect(grid.edgeScroll(pointerY: nil, now: t + 0.1) == 0)
        #expect(grid.edgeScroll(pointerY: 100, now: t + 0.2) == 0)
    }

    @Test func farPastTheBottomEdgeReachesTheCapAndStopsAtTheEnd() {
        var grid = Fruit.grid(columns: 1, viewport: Size(width: 400, height: 200))   // 4,800 pt of content
        var t = 0.0
        _ = grid.edgeScroll(pointerY: 200 + 80, now: t)
        var last = 0.0
        for _ in 0..<20 { t += 1.0 / 60; last = grid.edgeScroll(pointerY: 280, now: t) }
        #expect(abs(last - 1000.0 / 60) < 0.01, "the cap: \(last * 60)")
        for _ in 0..<600 { t += 1.0 / 60; _ = grid.edgeScroll(pointerY: 280, now: t) }
        #expect(grid.contentOffset.y == max(0, grid.contentSize.height - 200))
    }
}
