import Testing
@testable import GridEngine

@Suite struct IDTableTests {
    @Test func randomInsertsAndRemovalsAgreeWithADictionary() {
        for seed in 0..<20 as Range<UInt64> {
            var rng = SeededGenerator(seed: seed)
            var table = _IDTable(minimumCapacity: 4)
            var reference: [UInt64: Int64] = [:]
            // Few distinct keys, many operations: long probe runs, wrap-around, regrowth.
            for step in 0..<3000 {
                let key = UInt64.random(in: 0..<300, using: &rng) &* 0x1_0000_0001
                switch Int.random(in: 0..<3, using: &rng) {
                case 0:
                    let existing = table.insertIfAbsent(key, Int64(step))
                    #expect(existing == (reference[key] ?? -1))
                    if reference[key] == nil { reference[key] = Int64(step) }
                case 1:
                    #expect(table.remove(key) == (reference.removeValue(forKey: key) != nil))
                default:
                    if reference[key] != nil { table.update(key, Int64(step)); reference[key] = Int64(step) }
                }
                #expect(table.count == reference.count)
            }
            for k in 0..<300 as Range<UInt64> {
                let key = k &* 0x1_0000_0001
                #expect(table.find(key) == (reference[key] ?? -1))
            }
        }
    }

    /// `updateRun` (a renumbering's writes, a block's home slots read first) must write exactly
    /// what `update` one key at a time does: keys that collide and wrap, runs that are not a whole
    /// number of blocks, a range inside the list.
    @Test func updateRunWritesWhatUpdateDoesKeyByKey() {
        for seed in 0..<20 as Range<UInt64> {
            var rng = SeededGenerator(seed: seed)
            let n = Int.random(in: 1...200, using: &rng)
            // Keys on a few multiples: many share a home slot in a small table.
            var keys: [UInt64] = []
            var seen = Set<UInt64>()
            while keys.count < n {
                let key = UInt64.random(in: 0..<UInt64(4 * n), using: &rng) &* (seed % 2 == 0 ? 1 : 0x1_0000_0001)
                if seen.insert(key).inserted { keys.append(key) }
            }
            var table = _IDTable(minimumCapacity: n)
            for (k, key) in keys.enumerated() { _ = table.insertIfAbsent(key, Int64(k)) }
            // Some keys removed again (their emptied slots may keep the key: an update must not
            // revive them) and some never inserted: both are left absent.
            var absent = Set<Int>()
            for k in 0..<n where Int.random(in: 0..<5, using: &rng) == 0 {
                table.remove(keys[k])
                absent.insert(k)
            }
            var reference = table
            let lo = Int.random(in: 0...n, using: &rng), hi = Int.random(in: lo...n, using: &rng)
            let ids = keys.map { ItemID($0) }
            ids.withUnsafeBufferPointer { table.updateRun($0, from: lo, to: hi) { Int64(1_000 + $0) } }
            for i in lo..<hi { reference.update(keys[i], Int64(1_000 + i)) }
            for (k, key) in keys.enumerated() {
                #expect(table.find(key) == reference.find(key))
                #expect(table.find(key) == (absent.contains(k) ? -1 : Int64(k >= lo && k < hi ? 1_000 + k : k)))
            }
            let never = (0..<20).map { ItemID(UInt64(4 * n) &+ 1 &+ UInt64($0)) }
            never.withUnsafeBufferPointer { table.updateRun($0, from: 0, to: never.count) { _ in 7 } }
            for id in never { #expect(table.find(id.rawValue) == -1) }
            #expect(table.count == n - absent.count)
        }
    }

    /// A table built in bulk over ids close together is dense (`_IDTable.init(bulk:)`); inserts,
    /// removals and updates — ids inside its range, just past either end and far away — must
    /// answer what a dictionary does, whether the table stays dense, widens or becomes a hash
    /// table on the way.
    @Test func aDenseTableAgreesWithADictionaryAndWidensOrTurnsIntoAHashTable() {
        var sawWidened = false, sawHash = false
        for seed in 0..<20 as Range<UInt64> {
            var rng = SeededGenerator(seed: seed)
            let base = UInt64.random(in: 0..<1_000_000, using: &rng), n = Int.random(in: 1...3000, using: &rng)
            // Ids from `base` on with gaps (at most 4 × n apart in all: dense), in two lists.
            var keys = Array(Set((0..<n).map { _ in base &+ UInt64.random(in: 0..<UInt64(3 * n), using: &rng) })).shuffled(using: &rng)
            if seed == 0 { keys = [base] } // one id: a range of one
            let split = keys.count / 3
            let lists = [Array(keys[..<split]), Array(keys[split...])].map { $0.map { ItemID($0) } }
            guard var table = _IDTable(bulk: lists, value: { Int64($0 * 100_000 + $1) }) else {
                Issue.record("seed \(seed): refused without a repeat"); return
            }
            #expect(table._isDense)
            var reference: [UInt64: Int64] = [:]
            for (s, list) in lists.enumerated() { for (i, id) in list.enumerated() { reference[id.rawValue] = Int64(s * 100_000 + i) } }
            #expect(table.count == reference.count)
            let lo = keys.min()!, hi = keys.max()!
            for step in 0..<4000 {
                let key: UInt64
                switch Int.random(in: 0..<10, using: &rng) {
                case 0: key = lo &- min(lo, UInt64.random(in: 1...UInt64(2 * n), using: &rng)) // below the range
                case 1: key = hi &+ UInt64.random(in: 1...UInt64(2 * n), using: &rng) // past it
                case 2: key = UInt64.random(in: 0..<(1 << 40), using: &rng) // far away
                default: key = lo &+ UInt64.random(in: 0...(hi &- lo), using: &rng)
                }
                switch Int.random(in: 0..<4, using: &rng) {
                case 0, 1:
                    let before = table._isDense ? table.capacity : -1
                    #expect(table.insertIfAbsent(key, Int64(step)) == (reference[key] ?? -1))
                    if reference[key] == nil { reference[key] = Int64(step) }
                    if before >= 0 && table._isDense && table.capacity != before { sawWidened = true }
                    if before >= 0 && !table._isDense { sawHash = true }
                case 2:
                    #expect(table.remove(key) == (reference.removeValue(forKey: key) != nil))
                default:
                    table.update(key, Int64(step))
                    if reference[key] != nil { reference[key] = Int64(step) }
                }
                #expect(table.count == reference.count)
                #expect(table.find(key) == (reference[key] ?? -1))
            }
            for (key, value) in reference where table.find(key) != value {
                Issue.record("seed \(seed): \(key) → \(table.find(key)), not \(value)"); return
            }
            // A renumbering's run of updates over present, removed and unknown ids.
            let ids = (reference.keys.sorted() + [hi &+ UInt64(10 * n), 3]).map { ItemID($0) }
            var expected = reference
            ids.withUnsafeBufferPointer { table.updateRun($0, from: 0, to: ids.count) { Int64(7 + $0) } }
            for (k, id) in ids.enumerated() where expected[id.rawValue] != nil { expected[id.rawValue] = Int64(7 + k) }
            for id in ids { #expect(table.find(id.rawValue) == (expected[id.rawValue] ?? -1)) }
        }
        #expect(sawWidened)
        #expect(sawHash)
    }

    /// Which form a bulk build takes: dense up to a range of 4 × the count, a hash table past it
    /// (the same lookups either way); a repeated id is refused in both.
    @Test func aBulkBuildIsDenseOnlyOverCloseIds() {
        let close = [(0..<5000).map { ItemID(10 + UInt64($0) * 3) }] // range 15,000 < 4 × 5,000
        let spread = [(0..<5000).map { ItemID(10 + UInt64($0) * 5) }] // range 25,000 > 4 × 5,000
        for (lists, dense) in [(close, true), (spread, false)] {
            guard let table = _IDTable(bulk: lists, value: { Int64($1) }) else { Issue.record("refused"); continue }
            #expect(table._isDense == dense)
            #expect(table.count == 5000)
            for (i, id) in lists[0].enumerated() where table.find(id.rawValue) != Int64(i) { Issue.record("\(id.rawValue) lost"); break }
            #expect(table.find(11) == -1)
            #expect(table.find(9) == -1)
            #expect(_IDTable(bulk: [lists[0], [lists[0][4321]]], value: { Int64($1) }) == nil)
        }
        // At a million ids in one run: one 16-byte slot an id, not the hash table's two.
        let million = [(1...1_000_000).map { ItemID(UInt64($0)) }]
        let table = _IDTable(bulk: million, value: { Int64($1) })!
        #expect(table._isDense && table.capacity == 1_000_000)
        #expect(table.find(1_000_000) == 999_999 && table.find(0) == -1 && table.find(1_000_001) == -1)
    }
}
