@testable import GridEngine

/// Builders and random generators shared by the snapshot and diff tests.
enum SnapshotFixtures {
    /// A snapshot from `(section id, [item ids])` pairs, all versions 0.
    static func make(_ spec: [(UInt64, [UInt64])]) -> Snapshot {
        // A fixture with a duplicate is a bug in the test itself, so trapping is right here.
        do { return try Snapshot(spec.map { (id: SectionID($0.0), items: $0.1.map { ItemID($0) }) }) }
        catch { fatalError("bad fixture: \(error.message)") }
    }

    /// The layout of a snapshot as plain numbers, for readable expectations.
    static func raw(_ s: Snapshot) -> [[UInt64]] {
        (0..<s.sectionCount).map { [s.sectionID(at: $0).rawValue] + s.items(inSection: $0).map(\.rawValue) }
    }

    /// A random snapshot: 1...maxSections sections (some empty) of fresh ids from `nextID`.
    static func random(
        sections maxSections: Int, items maxItems: Int, nextID: inout UInt64, using rng: inout SeededGenerator
    ) -> Snapshot {
        var s = Snapshot()
        let count = Int.random(in: 1...maxSections, using: &rng)
        for _ in 0..<count {
            let n = Int.random(in: 0...maxItems, using: &rng)
            var ids: [ItemID] = []
            for _ in 0..<n { ids.append(ItemID(nextID)); nextID += 1 }
            let sid = SectionID(nextID); nextID += 1
            try! s.appendSection(sid, items: ids)
        }
        return s
    }

    /// Applies `count` random edits through the public mutations: section deletes,
    /// inserts and moves, item deletes, inserts, moves (within and across sections) and
    /// reloads. Checks the snapshot's invariants after each edit.
    static func randomlyEdit(
        _ s: inout Snapshot, edits count: Int, nextID: inout UInt64, using rng: inout SeededGenerator
    ) throws(SnapshotError) {
        for _ in 0..<count {
            let roll = Int.random(in: 0..<100, using: &rng)
            let total = s.itemCount
            switch roll {
            case 0..<5 where s.sectionCount > 0:
                try s.deleteSection(at: Int.random(in: 0..<s.sectionCount, using: &rng))
            case 5..<10:
                let n = Int.random(in: 0...4, using: &rng)
                var ids: [ItemID] = []
                for _ in 0..<n { ids.append(ItemID(nextID)); nextID += 1 }
                let sid = SectionID(nextID); nextID += 1
                try s.insertSection(sid, items: ids, at: Int.random(in: 0...s.sectionCount, using: &rng))
            case 10..<18 where s.sectionCount > 1:
                try s.moveSection(from: Int.random(in: 0..<s.sectionCount, using: &rng),
                                  to: Int.random(in: 0..<s.sectionCount, using: &rng))
            case 18..<35 where total > 0:
                try s.deleteItems([randomItem(s, using: &rng)])
            case 35..<55 where s.sectionCount > 0:
                let sec = Int.random(in: 0..<s.sectionCount, using: &rng)
                let at = Int.random(in: 0...s.itemCount(inSection: sec), using: &rng)
                let n = Int.random(in: 1...3, using: &rng)
                var ids: [ItemID] = []
                for _ in 0..<n { ids.append(ItemID(nextID)); nextID += 1 }
                try s.insertItems(ids, at: IndexPath(item: at, section: sec))
            case 55..<85 where total > 0:
                let id = randomItem(s, using: &rng)
                let from = s.indexPath(of: id)!
                let sec = Int.random(in: 0..<s.sectionCount, using: &rng)
                let limit = s.itemCount(inSection: sec) - (sec == from.section ? 1 : 0)
                try s.moveItem(id, to: IndexPath(item: Int.random(in: 0...limit, using: &rng), section: sec))
            case 85..<100 where total > 0:
                try s.reloadItems([randomItem(s, using: &rng)])
            default:
                break
            }
            s.checkInvariants()
        }
    }

    static func randomItem(_ s: Snapshot, using rng: inout SeededGenerator) -> ItemID {
        let all = s.allItemIDs
        return all[Int.random(in: 0..<all.count, using: &rng)]
    }
}
