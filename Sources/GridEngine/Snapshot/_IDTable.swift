/// An open-addressing hash table from a 64-bit id to an `Int64`, with linear probing.
///
/// Why not `Dictionary`: ids are already well-mixed integers, so a multiplicative
/// (Fibonacci) hash and one flat slot array beat `Hasher` and generic buckets several
/// times over on the diff's hot path. Removal shifts the probe run back (no tombstones).
/// Complexity: O(1) expected insert and lookup; capacity is a power of two ≥ 2 × count.
struct _IDTable: Sendable {
    struct _Slot: Sendable {
        var key: UInt64
        /// The stored value (never negative), or `-1` for an empty slot.
        var value: Int64
    }

    var _slots: [_Slot]
    var _shift: UInt64
    var count: Int = 0

    init(minimumCapacity: Int) {
        var capacity = 8
        var bits: UInt64 = 3
        while capacity < minimumCapacity * 2 { capacity &<<= 1; bits &+= 1 }
        _slots = [_Slot](repeating: _Slot(key: 0, value: -1), count: capacity)
        _shift = 64 &- bits
    }

    var capacity: Int { _slots.count }

    @inline(__always) static func _hash(_ key: UInt64, _ shift: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) &>> shift)
    }

    /// Inserts `key → value` unless the key is present; returns the existing value or -1.
    @inline(__always)
    mutating func insertIfAbsent(_ key: UInt64, _ value: Int64) -> Int64 {
        if (count &+ 1) &* 2 > _slots.count { _grow() }
        let shift = _shift
        return _slots.withUnsafeMutableBufferPointer { slots in
            let mask = slots.count &- 1
            var i = _IDTable._hash(key, shift)
            while true {
                let v = slots[i].value
                if v < 0 {
                    slots[i] = _Slot(key: key, value: value)
                    count &+= 1
                    return -1
                }
                if slots[i].key == key { return v }
                i = (i &+ 1) & mask
            }
        }
    }

    /// Replaces the value of a present key (no-op when absent).
    mutating func update(_ key: UInt64, _ value: Int64) {
        let shift = _shift
        _slots.withUnsafeMutableBufferPointer { slots in
            let mask = slots.count &- 1
            var i = _IDTable._hash(key, shift)
            while slots[i].value >= 0 {
                if slots[i].key == key { slots[i].value = value; return }
                i = (i &+ 1) & mask
            }
        }
    }

    /// The value stored for `key`, or -1.
    @inline(__always)
    func find(_ key: UInt64) -> Int64 {
        let shift = _shift
        return _slots.withUnsafeBufferPointer { slots in
            let mask = slots.count &- 1
            var i = _IDTable._hash(key, shift)
            while true {
                let v = slots[i].value
                if v < 0 { return -1 }
                if slots[i].key == key { return v }
                i = (i &+ 1) & mask
            }
        }
    }

    /// Removes `key` if present; returns whether it was.
    @discardableResult
    mutating func remove(_ key: UInt64) -> Bool {
        let shift = _shift
        let removed: Bool = _slots.withUnsafeMutableBufferPointer { slots in
            let mask = slots.count &- 1
            var hole = _IDTable._hash(key, shift)
            while true {
                if slots[hole].value < 0 { return false }
                if slots[hole].key == key { break }
                hole = (hole &+ 1) & mask
            }
            // Backward-shift: pull later entries of the run into the hole unless that would
            // put them before their home slot.
            var j = hole
            while true {
                j = (j &+ 1) & mask
                if slots[j].value < 0 { break }
                let home = _IDTable._hash(slots[j].key, shift)
                if (j &- home) & mask >= (j &- hole) & mask {
                    slots[hole] = slots[j]
                    hole = j
                }
            }
            slots[hole].value = -1
            return true
        }
        if removed { count &-= 1 }
        return removed
    }

    mutating func _grow() {
        var bigger = _IDTable(minimumCapacity: _slots.count)
        for slot in _slots where slot.value >= 0 { _ = bigger.insertIfAbsent(slot.key, slot.value) }
        self = bigger
    }
}
