import Testing
import GridEngine
@testable import EngineBridge

@Suite struct EngineBridgeTests {
    /// Decodes the bridge's diff answer back into batch updates (the layout in EngineBridge+Diff.swift).
    static func decodeStages(_ a: [Double]) -> [BatchUpdate] {
        var i = 1
        func next() -> Int { defer { i += 1 }; return Int(a[i]) }
        func ip() -> IndexPath { let s = next(); return IndexPath(item: next(), section: s) }
        var stages: [BatchUpdate] = []
        for _ in 0..<next() {
            var u = BatchUpdate()
            for _ in 0..<next() { u.sectionDeletes.append(next()) }
            for _ in 0..<next() {
                let index = next(), id = SectionID(UInt64(next())), n = next()
                let items = (0..<n).map { _ in ItemID(UInt64(next())) }
                let versions = (0..<n).map { _ in UInt32(next()) }
                u.sectionInserts.append(SectionInsertion(index: index, id: id, items: items, versions: versions))
            }
            for _ in 0..<next() { let f = next(); u.sectionMoves.append(SectionMove(from: f, to: next())) }
            for _ in 0..<next() { u.itemDeletes.append(ip()) }
            for _ in 0..<next() { let at = ip(); let id = ItemID(UInt64(next())); u.itemInserts.append(ItemInsertion(at: at, id: id, version: UInt32(next()))) }
            for _ in 0..<next() { let f = ip(); u.itemMoves.append(ItemMove(from: f, to: ip())) }
            for _ in 0..<next() { let at = ip(); u.itemReloads.append(ItemReload(at: at, version: UInt32(next()))) }
            for _ in 0..<next() { u.itemCountsAfter.append(next()) }
            stages.append(u)
        }
        #expect(i == a.count, "the whole answer is consumed")
        return stages
    }

    static func encode(_ s: [(UInt64, [UInt64], [UInt32])]) -> [Double] {
        var out: [Double] = [Double(s.count)]
        for (id, items, versions) in s {
            out.append(Double(id)); out.append(Double(items.count))
            out += items.map { Double($0) }; out += versions.map { Double($0) }
        }
        return out
    }

    @Test func diffThroughTheBridgeIsTheEnginesStagedChangeset() throws {
        var rng = SeededGenerator(seed: 7)
        for round in 0..<50 {
            var next: UInt64 = 1
            let source: [(UInt64, [UInt64], [UInt32])] = (0..<Int.random(in: 1...5, using: &rng)).map { s in
                let n = Int.random(in: 0...40, using: &rng)
                defer { next += UInt64(n) }
                return (UInt64(100 + s), (0..<UInt64(n)).map { next + $0 }, Array(repeating: 0, count: n))
            }
            var all = source.flatMap { $0.1 }.filter { _ in Double.random(in: 0..<1, using: &rng) > 0.1 }
            all.shuffle(using: &rng)
            all += (0..<UInt64(5)).map { 10_000 + UInt64(round) * 10 + $0 }
            var target: [(UInt64, [UInt64], [UInt32])] = []
            var k = 0
            for (s, section) in source.enumerated().reversed() {
                let n = s == 0 ? all.count - k : min(all.count - k, section.1.count)
                target.append((section.0, Array(all[k..<(k + n)]), (0..<n).map { _ in UInt32.random(in: 0...1, using: &rng) }))
                k += n
            }
            var bridge = EngineBridge()
            let answer = bridge.call(.diff, Self.encode(source) + Self.encode(target))
            #expect(answer[0] == 0)
            let snap = { (s: [(UInt64, [UInt64], [UInt32])]) in
                try Snapshot(s.map { (id: SectionID($0.0), items: $0.1.map { ItemID($0) }, versions: $0.2) })
            }
            let expected = try StagedChangeset(from: snap(source), to: snap(target))
            #expect(Self.decodeStages(answer) == expected.stages)
        }
    }

    @Test func duplicateIDsAreRefusedWithTheID() {
        var bridge = EngineBridge()
        let dup = Self.encode([(1, [5, 6, 5], [0, 0, 0])])
        #expect(bridge.call(.diff, dup + dup) == [-6, 1, 5])
    }

    /// A snapshot's ids and versions are read a section's column at a time (`_BridgeReader.ids`,
    /// `versions`): each value is checked as one read alone is — an id not an integer in
    /// 0..<2^53, a version not one in 0..<2^32, a count past the buffer's end — and any one of
    /// them, first, middle or last of its column, refuses the whole call as malformed.
    @Test func aBadIdOrVersionAnywhereInAColumnIsRefused() {
        let items: [UInt64] = [10, 11, 12, 13], versions: [UInt32] = [0, 1, 2, 4_294_967_295]
        let good = Self.encode([(1, items, versions), (2, [20], [0])])
        var bridge = EngineBridge()
        #expect(bridge.call(.diff, good + good) == [0, 0])
        // Where the first section's values are: [2, 1, 4, ids ×4, versions ×4, …].
        for (offset, bad) in [(3, Double.nan), (4, -1), (5, 2.5), (6, 9_007_199_254_740_992), (3, .infinity),
                              (7, 4_294_967_296), (8, 1.5), (10, -0.5), (10, .nan)] as [(Int, Double)] {
            var broken = good
            broken[offset] = bad
            #expect(bridge.call(.diff, broken + good)[0] == -2, "value \(bad) at \(offset)")
            #expect(bridge.call(.diff, good + broken)[0] == -2, "value \(bad) at \(offset), target")
        }
        var short = good
        short[2] = 5 // a count of five ids and five versions where four and four are
        #expect(bridge.call(.diff, Array(short.prefix(12)))[0] == -2)
        #expect(bridge.call(.diff, good + good) == [0, 0])
    }

    @Test func framesAnswerEveryItemHeaderAndGapCell() {
        var bridge = EngineBridge()
        // grid of 2 columns, 200 wide, header 20, no insets or spacing, gap cells on
        let h = bridge.call(.layoutCreate, [0, 2, 1, 200, 20, 0, 0, 0, 0, 0, 0, 1, 0.5])
        #expect(h == [0, 0])
        #expect(bridge.call(.layoutPrepare, [0, 1, 3, 1, 1, 1]) == [0, 200, 220])
        let frames = bridge.call(.layoutFrames, [0])
        #expect(Array(frames[0..<4]) == [0, 200, 220, 1])
        #expect(Array(frames[4..<8]) == [0, 0, 200, 20])        // header
        #expect(Array(frames[8..<12]) == [100, 120, 100, 100])  // gap cell after the third item
        #expect(Array(frames[12...]) == [0, 20, 100, 100, 100, 20, 100, 100, 0, 120, 100, 100])
        #expect(bridge.call(.layoutHitTest, [0, 150, 50]) == [0, 0, 1])
        #expect(bridge.call(.layoutDropDestination, [0, 150, 170]) == [0, 1, 0, 3])
    }

    @Test func hostileInputNeverTraps() {
        var rng = SeededGenerator(seed: 99)
        var bridge = EngineBridge()
        _ = bridge.call(.layoutCreate, [2, 3, 0, 390, 0, 0, 0, 0, 0, 4, 4, 0, 0.5])
        _ = bridge.call(.layoutPrepare, [0, 2, 3, 2, 1, 1, 1, 1, 1])
        let specials: [Double] = [.nan, .infinity, -.infinity, -1, 0, 1, 2, 3, 0.5, 1e300, 4_294_967_296, 9_007_199_254_740_993]
        var refused = 0
        for _ in 0..<20_000 {
            let op = BridgeOp(rawValue: Int32([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 20].randomElement(using: &rng)!))!
            let n = Int.random(in: 0...12, using: &rng)
            var input = (0..<n).map { _ in specials.randomElement(using: &rng)! }
            if op != .layoutCreate, !input.isEmpty, Bool.random(using: &rng) { input[0] = 0 } // a live handle
            let answer = bridge.call(op, input)
            if answer[0] < 0 { refused += 1 }
        }
        #expect(refused > 10_000, "most random buffers are malformed and must be refused")
        // The layout behind handle 0 is still intact and usable.
        #expect(bridge.call(.layoutHitTest, [0, 1, 1])[0] == 0)
    }
}
