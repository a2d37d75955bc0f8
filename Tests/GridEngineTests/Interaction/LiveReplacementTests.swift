import Testing
@testable import GridEngine

/// Issue 15: the server's whole arrangement after a reload, handed over in parts
/// (`Snapshot.Builder`, `GridController.beginLiveReplacement` …) so that no call is O(n) but
/// the last, and swapped in without a diff: the same model, layout, placeholders, drag and
/// focus as `applyLiveSnapshot` gives for the same arrangement.
@Suite struct LiveReplacementTests {
    /// `sections` handed to `builder` in parts of `part` items (a section split between parts).
    static func parts(_ sections: [(id: SectionID, items: [ItemID])], part: Int,
                      _ append: (SectionID, ArraySlice<ItemID>) throws -> Void) rethrows {
        var left = part
        for s in sections {
            if s.items.isEmpty { try append(s.id, []); continue }
            var at = 0
            while at < s.items.count {
                let m = min(left, s.items.count - at)
                try append(s.id, s.items[at..<(at + m)])
                at += m
                left -= m
                if left == 0 { left = part }
            }
        }
    }

    static func randomSections(_ rng: inout SeededGenerator, ids: inout [ItemID]) -> [(id: SectionID, items: [ItemID])] {
        ids.shuffle(using: &rng)
        let count = Int.random(in: 1...6, using: &rng)
        var cuts = (0..<(count - 1)).map { _ in Int.random(in: 0...ids.count, using: &rng) }.sorted()
        cuts.append(ids.count)
        var out: [(id: SectionID, items: [ItemID])] = [], from = 0
        for (k, c) in cuts.enumerated() {
            out.append((SectionID(UInt64(500 + k)), Array(ids[from..<c])))
            from = c
        }
        return out.shuffled(using: &rng)
    }

    @Test func aSnapshotBuiltInPartsIsTheSnapshotBuiltAtOnce() throws {
        var rng = SeededGenerator(seed: 15)
        for round in 0..<40 {
            var ids = (0..<Int.random(in: 0...60, using: &rng)).map { ItemID(UInt64($0) + 1) }
            let sections = Self.randomSections(&rng, ids: &ids)
            var versions: [ItemID: UInt32] = [:]
            for id in ids { versions[id] = UInt32.random(in: 0...9, using: &rng) }
            let whole = try Snapshot(sections.map { (id: $0.id, items: $0.items, versions: $0.items.map { versions[$0]! }) })
            var builder = Snapshot.Builder(expectedItems: round % 2 == 0 ? ids.count : 0)
            try Self.parts(sections, part: 1 + round % 7) { id, items in
                try builder.append(section: id, items: Array(items), versions: items.map { versions[$0]! })
            }
            #expect(builder.itemCount == ids.count && builder.sectionCount == sections.count)
            let built = builder.snapshot()
            built.checkInvariants()
            #expect(built == whole)
            for id in ids { #expect(built.indexPath(of: id) == whole.indexPath(of: id) && built.version(of: id) == versions[id]) }
            // It edits as a snapshot built at once does.
            if let first = ids.first {
                var a = built, b = whole
                try a.deleteItems([first]); try b.deleteItems([first])
                a.checkInvariants()
                #expect(a == b)
            }
        }
    }

    @Test func aRepeatedIdIsRefused() throws {
        var b = Snapshot.Builder()
        try b.append(section: SectionID(1), items: [ItemID(1), ItemID(2)], versions: [0, 0])
        #expect(throws: SnapshotError.duplicateItem(ItemID(2))) {
            try b.append(section: SectionID(1), items: [ItemID(3), ItemID(2)], versions: [0, 0])
        }
        var c = Snapshot.Builder()
        try c.append(section: SectionID(1), items: [ItemID(1)], versions: [0])
        try c.append(section: SectionID(2), items: [], versions: [])
        #expect(throws: SnapshotError.duplicateSection(SectionID(1))) {
            try c.append(section: SectionID(1), items: [ItemID(5)], versions: [0])
        }
        var grid = Fruit.grid()
        let before = grid.snapshot
        #expect(throws: GridControllerError.invalidSnapshot) { _ = try grid.finishLiveReplacement() }
        grid.beginLiveReplacement(itemCount: 2, sectionCount: 1)
        #expect(throws: GridControllerError.invalidSnapshot) {
            try grid.appendToLiveReplacement(section: SectionID(100), items: [ItemID(1), ItemID(1)], versions: [0, 0], aspects: [1, 1])
        }
        #expect(!grid.isReplacing && grid.snapshot == before)
        #expect(throws: GridControllerError.invalidSnapshot) { _ = try grid.finishLiveReplacement() }
        // The counts are hints: a wrong one (here absurd) allocates no more than the limit and
        // changes nothing else; the tables grow past a count too small.
        grid.beginLiveReplacement(itemCount: Int.max, sectionCount: Int.max)
        #expect(grid._replacement!.builder._itemTable.capacity <= 2 * GridController.replacementSizingLimit)
        grid.beginLiveReplacement(itemCount: 1, sectionCount: 0)
        let ids = (1...UInt64(12)).map { ItemID($0) }
        try grid.appendToLiveReplacement(section: SectionID(7), items: ids.reversed(), versions: ids.map { _ in 2 },
                                         aspects: ids.map { _ in 1 })
        _ = try grid.finishLiveReplacement()
        #expect(grid.snapshot == (try Snapshot([(id: SectionID(7), items: ids.reversed(), versions: ids.map { _ in UInt32(2) })])))
    }

    /// The server's arrangement `model` given to `grid` in parts of `part` items.
    static func replace(_ grid: inout GridController, with model: Snapshot, aspects: [ItemID: Double], part: Int) throws -> [GridEffect] {
        grid.beginLiveReplacement(itemCount: model.itemCount, sectionCount: model.sectionCount)
        let sections = (0..<model.sectionCount).map { (id: model.sectionID(at: $0), items: model.items(inSection: $0)) }
        try Self.parts(sections, part: part) { id, items in
            try grid.appendToLiveReplacement(section: id, items: Array(items), versions: items.map { model.version(of: $0)! },
                                             aspects: items.map { aspects[$0] ?? 1 })
        }
        #expect(grid.isReplacing)
        return try grid.finishLiveReplacement()
    }

    @Test func aReplacementInPartsShowsWhatTheDiffedSnapshotShows() throws {
        var rng = SeededGenerator(seed: 16)
        for round in 0..<24 {
            let kinds: [LayoutKind] = [.grid(columns: 3), .waterfall(columns: 3), .justified(rowHeight: 90), .flow(itemSize: Size(width: 80, height: 60))]
            var ids = (1...UInt64(40)).map { ItemID($0) }
            let start = Self.randomSections(&rng, ids: &ids)
            var aspects: [ItemID: Double] = [:]
            for i in 1...UInt64(60) { aspects[ItemID(i)] = Double.random(in: 0.4...2.5, using: &rng) }
            let config = LayoutConfiguration(kind: kinds[round % 4], containerWidth: 400, headerHeight: 20)
            let grid = try GridController(snapshot: try Snapshot(start), aspects: start.map { $0.items.map { aspects[$0]! } },
                                          layout: config, viewport: Size(width: 400, height: 600), interaction: Fruit.immediate)
            var a = Hand(grid), b = Hand(grid)
            // Something local that must survive: a placeholder (round 1 of 3), a drag (2 of 3), the focus.
            let focus = ids[round % ids.count]
            a.grid.focus(focus); b.grid.focus(focus)
            let shown = a.grid.displayedSnapshot
            let firstShown = (0..<shown.sectionCount).first { shown.itemCount(inSection: $0) > 1 }
            if round % 3 == 1, let s = firstShown {
                let at = a.centre(shown.itemID(at: IndexPath(item: 0, section: s)))
                a.send(.externalDragEnter(items: [PlaceholderTests.url], location: at, time: 0))
                a.send(.externalDrop(location: at, time: 0.1))
                b.send(.externalDragEnter(items: [PlaceholderTests.url], location: at, time: 0))
                b.send(.externalDrop(location: at, time: 0.1))
                #expect(a.grid.placeholders.count == 1 && b.grid.placeholders.map(\.id) == a.grid.placeholders.map(\.id))
            } else if round % 3 == 2, let s = firstShown {
                let from = a.centre(shown.itemID(at: IndexPath(item: 0, section: s)))
                let to = a.centre(shown.itemID(at: IndexPath(item: 1, section: s)))
                for h in [0, 1] {
                    var hand = h == 0 ? a : b
                    hand.time = 1
                    hand.kind = .touch
                    hand.down(from)
                    hand.tick(0.25)
                    hand.tick(0.25)
                    hand.drag(to: to)
                    if h == 0 { a = hand } else { b = hand }
                }
                #expect(a.grid.session != nil)
            }
            // The server's arrangement: some items gone, some new (41…60), the rest moved.
            var next = Array(ids.filter { _ in Double.random(in: 0..<1, using: &rng) > 0.15 })
            next += (0..<(round % 20)).map { ItemID(41 + UInt64($0)) }
            var model = try Snapshot(Self.randomSections(&rng, ids: &next))
            for id in model.allItemIDs where id.rawValue % 3 == 0 { try model.setVersion(7, of: id) }
            a.absorb(try a.grid.applyLiveSnapshot(model, aspects: aspects))
            let effects = try Self.replace(&b.grid, with: model, aspects: aspects, part: 1 + round % 9)
            guard case .commit(let c)? = effects.first, c.kind == .liveUpdate, c.updates.isEmpty, effects.count == 1 else {
                Issue.record("not one liveUpdate commit naming no stages: \(effects)")
                continue
            }
            #expect(!b.grid.isReplacing)
            b.shown = b.grid.snapshot
            b.absorb([])  // the engine's invariants and its layout against one prepared from scratch
            #expect(b.grid.snapshot == a.grid.snapshot)
            #expect(b.grid.displayedSnapshot == a.grid.displayedSnapshot)
            #expect(b.grid.placeholders.map(\.id) == a.grid.placeholders.map(\.id))
            #expect(b.grid.session?.items == a.grid.session?.items && b.grid.session?.phase == a.grid.session?.phase)
            #expect(b.grid.focusedItem == a.grid.focusedItem)
            let after = b.grid.displayedSnapshot
            for s in 0..<after.sectionCount {
                for i in 0..<after.itemCount(inSection: s) {
                    let p = IndexPath(item: i, section: s)
                    #expect(b.grid.displayedLayout.frame(of: p) == a.grid.displayedLayout.frame(of: p), "round \(round) at \(p)")
                }
            }
        }
    }
}
