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
}
