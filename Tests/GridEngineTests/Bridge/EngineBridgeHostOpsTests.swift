import Testing
@testable import GridEngine
@testable import EngineBridge

/// What the page needs besides pointers and keys (issue 3): wheel deltas as a controller
/// event (op 42, type 11), pasted data (op 60), and the seed session for the parity test
/// (op 61) — each answering exactly what the controller itself does.
@Suite struct EngineBridgeHostOpsTests {
    /// A controller over one section of 12 items (ids 1–12) in a 4-column grid of 100 pt
    /// cells, viewport 400 × 200: handle 0.
    static func bridge() -> EngineBridge {
        var bridge = EngineBridge()
        let snapshot = EngineBridgeTests.encode([(100, Array(1...12), Array(repeating: 0, count: 12))])
        let config: [Double] = [0, 4, 1, 400, 0, 0, 0, 0, 0, 0, 0, 0, 0.5]
        let created = bridge.call(.controllerCreate, snapshot + Array(repeating: 1, count: 12) + config + [400, 200, 0, 0, 0])
        #expect(created == [0, 0])
        return bridge
    }

    static func controller() -> GridController {
        let snapshot = try! Snapshot([(id: SectionID(100), items: (1...12).map { ItemID(UInt64($0)) })])
        return try! GridController(snapshot: snapshot, aspects: [Array(repeating: 1, count: 12)],
                                   layout: LayoutConfiguration(kind: .grid(columns: 4), containerWidth: 400),
                                   viewport: Size(width: 400, height: 200))
    }

    static func effects(_ effects: [GridEffect]) -> [Double] {
        var out: [Double] = [0]
        EngineBridge._encode(effects, into: &out)
        return out
    }

    @Test func aWheelEventScrollsClampedToTheContentAndAnswersTheScroll() {
        var bridge = EngineBridgeHostOpsTests.bridge()
        var grid = EngineBridgeHostOpsTests.controller()
        // 300 pt of content, a 200 pt viewport: 60 down, then 80 more (clamped to 40), then 500 up (clamped to 100).
        for (dy, t) in [(60.0, 0.1), (80, 0.2), (-500, 0.3)] {
            let answer = bridge.call(.controllerEvent, [0, 11, 0, dy, t])
            #expect(answer == EngineBridgeHostOpsTests.effects(grid.handle(.wheel(delta: Point(x: 0, y: dy), time: t))))
        }
        #expect(bridge.call(.controllerEvent, [0, 11, 0, 60, 0.4]) == [0, 1, 1, 60])
        #expect(bridge.call(.controllerRender, [0, 0, 0, 400, 200])[4] == 60)   // the content offset y
        #expect(bridge.call(.controllerEvent, [0, 11, 0, .nan, 0.5])[0] == -2)
        #expect(bridge.call(.controllerEvent, [0, 12, 0, 1, 0.5])[0] == -2)
    }

    @Test func pasteInsertsPlaceholdersAfterTheFocusedItemAndAsksForTheirData() {
        var bridge = EngineBridgeHostOpsTests.bridge()
        var grid = EngineBridgeHostOpsTests.controller()
        _ = bridge.call(.controllerFocus, [0, 3])
        grid.focus(ItemID(3))
        // An image and a text: the image is accepted, the text is not.
        let answer = bridge.call(.controllerPaste, [0, 2, 8, 16])
        let expected = grid.paste([[.image], [.text]])
        #expect(answer == EngineBridgeHostOpsTests.effects(expected))
        #expect(answer[1] == 2 && answer[2] == 2 && answer[3] == Double(CommitKind.insertPlaceholders.rawValue))
        guard case .loadDroppedData(let p, 0, [.image]) = expected.last else { Issue.record("no load"); return }
        #expect(grid.indexPath(of: p) == IndexPath(item: 3, section: 0))
        // The bridge's placeholder commits like any other.
        #expect(bridge.call(.controllerCommitInsertion, [0, Double(p.itemID.rawValue), 77, 1.5, 0])[0] == 0)
        let model = bridge.call(.controllerSnapshot, [0])
        #expect(Array(model[1...6]) == [1, 100, 13, 1, 2, 3] && model[7] == 77)
        #expect(bridge.call(.controllerPaste, [0, 1])[0] == -2)        // a count without its kinds
        #expect(bridge.call(.controllerPaste, [5, 0])[0] == -3)        // no such controller
    }

    @Test func theSeedReplayOpAnswersTheSeedSessionsDigests() {
        var bridge = EngineBridge()
        let answer = bridge.call(.seedReplay, [])
        let r = SeedReplay.run()
        #expect(answer[0] == 0)
        #expect(UInt64(answer[1]) << 32 | UInt64(answer[2]) == r.stateDigest)
        #expect(UInt64(answer[3]) << 32 | UInt64(answer[4]) == r.effectsDigest)
        #expect(UInt64(answer[5]) << 32 | UInt64(answer[6]) == r.renderDigest)
        #expect(answer[7] == Double(r.effectCount) && answer[8] == Double(r.commitCount))
        var order: [[UInt64]] = [], i = 10
        for _ in 0..<Int(answer[9]) {
            let n = Int(answer[i]); i += 1
            order.append(answer[i..<(i + n)].map { UInt64($0) }); i += n
        }
        #expect(order == r.finalOrder && i == answer.count)
    }
}
