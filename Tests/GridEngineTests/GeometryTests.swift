import Testing
@testable import GridEngine

@Suite struct GeometryTests {
    @Test func aPointOnASharedEdgeHitsExactlyOneOfTwoNeighbours() {
        let left = Rect(x: 0, y: 0, width: 10, height: 10)
        let right = Rect(x: 10, y: 0, width: 10, height: 10)
        let p = Point(x: 10, y: 5)
        #expect(!left.contains(p))
        #expect(right.contains(p))
        #expect(!left.intersects(right))
    }

    @Test func indexPathsOrderBySectionThenItem() {
        #expect(IndexPath(item: 5, section: 0) < IndexPath(item: 0, section: 1))
        #expect(IndexPath(item: 1, section: 2) < IndexPath(item: 2, section: 2))
    }

    @Test func seededGeneratorIsReproducible() {
        var a = SeededGenerator(seed: 7), b = SeededGenerator(seed: 7)
        for _ in 0..<100 { #expect(a.next() == b.next()) }
    }
}
