import Testing
@testable import GridEngine
import EngineBridge

/// The page's exact bridge calls for the Alt-drag of Apple onto Dragon that failed in
/// Chromium (Tests/browser/test_copy.py), recorded from the page (ops 57, 44, 52, 42, 54,
/// 43 up to the pointer-up; the titles, op 55, left out): a controller (handle 1) over the
/// sample gallery, a waterfall of 4 columns, two sections, insert mode, fast cadence. The
/// mouse goes down on Apple, the first move carries no modifier, Alt (4) comes with the
/// move that lifts; the pointer ends on Dragon's centre and rests there.
@Suite struct AltCopyReplayTests {
    static let create: [Double] = [
        2, 1, 12, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 4, 13, 14, 15, 16,
        0, 0, 0, 0, 1, 2, 0.6666666666666666, 1.5, 1.4285714285714286, 1, 0.6, 1.5714285714285714, 2.6666666666666665,
        0.6666666666666666, 0.8, 1, 2.142857142857143, 0.45454545454545453, 1.3333333333333333, 1,
        2, 4, 0, 1200, 44, 8, 8, 8, 8, 6, 6, 0, 0.5, 1200, 719, 0, 1, 0]

    /// [op, inputs…] in call order, after the page destroyed its previous controller (0)
    /// and created this one (1).
    static let calls: [[Double]] = [
        [57, 0], [44, 1, 0, 0, 1200, 1919], [52, 1, 1], [42, 1, 1, 1, 153.75, 197.75, 1.3205999999996274, 0, 0],
        [44, 1, 0, 0, 1200, 1919], [43, 1, 1.332300000000745], [44, 1, 0, 0, 1200, 1919], [43, 1, 1.340699999999255],
        [44, 1, 0, 0, 1200, 1919], [43, 1, 1.3574000000003725], [44, 1, 0, 0, 1200, 1919],
        [42, 1, 2, 1, 153, 197.625, 1.3205999999996274, 0, 0], [43, 1, 1.3813000000007452],
        [44, 1, 0, 0, 1200, 1919], [43, 1, 1.3885], [44, 1, 0, 0, 1200, 1919],
        [42, 1, 2, 1, 178, 206.625, 1.393699999999255, 0, 4], [54, 1, 1, 1, 1118, 636.625, 64, 64, 3, 0, 1],
        [43, 1, 1.4050999999996274], [44, 1, 0, 0, 1200, 1919],
        [42, 1, 2, 1, 203, 215.625, 1.4178000000007451, 0, 4], [43, 1, 1.422], [44, 1, 0, 0, 1200, 1919],
        [43, 1, 1.439], [44, 1, 0, 0, 1200, 1919], [42, 1, 2, 1, 228, 224.625, 1.446699999999255, 0, 4],
        [43, 1, 1.4555999999996274], [44, 1, 0, 0, 1200, 1919],
        [42, 1, 2, 1, 252, 233.625, 1.4669000000003725, 0, 4], [43, 1, 1.472], [44, 1, 0, 0, 1200, 1919],
        [42, 1, 2, 1, 277, 242.625, 1.486199999999255, 0, 4], [43, 1, 1.4885999999996276], [44, 1, 0, 0, 1200, 1919],
        [43, 1, 1.5055999999996275], [44, 1, 0, 0, 1200, 1919], [43, 1, 1.5225999999996274],
        [44, 1, 0, 0, 1200, 1919], [43, 1, 1.539199999999255], [44, 1, 0, 0, 1200, 1919],
        [43, 1, 1.5564000000003726], [44, 1, 0, 0, 1200, 1919], [42, 1, 2, 1, 352, 269.625, 1.558300000000745, 0, 4],
        [43, 1, 1.5721999999992549], [44, 1, 0, 0, 1200, 1919],
        [42, 1, 2, 1, 376, 278.625, 1.5865999999996274, 0, 4], [43, 1, 1.588699999999255], [44, 1, 0, 0, 1200, 1919],
        [43, 1, 1.6055], [44, 1, 0, 0, 1200, 1919], [42, 1, 2, 1, 401, 287.625, 1.619199999999255, 0, 4],
        [43, 1, 1.6239000000003725], [44, 1, 0, 0, 1200, 1919], [43, 1, 1.640800000000745],
        [44, 1, 0, 0, 1200, 1919], [42, 1, 2, 1, 426, 296.625, 1.6473000000007452, 0, 4],
        [43, 1, 1.6565999999996275], [44, 1, 0, 0, 1200, 1919],
        [42, 1, 2, 1, 451, 305.625, 1.6691999999992548, 0, 4], [43, 1, 1.6720999999996276],
        [44, 1, 0, 0, 1200, 1919], [43, 1, 1.6885999999996275], [44, 1, 0, 0, 1200, 1919],
        [43, 1, 1.7054000000003726], [44, 1, 0, 0, 1200, 1919], [43, 1, 1.7220999999996274],
        [44, 1, 0, 0, 1200, 1919], [43, 1, 1.738699999999255], [44, 1, 0, 0, 1200, 1919],
        [43, 1, 1.7554000000003724], [44, 1, 0, 0, 1200, 1919], [43, 1, 1.772], [44, 1, 0, 0, 1200, 1919],
        [43, 1, 1.788699999999255], [44, 1, 0, 0, 1200, 1919], [43, 1, 1.805300000000745], [44, 1, 0, 0, 1200, 1919],
        [43, 1, 1.823300000000745], [44, 1, 0, 0, 1200, 1919], [43, 1, 1.839800000000745], [44, 1, 0, 0, 1200, 1919],
        [43, 1, 1.856199999999255], [44, 1, 0, 0, 1200, 1919], [43, 1, 1.872300000000745], [44, 1, 0, 0, 1200, 1919],
        [43, 1, 1.8885], [44, 1, 0, 0, 1200, 1919], [43, 1, 1.9065999999996275], [44, 1, 0, 0, 1200, 1919],
        [43, 1, 1.922300000000745], [44, 1, 0, 0, 1200, 1919], [43, 1, 1.938800000000745], [44, 1, 0, 0, 1200, 1919],
        [43, 1, 1.955300000000745], [44, 1, 0, 0, 1200, 1919], [43, 1, 1.9720999999996274],
        [44, 1, 0, 0, 1200, 1919], [43, 1, 1.991199999999255], [44, 1, 0, 0, 1200, 1919],
        [42, 1, 2, 1, 451, 305.625, 1.9925999999996276, 0, 4], [42, 1, 3, 1, 451, 305.625, 1.9934000000003724, 0, 4]
    ]

    struct Outcome {
        /// The last render before the pointer-up: per cell kind, item, section, item index, x, y, w, h, flags.
        var cells: [[Double]]
        /// The pointer-up's commit: kind, then per inserted placement: id, section id, index.
        var commit: [Double]
    }

    /// Replays the calls; `modifiers` replaces every pointer event's modifiers when given;
    /// `restEvery` adds a pointer move at the resting position every so many seconds (the
    /// page repeats it like HTML5 dragover; the recording collapsed those).
    static func replay(modifiers: Double? = nil, restEvery: Double? = nil) -> Outcome {
        var bridge = EngineBridge()
        #expect(bridge.call(.controllerCreate, create) == [0, 0])          // the page's previous controller
        var outcome = Outcome(cells: [], commit: [])
        var last: [Double] = []                                             // the last pointer event
        for var call in calls {
            let op = Int32(call[0])
            if op == 42, call[2] == 1 || call[2] == 2 || call[2] == 3, let m = modifiers { call[8] = m }
            if op == 43, let every = restEvery, last.count == 9, last[2] == 2, call[2] - last[6] >= every {
                last[6] = call[2]                                            // the same place, now
                _ = bridge.call(.controllerEvent, Array(last[1...]))
            }
            let answer = bridge.call(BridgeOp(rawValue: op)!, Array(call[1...]))
            #expect(answer.first == 0, "call \(call) failed: \(answer.prefix(2))")
            if op == 57 { #expect(bridge.call(.controllerCreate, create) == [0, 1]) }
            if op == 42 { last = call }
            if op == 44 { outcome.cells = cells(answer) }
            if op == 42 && call[2] == 3 { outcome.commit = commit(answer) }
        }
        return outcome
    }

    static func cells(_ a: [Double]) -> [[Double]] {
        let n = Int(a[8])
        return (0..<n).map { k in let c = Array(a[(9 + 12 * k)..<(9 + 12 * k + 12)]); return Array(c[0..<8]) + [c[11]] }
    }

    static func commit(_ a: [Double]) -> [Double] {
        var i = 1
        func next() -> Double { defer { i += 1 }; return a[i] }
        for _ in 0..<Int(next()) {
            let code = Int(next())
            switch code {
            case 1: _ = next()
            case 4, 5: for _ in 0..<Int(next()) { _ = next() }
            case 6: for _ in 0..<6 { _ = next() }
            case 7: _ = next(); for _ in 0..<Int(next()) { _ = next() }
            case 2:
                var out = [next()]
                for _ in 0..<Int(next()) { for _ in 0..<5 { _ = next() } }                 // removed
                for _ in 0..<Int(next()) { let p = (0..<5).map { _ in next() }; out += p[0..<3] }   // inserted
                return out
            default: return []
            }
        }
        return []
    }

    /// Cells of section 0 in order, by item id (a copy's slot: -1).
    static func order(_ cells: [[Double]]) -> [Int] {
        cells.filter { $0[0] == 0 && $0[2] == 0 }.sorted { $0[3] < $1[3] }.map { $0[1] >= 0x1_0000_0000_0000 ? -1 : Int($0[1]) }
    }

    @Test(arguments: [nil, 0.05] as [Double?])
    func theCopysSlotFollowsThePointerOntoDragonAndTheDropCommitsItThere(restEvery: Double?) {
        let copy = Self.replay(restEvery: restEvery)
        // Apple (1) stays first; the copy's slot took Dragon's (5) place, under the pointer.
        #expect(Self.order(copy.cells) == [1, 2, 3, 4, -1, 5, 6, 7, 8, 9, 10, 11, 12])
        let slot = copy.cells.first { $0[0] == 0 && $0[1] >= 0x1_0000_0000_0000 }!
        #expect(Int(slot[8]) & 2 != 0)                                                     // lifted source
        #expect(slot[4] <= 451 && 451 < slot[4] + slot[6] && slot[5] <= 305.625 && 305.625 < slot[5] + slot[7])
        #expect(copy.commit.count == 4 && copy.commit[0] == 2 && copy.commit[1] == slot[1]
                && copy.commit[2] == 1 && copy.commit[3] == 4)                               // the copy, in section 1 at 4
        // The same drag without Alt moves Apple to the same index.
        let move = Self.replay(modifiers: 0, restEvery: restEvery)
        #expect(move.commit == [0, 1, 1, 4])
    }
}
