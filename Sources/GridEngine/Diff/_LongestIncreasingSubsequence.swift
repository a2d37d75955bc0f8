/// Marks a longest strictly increasing subsequence of `keys` (distinct values) in `keep`.
///
/// Why: items (or sections) in the subsequence keep their relative order between the two
/// snapshots, so they stay put; only the others need a move. This makes k random moves
/// report about k moves instead of everything between a moved item's two positions.
/// Patience sorting with predecessor links, O(k log k); an already increasing run costs O(k)
/// because a key larger than the last pile's top is appended without a search.
struct _LongestIncreasingSubsequence {
    /// Index into `keys` of the top of each pile.
    var _tops: [Int32] = []
    /// For each position, the position before it in the best subsequence ending there.
    var _previous: [Int32] = []

    /// Fills `keep[i]` (for `i` in `0..<count`) with whether `keys[i]` is in the subsequence.
    mutating func mark(
        _ keys: UnsafeBufferPointer<Int32>, count: Int, keep: UnsafeMutableBufferPointer<Bool>
    ) {
        if count == 0 { return }
        _tops.removeAll(keepingCapacity: true)
        if _previous.count < count { _previous = [Int32](repeating: -1, count: count) }
        _previous.withUnsafeMutableBufferPointer { previous in
            for i in 0..<count {
                let key = keys[i]
                let pileCount = _tops.count
                if pileCount == 0 || keys[Int(_tops[pileCount - 1])] < key {
                    previous[i] = pileCount == 0 ? -1 : _tops[pileCount - 1]
                    _tops.append(Int32(truncatingIfNeeded: i))
                    continue
                }
                // Leftmost pile whose top is ≥ key.
                var lo = 0, hi = pileCount - 1
                while lo < hi {
                    let mid = (lo + hi) >> 1
                    if keys[Int(_tops[mid])] < key { lo = mid + 1 } else { hi = mid }
                }
                previous[i] = lo == 0 ? -1 : _tops[lo - 1]
                _tops[lo] = Int32(truncatingIfNeeded: i)
            }
            for i in 0..<count { keep[i] = false }
            var i = Int(_tops[_tops.count - 1])
            while i >= 0 {
                keep[i] = true
                i = Int(previous[i])
            }
        }
    }
}
