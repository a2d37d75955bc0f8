import Testing
@testable import GridEngine

/// Seed 002's edge auto-scroll (F11): speed proportional to the overshoot, every frame,
/// reordering while it scrolls, no restart on small speed changes.
@Suite struct AutoScrollTests {
    /// 48 numbered items, 12 rows of 100 pt in a 400 × 400 viewport.
    static func tall() -> GridController {
        let ids = (1...48).map { ItemID(UInt64($0)) }
        return try! GridController(snapshot: Snapshot([(id: SectionID(1), items: ids)]), aspects: [ids.map { _ in 1 }],
                                   layout: LayoutConfiguration(kind: .grid(columns: 4), containerWidth: 400),
                                   viewport: Size(width: 400, height: 400), interaction: Fruit.immediate)
    }

    @Test func dragPastTheBottomEdgeByFortyScrollsEachTickEasingInAndKeepsReordering() {
        var hand = Hand(AutoScrollTests.tall())
        let item = ItemID(6)
        hand.down(hand.centre(item))          // (150, 150): grabbed at the cell's centre
        hand.tick(0.5)
        hand.drag(to: Point(x: 150, y: 390))  // the cell spans 340...440: 40 past the bottom
        // The capped quadratic ease-in: 1,000 × (40 / 160)² = 62.5 pt/s.
        #expect(hand.grid._autoScroller.velocity == 62.5)
        let before = hand.effects.count
        for _ in 0..<60 { hand.tick(1.0 / 60) }
        let scrolls = hand.effects[before...].compactMap { e -> Double? in if case .scrollBy(let dy) = e { return dy } else { return nil } }
        #expect(scrolls.count == 60)
        // A new motion eases in over 0.25 s: each frame a little faster, then steady at 62.5 / 60.
        #expect(scrolls[0] < scrolls[5] && scrolls[5] < scrolls[10])
        #expect(scrolls[20...].allSatisfy { ($0 - 62.5 / 60).magnitude < 1e-9 })
        #expect(hand.grid.contentOffset.y > 50 && hand.grid.contentOffset.y < 62.5)
        // The pointer rests at y 390 of the view; the content moved under it: reordering goes on.
        let ip = hand.grid.displayedSnapshot.indexPath(of: item)!
        #expect(ip.item / 4 == 4)

        // Twice the overshoot, four times the speed (quadratic), at once (no new ease-in).
        hand.move(Point(x: 150, y: 430))
        hand.tick(1.0 / 60)                   // covers the move's frame and this one
        let next = hand.effects.count
        hand.tick(1.0 / 60)
        let dy = hand.effects[next...].compactMap { e -> Double? in if case .scrollBy(let dy) = e { return dy } else { return nil } }
        #expect(dy.count == 1 && (dy[0] - 250.0 / 60).magnitude < 1e-9)
    }

    /// Issue 13: ~3,000 pt/s a little past the edge flew past the aim. Far past it, the speed
    /// stops at the cap.
    @Test func theSpeedIsCappedFarPastTheEdge() {
        let c = AutoScrollConfiguration()
        #expect(c.speed(overshoot: 160) == 1000 && c.speed(overshoot: 900) == 1000 && c.speed(overshoot: -400) == -1000)
        #expect(c.speed(overshoot: 20) == 1000.0 / 64 && c.speed(overshoot: 0) == 0)
        var s = AutoScroller()
        s.update(dragFrame: Rect(x: 0, y: 0, width: 10, height: 2000), viewport: Size(width: 100, height: 500), now: 0)
        var moved = 0.0
        var t = 0.0
        for _ in 0..<120 { t += 1.0 / 60; moved += s.step(now: t) }   // two seconds
        #expect(moved <= 2000 && moved > 1800)                          // ≤ 1,000 pt/s, eased in
    }

    /// Issue 13: the trash in the bottom edge zone; hovering it holds the grid still, leaving it
    /// (still in the zone) scrolls again.
    @Test func hoveringAnOutsideTargetInTheEdgeZoneDoesNotScroll() {
        var grid = AutoScrollTests.tall()
        grid.outsideTargets = [OutsideTarget(id: 1, frame: Rect(x: 300, y: 340, width: 90, height: 60))]
        var hand = Hand(grid)
        hand.down(hand.centre(ItemID(6)))
        hand.tick(0.5)
        hand.drag(to: Point(x: 340, y: 390))  // over the trash, the preview 40 past the bottom
        #expect(!hand.grid._autoScroller.isActive)
        let count = hand.effects.count
        for _ in 0..<10 { hand.tick(1.0 / 60) }
        #expect(!hand.effects[count...].contains { if case .scrollBy = $0 { return true } else { return false } })
        #expect(hand.grid.contentOffset.y == 0)
        hand.move(Point(x: 150, y: 390))       // beside it, same depth in the zone: scrolls
        hand.tick(1.0 / 60)
        #expect(hand.grid._autoScroller.isActive)
    }

    @Test func smallChangesOfTheOvershootNeitherRestartNorChangeTheSpeed() {
        var hand = Hand(AutoScrollTests.tall())
        hand.down(hand.centre(ItemID(6)))
        hand.tick(0.5)
        hand.drag(to: Point(x: 150, y: 390))
        let restarts = hand.grid._autoScroller.restarts
        for dy in [3.0, -4, 6, 2, -7] {
            hand.move(Point(x: 150, y: 390 + dy))
            hand.tick(1.0 / 60)
            #expect(hand.grid._autoScroller.velocity == 62.5)
        }
        #expect(hand.grid._autoScroller.restarts == restarts)
        hand.move(Point(x: 150, y: 300))            // back inside: stops
        #expect(!hand.grid._autoScroller.isActive)
        let count = hand.effects.count
        hand.tick(1.0 / 60)
        #expect(!hand.effects[count...].contains { if case .scrollBy = $0 { return true } else { return false } })
    }

    @Test func scrollingUpStopsAtTheTopAndAStalledFrameDoesNotJump() {
        var grid = AutoScrollTests.tall()
        _ = grid.handle(.scroll(offset: Point(x: 0, y: 100), time: 0))
        var hand = Hand(grid)
        hand.down(hand.centre(ItemID(10)))     // row 2: y 200...300 in content, 100...200 in the view
        hand.tick(0.5)
        hand.drag(to: Point(x: 150, y: 30))    // the cell spans -20...80: 20 past the top
        #expect(hand.grid._autoScroller.velocity == -1000.0 / 64)   // 20 past: a creep
        hand.tick(1.0)                         // a stalled page: at most 0.1 s of motion
        #expect(hand.grid.contentOffset.y >= 100 - 1.5625 - 1e-9 && hand.grid.contentOffset.y < 100)   // ≤ 15.6 × 0.1
        hand.move(Point(x: 150, y: -120))      // far past the top: the cap
        for _ in 0..<60 { hand.tick(1.0 / 60) }
        #expect(hand.grid.contentOffset.y == 0)
    }

    @Test func theScrollerOnItsOwn() {
        var s = AutoScroller(configuration: AutoScrollConfiguration(edgeInset: 20))
        let viewport = Size(width: 100, height: 500)
        #expect(s.overshoot(of: Rect(x: 0, y: 100, width: 10, height: 10), viewport: viewport) == 0)
        #expect(s.overshoot(of: Rect(x: 0, y: 5, width: 10, height: 10), viewport: viewport) == -15)
        #expect(s.overshoot(of: Rect(x: 0, y: 480, width: 10, height: 10), viewport: viewport) == 10)
        s.update(dragFrame: Rect(x: 0, y: 480, width: 10, height: 10), viewport: viewport, now: 1)
        #expect(s.step(now: 1.5) == 1000.0 * (10.0 / 160) * (10.0 / 160) * 0.1)   // capped at maxFrameInterval, eased in
        s.update(dragFrame: Rect(x: 0, y: 5, width: 10, height: 10), viewport: viewport, now: 2)
        #expect(s.velocity == -1000.0 * (15.0 / 160) * (15.0 / 160) && s.restarts == 2)
    }
}

extension AutoScrollTests {
    @Test func externalDataNearTheBottomEdgeScrollsTheGridToo() {
        var hand = Hand(AutoScrollTests.tall())
        hand.send(.externalDragEnter(items: [[.url, .image]], location: Point(x: 200, y: 200), time: 0))
        hand.send(.externalDragMove(location: Point(x: 200, y: 390), modifiers: [], time: 0.1))   // 20 into the 30 pt band
        hand.time = 0.1
        hand.tick(0.1)
        #expect(hand.grid._autoScroller.velocity == 1000.0 * (20.0 / 160) * (20.0 / 160))
        #expect(hand.effects.contains { if case .scrollBy(let dy) = $0 { return dy > 0 } else { return false } })
        hand.send(.externalDragMove(location: Point(x: 200, y: 200), modifiers: [], time: 0.3))
        #expect(!hand.grid._autoScroller.isActive)
    }
}

extension AutoScrollTests {
    @Test func theWheelScrollsWithinTheContentAndADragFollowsIt() {
        var hand = Hand(AutoScrollTests.tall())
        hand.send(.wheel(delta: Point(x: 0, y: -50), time: 0))
        #expect(hand.grid.contentOffset.y == 0 && hand.effects.isEmpty)
        hand.send(.wheel(delta: Point(x: 0, y: 120), time: 0.1))
        #expect(hand.effects == [.scrollBy(dy: 120)])
        hand.send(.wheel(delta: Point(x: 0, y: 5000), time: 0.2))
        #expect(hand.grid.contentOffset.y == 800)                 // 1200 of content in a 400 viewport
        // While dragging, the wheel moves the content under the pointer: the target follows.
        hand.send(.scroll(offset: .zero, time: 0.3))
        hand.time = 0.3
        hand.down(hand.centre(ItemID(1)))
        hand.tick(0.5)
        hand.move(Point(x: 50, y: 150))                          // over item 5
        #expect(hand.grid.displayedSnapshot.indexPath(of: ItemID(1))?.item == 4)
        hand.time += 0.1
        hand.send(.wheel(delta: Point(x: 0, y: 100), time: hand.time))   // now over item 9
        #expect(hand.grid.displayedSnapshot.indexPath(of: ItemID(1))?.item == 8)
    }
}
