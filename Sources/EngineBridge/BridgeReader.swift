import GridEngine

/// Reads a flat input buffer front to back; every read is bounds-checked, so a short or
/// hostile buffer ends in `.malformedInput`, never in a trap.
struct _BridgeReader {
    let values: UnsafeBufferPointer<Double>
    var position = 0

    init(_ values: UnsafeBufferPointer<Double>) { self.values = values }

    var remaining: Int { values.count - position }

    mutating func double() throws(_BridgeFailure) -> Double {
        guard position < values.count else { throw _BridgeFailure(.malformedInput) }
        defer { position += 1 }
        return values[position]
    }

    /// An integer in `range`; NaN, fractions and out-of-range values are refused.
    mutating func int(in range: ClosedRange<Int> = 0...Int(Int32.max)) throws(_BridgeFailure) -> Int {
        let d = try double()
        guard d.isFinite, d == d.rounded(.towardZero), d >= Double(range.lowerBound), d <= Double(range.upperBound) else {
            throw _BridgeFailure(.malformedInput)
        }
        return Int(d)
    }

    /// One code of a protocol enum (BridgeProtocol.swift); a value it does not define is refused.
    mutating func code<Code: RawRepresentable>(_: Code.Type) throws(_BridgeFailure) -> Code where Code.RawValue == Int {
        guard let code = Code(rawValue: try int(in: Int(Int32.min)...Int(Int32.max))) else { throw _BridgeFailure(.malformedInput) }
        return code
    }

    /// Bits of a protocol flag set (modifiers, drop data kinds); bits it does not define are ignored.
    mutating func bits() throws(_BridgeFailure) -> Int { try int(in: 0...255) }

    /// A count of following records, each `stride` values long, that the buffer can hold.
    mutating func count(stride: Int) throws(_BridgeFailure) -> Int {
        let n = try int()
        let (needed, overflow) = n.multipliedReportingOverflow(by: max(stride, 0))
        guard !overflow, needed <= remaining else { throw _BridgeFailure(.malformedInput) }
        return n
    }

    /// A content version (UInt32; Int is 32 bits on wasm32, so not read through `int`).
    mutating func version() throws(_BridgeFailure) -> UInt32 {
        let d = try double()
        guard d.isFinite, d >= 0, d <= 4_294_967_295, d == d.rounded(.towardZero) else {
            throw _BridgeFailure(.malformedInput)
        }
        return UInt32(d)
    }

    /// An id, or nil for a negative value.
    mutating func optionalID() throws(_BridgeFailure) -> UInt64? {
        guard position < values.count else { throw _BridgeFailure(.malformedInput) }
        if values[position] < 0 { position += 1; return nil }
        return try id()
    }

    /// An id below 2^53 (exact as a double).
    mutating func id() throws(_BridgeFailure) -> UInt64 {
        let d = try double()
        guard d.isFinite, d >= 0, d <= 9_007_199_254_740_991, d == d.rounded(.towardZero) else {
            throw _BridgeFailure(.malformedInput)
        }
        return UInt64(d)
    }

    /// The next `n` values, each checked as `id()` checks one, as item ids. A gallery's load reads
    /// its ids, versions and aspects by these: one pass each, no per-value bounds check and no
    /// array growth (a million-item load read them value by value in ~20 ms of engine.wasm).
    mutating func ids(_ n: Int) throws(_BridgeFailure) -> [ItemID] {
        try run(n) { d, ok in
            ok = ok && d >= 0 && d <= 9_007_199_254_740_991 && d == d.rounded(.towardZero)
            return ItemID(UInt64(ok ? d : 0))
        }
    }

    /// The next `n` values, each checked as `version()` checks one.
    mutating func versions(_ n: Int) throws(_BridgeFailure) -> [UInt32] {
        try run(n) { d, ok in
            ok = ok && d >= 0 && d <= 4_294_967_295 && d == d.rounded(.towardZero)
            return UInt32(ok ? d : 0)
        }
    }

    /// The next `n` values as they are.
    mutating func doubles(_ n: Int) throws(_BridgeFailure) -> [Double] {
        try run(n) { d, _ in d }
    }

    /// The next `n` values mapped by `convert`, which clears its flag on a value it refuses (and
    /// then answers anything): the read is then refused as a whole.
    private mutating func run<T>(_ n: Int, _ convert: (Double, inout Bool) -> T) throws(_BridgeFailure) -> [T] {
        guard n >= 0, n <= remaining else { throw _BridgeFailure(.malformedInput) }
        var ok = true
        let start = position
        let out = [T](unsafeUninitializedCapacity: n) { buffer, initialized in
            for k in 0..<n { (buffer.baseAddress! + k).initialize(to: convert(values[start &+ k], &ok)) }
            initialized = n
        }
        guard ok else { throw _BridgeFailure(.malformedInput) }
        position += n
        return out
    }
}

struct _BridgeFailure: Error {
    var status: BridgeStatus
    var detail: [Double] = []
    init(_ status: BridgeStatus, _ detail: [Double] = []) { self.status = status; self.detail = detail }
}
