/// Marks a longest strictly increasing subsequence of `keys` (distinct values) in `keep`.
///
/// Why: items (or sections) in the subsequence keep their relative order between the two
/// snapshots, so they stay put; only the others need a move. This makes k random moves
/// report about k moves instead of everything between a moved item's two positions.
/// Patience sorting with predecessor links, O(k log k); an already increasing run costs O(k)
/// because a key larger than the last pile's top is appended without a search.
///
/// The search runs over a copy of the piles' top keys (`_topKeys`: contiguous, about 2√k
/// piles for random keys) rather than through `keys[_tops[mid]]`, and with conditional moves
/// instead of branches (`_leftmostAtLeast`): a shuffled section of 100k items spent ~3 ms of
/// its diff in mispredicted branches of this search (BENCHMARKS.md, "Diff", session 14).
struct _LongestIncreasingSubsequence {
    /// Index into `keys` of the top of each pile (the first `piles` entries are in use).
    var _tops: [Int32] = []
    /// `keys[_tops[p]]` for each pile `p`: increasing.
    var _topKeys: [Int32] = []
    /// For each position, the position before it in the best subsequence ending there.
    var _previous: [Int32] = []

    /// Fills `keep[i]` (for `i` in `0..<count`) with whether `keys[i]` is in the subsequence.
    mutating func mark(
        _ keys: UnsafeBufferPointer<Int32>, count: Int, keep: UnsafeMutableBufferPointer<Bool>
    ) {
        if count == 0 { return }
        if _previous.count < count {
            _previous = [Int32](repeating: -1, count: count)
            _tops = [Int32](repeating: 0, count: count)
            _topKeys = [Int32](repeating: 0, count: count)
        }
        _previous.withUnsafeMutableBufferPointer { previous in
            _tops.withUnsafeMutableBufferPointer { tops in
                _topKeys.withUnsafeMutableBufferPointer { topKeys in
                    var piles = 0
                    for i in 0..<count {
                        let key = keys[i]
                        if piles == 0 || topKeys[piles &- 1] < key {
                            previous[i] = piles == 0 ? -1 : tops[piles &- 1]
                            tops[piles] = Int32(truncatingIfNeeded: i)
                            topKeys[piles] = key
                            piles &+= 1
                            continue
                        }
                        let lo = Self._leftmostAtLeast(key, in: UnsafeBufferPointer(topKeys), count: piles)
                        previous[i] = lo == 0 ? -1 : tops[lo &- 1]
                        tops[lo] = Int32(truncatingIfNeeded: i)
                        topKeys[lo] = key
                    }
                    for i in 0..<count { keep[i] = false }
                    var i = Int(tops[piles &- 1])
                    while i >= 0 {
                        keep[i] = true
                        i = Int(previous[i])
                    }
                }
            }
        }
    }

    /// The leftmost of `tops[0..<count]` (increasing, count ≥ 1) that is ≥ `key`, or `count`.
    /// `base` stays the last index known to be < key, or 0; the steps depend on `count` only.
    /// They are written out (up to 2^16 entries) so that each compiles to a conditional move:
    /// in a loop LLVM turns them into branches, which shuffled keys mispredict half the time.
    @inline(__always)
    static func _leftmostAtLeast(_ key: Int32, in tops: UnsafeBufferPointer<Int32>, count: Int) -> Int {
        var base = 0, n = count
        @inline(__always) func step() {
            let half = n &>> 1
            base = tops[base &+ half] < key ? base &+ half : base
            n &-= half
        }
        if n > 1 { step() }; if n > 1 { step() }; if n > 1 { step() }; if n > 1 { step() }
        if n > 1 { step() }; if n > 1 { step() }; if n > 1 { step() }; if n > 1 { step() }
        if n > 1 { step() }; if n > 1 { step() }; if n > 1 { step() }; if n > 1 { step() }
        if n > 1 { step() }; if n > 1 { step() }; if n > 1 { step() }; if n > 1 { step() }
        while n > 1 { step() }
        return tops[base] < key ? base &+ 1 : base
    }
}
