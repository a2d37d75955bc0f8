import Testing
import GalleryCore
import GridEngine

@Test func rankKeysStayOrderedUnderRandomInsertions() {
    var rng = SeededGenerator(seed: 42)
    var keys: [String] = []
    for _ in 0..<3_000 {
        let i = Int(rng.next() % UInt64(keys.count + 1))
        let k = RankKey.between(i > 0 ? keys[i - 1] : nil, i < keys.count ? keys[i] : nil)
        #expect(RankKey.isValid(k))
        keys.insert(k, at: i)
    }
    #expect(keys == keys.sorted())
    #expect(Set(keys).count == keys.count)
}

@Test func rankKeysBetweenAdjacentDigitsAndRepeatedFrontInsertsStayShort() {
    #expect(RankKey.between("1", "2") > "1")
    #expect(RankKey.between("1", "2") < "2")
    var first = RankKey.between(nil, nil)
    for _ in 0..<1000 {
        let k = RankKey.between(nil, first)
        #expect(k < first)
        first = k
    }
    // Bisection: 1,000 keys between two neighbours need only a few extra digits.
    let many = RankKey.keys(1_000, between: "A", and: "B")
    #expect(many == many.sorted() && Set(many).count == 1_000)
    #expect(many.allSatisfy { $0 > "A" && $0 < "B" && $0.count <= 4 })
}
