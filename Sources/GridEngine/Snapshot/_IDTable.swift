/// An open-addressing hash table from a 64-bit id to an `Int64`, with linear probing.
///
/// Why not `Dictionary`: ids are already well-mixed integers, so a multiplicative
/// (Fibonacci) hash and one flat slot array beat `Hasher` and generic buckets several
/// times over on the diff's hot path. Removal shifts the probe run back (no tombstones).
/// Complexity: O(1) expected insert and lookup; capacity is a power of two ≥ 2 × count.
///
/// A big snapshot's table built in bulk (`init(bulk:)`) over ids that lie close together (a
/// gallery's ids are mostly one run of the server's numbering) is *dense* instead: one slot per
/// id from the smallest to the largest, in order (slot i holds id `base + i`), found by
/// `id − base`. At a million items it is 16 MB written front to back instead of 32 MB written
/// at random (issue 15.1: the hash table's fill was a third of a 1M load in engine.wasm, and
/// its first writes to new memory as much again). A dense table stays dense while its range is
/// at most `denseSpread` × its count (an id outside the range widens it, with room to spare);
/// past that it becomes a hash table, once. The dense form keeps the struct's fields as they
/// were (`_shift` 0 marks it): with three more stored fields, the debug build of
/// `SnapshotReplayTests.damagedStagesAreRefusedWithApplyingsErrorAndChangeNothing` crashed
/// destroying a garbage `Snapshot` — with no other change (BENCHMARKS.md, session 38).
struct _IDTable: Sendable {
    struct _Slot: Sendable {
        var key: UInt64
        /// The stored value (never negative), or `-1` for an empty slot.
        var value: Int64
    }

    var _slots: [_Slot]
    var _shift: UInt64
    var count: Int = 0
    /// Whether the table is dense (see above): `_shift` is 0 then (a hash table's is 64 − its
    /// bits, at least 1), and `_slots[i]` holds id `_slots[0].key + i` (never empty).
    @inline(__always) var _isDense: Bool { _shift == 0 }

    /// A dense table's range may be at most this many times its count (a 16-byte slot an id of
    /// the range: at most 64 bytes an item, what a hash table takes right after it doubled).
    static let denseSpread = 4

    init(minimumCapacity: Int) {
        var capacity = 8
        var bits: UInt64 = 3
        while capacity < minimumCapacity * 2 { capacity &<<= 1; bits &+= 1 }
        _slots = [_Slot](repeating: _Slot(key: 0, value: -1), count: capacity)
        _shift = 64 &- bits
    }

    var capacity: Int { _slots.count }

    /// A table holding every list's ids (`lists[s][i] → value(s, i)`), dense when the ids span at
    /// most `denseSpread` × their count, else a hash table filled by `insertAllGrouped`; nil when
    /// an id repeats (the caller builds one by one, which names it).
    init?(bulk lists: [[ItemID]], value: (Int, Int) -> Int64) {
        var total = 0, lo = UInt64.max, hi: UInt64 = 0
        for list in lists {
            total += list.count
            for id in list { lo = min(lo, id.rawValue); hi = max(hi, id.rawValue) }
        }
        guard total > 0, hi &- lo < UInt64(Self.denseSpread &* total) else {
            self.init(minimumCapacity: total)
            if !insertAllGrouped(lists, value: value) { return nil }
            return
        }
        self.init(minimumCapacity: 0)
        var dense = Self._denseSlots(from: lo, count: Int(hi &- lo) &+ 1)
        let repeated: Bool = dense.withUnsafeMutableBufferPointer { dense in
            for s in 0..<lists.count {
                let found: Bool = lists[s].withUnsafeBufferPointer { ids in
                    for i in 0..<ids.count {
                        let at = Int(truncatingIfNeeded: ids[i].rawValue &- lo)
                        if dense[at].value >= 0 { return true }
                        dense[at].value = value(s, i)
                    }
                    return false
                }
                if found { return true }
            }
            return false
        }
        if repeated { return nil }
        _slots = dense
        _shift = 0
        count = total
    }

    /// Empty dense slots for ids `first..<first + count`, in order.
    static func _denseSlots(from first: UInt64, count: Int) -> [_Slot] {
        [_Slot](unsafeUninitializedCapacity: count) { slots, initialized in
            for i in 0..<count { (slots.baseAddress! + i).initialize(to: _Slot(key: first &+ UInt64(i), value: -1)) }
            initialized = count
        }
    }

    /// The slot of `key` in a dense table, or -1 when it is outside the range.
    @inline(__always) func _denseIndex(_ key: UInt64) -> Int {
        let i = key &- _slots[0].key
        return i < UInt64(_slots.count) ? Int(truncatingIfNeeded: i) : -1
    }

    /// Makes room for `key` in a dense table: the range widened to hold it with up to half as
    /// much again to spare on that side (no more than `denseSpread` × the count to be allows),
    /// or, when even the range that just holds it is wider than that, the table rebuilt as a
    /// hash table.
    mutating func _widen(toHold key: UInt64) {
        let base = _slots[0].key, oldEnd = base &+ UInt64(_slots.count)
        var lo = min(base, key), hi = max(oldEnd, key &+ 1)
        let most = UInt64(Self.denseSpread &* (count &+ 1)), spare = min((hi &- lo) / 2, most &- min(most, hi &- lo))
        if key < base { lo = lo > spare ? lo &- spare : 0 } else { hi = hi &+ spare }
        if hi &- lo <= most {
            var wider = Self._denseSlots(from: lo, count: Int(hi &- lo))
            let offset = Int(base &- lo)
            wider.withUnsafeMutableBufferPointer { wider in
                _slots.withUnsafeBufferPointer { old in
                    for i in 0..<old.count { wider[offset &+ i].value = old[i].value }
                }
            }
            _slots = wider
            return
        }
        var table = _IDTable(minimumCapacity: count &+ 1)
        for slot in _slots where slot.value >= 0 { _ = table.insertIfAbsent(slot.key, slot.value) }
        self = table
    }

    @inline(__always) static func _hash(_ key: UInt64, _ shift: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) &>> shift)
    }

    /// Inserts `key → value` unless the key is present; returns the existing value or -1.
    @inline(__always)
    mutating func insertIfAbsent(_ key: UInt64, _ value: Int64) -> Int64 {
        if _isDense {
            var i = _denseIndex(key)
            if i < 0 {
                _widen(toHold: key)
                if !_isDense { return insertIfAbsent(key, value) }
                i = _denseIndex(key)
            }
            let v = _slots[i].value
            if v >= 0 { return v }
            _slots[i].value = value
            count &+= 1
            return -1
        }
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
        if _isDense {
            let i = _denseIndex(key)
            if i >= 0 && _slots[i].value >= 0 { _slots[i].value = value }
            return
        }
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

    /// Keys of one block of `updateRun`: their home slots are read one after the other before
    /// any is probed, so that the reads' cache misses overlap instead of waiting in turn.
    static let runBlock = 16

    /// `update(ids[i].rawValue, value(i))` for every `i` in `lo..<hi`, every key present. A
    /// renumbering writes thousands of keys whose slots lie at random in the table (4 MB at 100k
    /// items, 32 MB at 1M): one by one, each probe waited for its own cache miss (95 % of the
    /// loop's samples on that one load, issue 15.3). Here a block's home slots are loaded first —
    /// independent reads the processor keeps in flight together — and kept in `homeKeys`; the
    /// probes then find their lines in the cache.
    mutating func updateRun(_ ids: UnsafeBufferPointer<ItemID>, from lo: Int, to hi: Int, value: (Int) -> Int64) {
        if lo >= hi { return }
        precondition(lo >= 0 && hi <= ids.count, "updateRun: range out of the ids")
        if _isDense {
            _slots.withUnsafeMutableBufferPointer { slots in
                let base = slots[0].key
                for k in lo..<hi {
                    let i = Int(truncatingIfNeeded: ids[k].rawValue &- base)
                    if UInt(bitPattern: i) < UInt(slots.count) && slots[i].value >= 0 { slots[i].value = value(k) }
                }
            }
            return
        }
        let shift = _shift
        _slots.withUnsafeMutableBufferPointer { slots in
            let mask = slots.count &- 1
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: _IDTable.runBlock) { homeKeys in
                var start = lo
                while start < hi {
                    let end = min(start &+ _IDTable.runBlock, hi)
                    var i = start
                    while i < end {
                        homeKeys[i &- start] = slots[_IDTable._hash(ids[i].rawValue, shift)].key
                        i &+= 1
                    }
                    i = start
                    while i < end {
                        let key = ids[i].rawValue
                        var at = _IDTable._hash(key, shift)
                        if homeKeys[i &- start] != key || slots[at].value < 0 {
                            while slots[at].value >= 0 && slots[at].key != key { at = (at &+ 1) & mask }
                        }
                        if slots[at].value >= 0 { slots[at].value = value(i) }
                        i &+= 1
                    }
                    start = end
                }
            }
        }
    }

    /// The value stored for `key`, or -1.
    @inline(__always)
    func find(_ key: UInt64) -> Int64 {
        if _isDense {
            let i = _denseIndex(key)
            return i < 0 ? -1 : _slots[i].value
        }
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
        if _isDense {
            let i = _denseIndex(key)
            guard i >= 0 && _slots[i].value >= 0 else { return false }
            _slots[i].value = -1
            count &-= 1
            return true
        }
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

    /// Tables of at least this many keys are filled by `insertAllGrouped` when a snapshot is built.
    static let groupedMinimum = 1 << 14

    /// Inserts every list's ids (`lists[s][i] → value(s, i)`) into this empty table, as
    /// `insertIfAbsent` one by one would, but first grouped by the high bits of each id's home
    /// slot (a stable counting sort into a scratch array), so that the inserts walk the table
    /// front to back instead of at random. At a million ids the table is 32 MB and a random
    /// insert missed the cache almost every time: ~70 ms of a million-item load in engine.wasm.
    /// Answers false, the table then partly filled, when an id repeats or the table is not empty
    /// and big enough: the caller starts again one by one (which names the repeated id).
    mutating func insertAllGrouped(_ lists: [[ItemID]], value: (Int, Int) -> Int64) -> Bool {
        var total = 0
        for list in lists { total += list.count }
        guard !_isDense, count == 0, total &* 2 <= _slots.count else { return false }
        let bits = 64 &- _shift
        let groupBits: UInt64 = min(bits, 11)
        let groupShift = 64 &- groupBits
        let groups = 1 << Int(groupBits)
        var next = [Int](repeating: 0, count: groups + 1)
        next.withUnsafeMutableBufferPointer { next in
            for list in lists {
                list.withUnsafeBufferPointer { ids in
                    for id in ids { next[Int(truncatingIfNeeded: (id.rawValue &* 0x9E37_79B9_7F4A_7C15) &>> groupShift) &+ 1] &+= 1 }
                }
            }
            for g in 0..<groups { next[g &+ 1] &+= next[g] }
        }
        // Two scratch arrays of 8-byte values rather than one of slots: once freed, each is
        // taken whole by a later array of one 8-byte value per item (the layout's), so the
        // engine's allocator (which does not split big blocks) wastes nothing on them.
        var keys = [UInt64](repeating: 0, count: total)
        var values = [Int64](repeating: 0, count: total)
        keys.withUnsafeMutableBufferPointer { keys in
        values.withUnsafeMutableBufferPointer { values in
        next.withUnsafeMutableBufferPointer { next in
            for s in 0..<lists.count {
                lists[s].withUnsafeBufferPointer { ids in
                    for i in 0..<ids.count {
                        let key = ids[i].rawValue
                        let g = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) &>> groupShift)
                        keys[next[g]] = key
                        values[next[g]] = value(s, i)
                        next[g] &+= 1
                    }
                }
            }
        }}}
        let shift = _shift
        let inserted: Bool = _slots.withUnsafeMutableBufferPointer { slots in
            let mask = slots.count &- 1
            return keys.withUnsafeBufferPointer { keys in
            values.withUnsafeBufferPointer { values in
                for k in 0..<total {
                    let key = keys[k]
                    var i = _IDTable._hash(key, shift)
                    while slots[i].value >= 0 {
                        if slots[i].key == key { return false }
                        i = (i &+ 1) & mask
                    }
                    slots[i] = _Slot(key: key, value: values[k])
                }
                return true
            }}
        }
        if inserted { count = total }
        return inserted
    }

    mutating func _grow() {
        var bigger = _IDTable(minimumCapacity: _slots.count)
        for slot in _slots where slot.value >= 0 { _ = bigger.insertIfAbsent(slot.key, slot.value) }
        self = bigger
    }
}
