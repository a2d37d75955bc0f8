import Testing
@testable import GridEngine

/// The diff keeps a longest increasing subsequence of each section in place and moves the rest,
/// so the moves it reports are the fewest only if that subsequence is really a longest one.
/// Checked against references written plainly here: an O(k²) table for small inputs, patience
/// sorting with an ordinary binary search for large ones.
@Suite struct LongestIncreasingSubsequenceTests {
    /// Length of a longest strictly increasing subsequence, O(k²).
    static func quadraticLength(_ keys: [Int32]) -> Int {
        var best = [Int](repeating: 1, count: keys.count)
        for i in keys.indices {
            for j in 0..<i where keys[j] < keys[i] { best[i] = max(best[i], best[j] + 1) }
        }
        return best.max() ?? 0
    }

    /// The same length by patience sorting with a plain binary search, O(k log k).
    static func patienceLength(_ keys: [Int32]) -> Int {
        var tops: [Int32] = []
        for key in keys {
            var lo = 0, hi = tops.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if tops[mid] < key { lo = mid + 1 } else { hi = mid }
            }
            if lo == tops.count { tops.append(key) } else { tops[lo] = key }
        }
        return tops.count
    }

    /// Runs `mark` and checks that what it keeps is strictly increasing; returns how many it kept.
    static func marked(_ keys: [Int32], reusing lis: inout _LongestIncreasingSubsequence) -> Int {
        var keep = [Bool](repeating: true, count: keys.count)
        keys.withUnsafeBufferPointer { k in
            keep.withUnsafeMutableBufferPointer { lis.mark(k, count: keys.count, keep: $0) }
        }
        var last: Int32 = -1, kept = 0
        for i in keys.indices where keep[i] {
            #expect(keys[i] > last, "kept keys are not increasing at \(i)")
            last = keys[i]
            kept += 1
        }
        return kept
    }

    @Test func smallPermutationsKeepALongestRun() {
        var rng = SeededGenerator(seed: 41)
        var lis = _LongestIncreasingSubsequence()  // reused, as the differ reuses it across sections
        for _ in 0..<400 {
            let k = Int.random(in: 1...300, using: &rng)
            var keys = (0..<k).map { Int32($0) }
            keys.shuffle(using: &rng)
            // Some nearly sorted, some sorted, some reversed: the pile counts vary from 1 to k.
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: keys.sort()
            case 1: keys.sort(by: >)
            case 2:
                keys.sort()
                for _ in 0..<Int.random(in: 1...5, using: &rng) {
                    let i = Int.random(in: 0..<k, using: &rng), j = Int.random(in: 0..<k, using: &rng)
                    keys.swapAt(i, j)
                }
            default: break
            }
            #expect(Self.marked(keys, reusing: &lis) == Self.quadraticLength(keys), "keys \(keys)")
        }
    }

    @Test func largeShuffleAndNearlySortedRunsKeepALongestRun() {
        var rng = SeededGenerator(seed: 42)
        var lis = _LongestIncreasingSubsequence()
        // A shuffle of 100k (about 630 piles) and one of 2^16 + 1 keys.
        for k in [100_000, 65_537] {
            var keys = (0..<k).map { Int32($0) }
            keys.shuffle(using: &rng)
            #expect(Self.marked(keys, reusing: &lis) == Self.patienceLength(keys))
        }
        // 100k keys in order with 300 moved to random places: ~99,700 piles, so the searches
        // for the moved keys run past the 16 written-out steps into the loop.
        var keys = (0..<100_000).map { Int32($0) }
        for _ in 0..<300 {
            let key = keys.remove(at: Int.random(in: 0..<keys.count, using: &rng))
            keys.insert(key, at: Int.random(in: 0...keys.count, using: &rng))
        }
        let expected = Self.patienceLength(keys)
        #expect(expected > 65_536)
        #expect(Self.marked(keys, reusing: &lis) == expected)
    }

    @Test func theSearchFindsTheLeftmostTopAtLeastTheKey() {
        // Against a linear scan (a plain binary search at the large counts), at pile counts
        // around the 16 written-out steps (2^16) and past them, with keys below, between, equal
        // to and above the tops.
        var rng = SeededGenerator(seed: 44)
        for count in Array(1...70) + [65_535, 65_536, 65_537, 100_000, 131_072, 131_073] {
            var tops: [Int32] = []
            var value: Int32 = 10
            for _ in 0..<count { tops.append(value); value += Int32.random(in: 2...5, using: &rng) }
            let probes = count < 100 ? Array(Int32(0)...(value + 1)) : (0..<2_000).map { _ in Int32.random(in: 0...(value + 1), using: &rng) }
            tops.withUnsafeBufferPointer { t in
                var wrong = 0
                for key in probes {
                    var expected = count
                    if count < 100 {
                        expected = tops.firstIndex { $0 >= key } ?? count
                    } else {
                        var lo = 0, hi = count
                        while lo < hi {
                            let mid = (lo + hi) / 2
                            if tops[mid] < key { lo = mid + 1 } else { hi = mid }
                        }
                        expected = lo
                    }
                    if _LongestIncreasingSubsequence._leftmostAtLeast(key, in: t, count: count) != expected { wrong += 1 }
                }
                #expect(wrong == 0, "\(wrong) wrong answers at \(count) tops")
            }
        }
    }

    @Test func oneSectionShuffleMovesAllButALongestRun() throws {
        // Through the public diff: a shuffled section of 20k items reports exactly
        // count − (longest run kept in order) moves, and replays to the target.
        var rng = SeededGenerator(seed: 43)
        let ids = (1...20_000).map { UInt64($0) }
        var shuffled = ids
        shuffled.shuffle(using: &rng)
        let source = try Snapshot([(id: SectionID(1), items: ids.map { ItemID($0) })])
        let target = try Snapshot([(id: SectionID(1), items: shuffled.map { ItemID($0) })])
        let changes = try StagedChangeset(from: source, to: target)
        // Source positions in target order: the run kept in place is a longest increasing one.
        let keys = shuffled.map { Int32($0 - 1) }
        #expect(changes.moveCount == ids.count - Self.patienceLength(keys))
        #expect(try StagedChangesetTests.replay(changes, on: source) == target)
    }
}
