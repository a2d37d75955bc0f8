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
}
