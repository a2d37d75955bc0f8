/// Order keys placed between neighbours (fractional indexing), so that moving or inserting k
/// items writes k rows and never renumbers the others.
///
/// A key is a base-62 fraction 0.d₁d₂… spelled with `0-9A-Za-z`, whose ASCII order is the
/// digit order, so SQLite's default BINARY collation sorts keys as numbers. Keys never end in
/// `0`, so there is always room between two of them.
///
///     let a = RankKey.between(nil, nil)   // "V"
///     let b = RankKey.between(a, nil)     // after a
///     let k = RankKey.keys(3, between: a, and: b)
///
/// `between` is O(key length); `keys(_:between:and:)` bisects, so k keys are O(log k) digits longer.
public enum RankKey {
    static let digits: [UInt8] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
    static let base = 62

    static func value(_ c: UInt8) -> Int {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(c - UInt8(ascii: "0"))
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return Int(c - UInt8(ascii: "A")) + 10
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return Int(c - UInt8(ascii: "a")) + 36
        default: return 0
        }
    }

    /// True when `key` is a well-formed rank key (non-empty, base-62 digits, no trailing zero).
    public static func isValid(_ key: String) -> Bool {
        let u = Array(key.utf8)
        guard let last = u.last, last != UInt8(ascii: "0") else { return false }
        return u.allSatisfy { digits.contains($0) }
    }

    /// A key strictly between `lower` and `upper` (nil means the start or the end of the list).
    /// Precondition: lower < upper when both are given.
    public static func between(_ lower: String?, _ upper: String?) -> String {
        let a = Array((lower ?? "").utf8).map(value)
        var b: [Int]? = upper.map { Array($0.utf8).map(value) }
        if let lower, let upper { precondition(lower < upper, "rank keys out of order: \(lower) ≥ \(upper)") }
        var out: [Int] = []
        var i = 0
        while true {
            let da = i < a.count ? a[i] : 0
            let db = b.map { i < $0.count ? $0[i] : 0 } ?? base
            if da == db { out.append(da); i += 1; continue }
            let mid = (da + db) / 2
            if mid > da { out.append(mid); break }
            // Adjacent digits: keep a's digit; from here on anything above a's tail fits under b.
            out.append(da)
            i += 1
            b = nil
        }
        return String(decoding: out.map { digits[$0] }, as: UTF8.self)
    }

    /// `count` ascending keys strictly between `lower` and `upper`, by bisection.
    public static func keys(_ count: Int, between lower: String?, and upper: String?) -> [String] {
        var out: [String] = []
        out.reserveCapacity(count)
        _fill(count, lower, upper, &out)
        return out
    }

    private static func _fill(_ count: Int, _ lower: String?, _ upper: String?, _ out: inout [String]) {
        guard count > 0 else { return }
        let mid = between(lower, upper)
        let left = (count - 1) / 2
        _fill(left, lower, mid, &out)
        out.append(mid)
        _fill(count - 1 - left, mid, upper, &out)
    }
}
