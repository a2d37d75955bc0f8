// Single-item moves under load (issue 15, target 3): what the server's per-gallery
// snapshot and the page's model pay per move, over long runs of random moves so that any
// deferred bookkeeping (and its catching up) is inside the figure.
import GridEngine

/// A recorded run of valid moves: replaying `moves` forward and then `undo` (each item back
/// to where it came from, newest first) leaves the snapshot as it began.
struct MoveRun {
    var moves: [(id: ItemID, to: IndexPath)] = []
    var undo: [(id: ItemID, to: IndexPath)] = []

    /// `count` random moves chosen on a copy of `start`: across sections (`across`) or within
    /// the item's own section, to a random place or at most `reach` places along.
    init(_ start: Snapshot, count: Int, across: Bool, reach: Int?, seed: UInt64) {
        var s = start
        var rng = SeededGenerator(seed: seed)
        let total = s.itemCount
        let base = s.items(inSection: 0).first!.rawValue
        for _ in 0..<count {
            let id = ItemID(base + UInt64.random(in: 0..<UInt64(total), using: &rng))
            let from = s.indexPath(of: id)!
            var to: IndexPath
            if across {
                var sec = Int.random(in: 0..<s.sectionCount - 1, using: &rng)
                if sec >= from.section { sec += 1 }
                to = IndexPath(item: Int.random(in: 0...s.itemCount(inSection: sec), using: &rng), section: sec)
            } else {
                let last = s.itemCount(inSection: from.section) - 1
                if let reach {
                    var item = from.item + (Bool.random(using: &rng) ? reach : -reach)
                    if item < 0 || item > last { item = from.item - (item - from.item) }
                    to = IndexPath(item: item, section: from.section)
                } else {
                    to = IndexPath(item: Int.random(in: 0...last, using: &rng), section: from.section)
                }
            }
            if to == from { continue }
            try! s.moveItem(id, to: to)
            moves.append((id, to))
            undo.append((id, from))
        }
        undo.reverse()
    }

    func forward(_ s: inout Snapshot) { for m in moves { try! s.moveItem(m.id, to: m.to) } }
    func back(_ s: inout Snapshot) { for m in undo { try! s.moveItem(m.id, to: m.to) } }
}

func makeSections(_ sections: Int, of per: Int) -> Snapshot {
    var built: [(id: SectionID, items: [ItemID])] = []
    var next: UInt64 = 1
    for k in 0..<sections {
        var ids: [ItemID] = []
        ids.reserveCapacity(per)
        for _ in 0..<per { ids.append(ItemID(next)); next += 1 }
        built.append((SectionID(UInt64(k + 1)), ids))
    }
    return try! Snapshot(built)
}

func runMoveBenchmarks() {
    print("")
    print("### Single-item moves in long runs (per move, median of the runs)")
    print("")
    printRow(["workload", "moves per run", "per move", "slowest single move (one run timed move by move)",
              "indexPath(of:) after the run (per lookup)"])
    printRow(["---", "---:", "---:", "---:", "---:"])
    let cases: [(name: String, sections: Int, per: Int, count: Int, across: Bool, reach: Int?)] = [
        ("random move across sections, 100k in 10 sections", 10, 10_000, 1_000, true, nil),
        ("random move within its section, 100k in 10 sections", 10, 10_000, 1_000, false, nil),
        ("random move within one 1M-item section", 1, 1_000_000, 100, false, nil),
        ("10-place move at a random place, one 1M-item section", 1, 1_000_000, 2_000, false, 10),
    ]
    var dirty100k: Snapshot? = nil
    for c in cases {
        var s = makeSections(c.sections, of: c.per)
        let run = MoveRun(s, count: c.count, across: c.across, reach: c.reach, seed: 15)
        // Each sample: the run forward and back (the snapshot ends as it began).
        let timing = measure(c.name, iterations: 7) {
            run.forward(&s)
            run.back(&s)
        }
        // The worst single move of one more run forward and back, each move timed alone:
        // a deferred write must not turn one move into a spike.
        var slowest: UInt64 = 0
        for m in run.moves + run.undo {
            let t0 = nowNanos()
            try! s.moveItem(m.id, to: m.to)
            slowest = max(slowest, nowNanos() - t0)
        }
        // A lookup right after moves (the snapshot as a server holds it between moves).
        run.forward(&s)
        var rng = SeededGenerator(seed: 3)
        let probes = (0..<10_000).map { _ in ItemID(UInt64.random(in: 1...UInt64(c.sections * c.per), using: &rng)) }
        let lookup = measure("lookup", iterations: 9) { for id in probes { blackHole(s.indexPath(of: id)) } }
        s.checkInvariants()
        if c.sections == 10 && c.across { dirty100k = s }
        printRow([c.name, "\(run.moves.count) + \(run.undo.count) back", formatNanos(timing.medianNanos / Double(2 * run.moves.count)),
                  formatNanos(Double(slowest)), formatNanos(lookup.medianNanos / Double(probes.count))])
    }
    // The diff from a snapshot right after 1,000 moves (as the page diffs its model) to a
    // random shuffle of the same items and to the same snapshot with 10 more moves.
    if let source = dirty100k {
        var rng = SeededGenerator(seed: 21)
        var all = source.allItemIDs
        all.shuffle(using: &rng)
        var shuffled: [(id: SectionID, items: [ItemID])] = []
        var k = 0
        for sec in 0..<source.sectionCount {
            let n = source.itemCount(inSection: sec)
            shuffled.append((source.sectionID(at: sec), Array(all[k..<(k + n)])))
            k += n
        }
        let shuffleTarget = try! Snapshot(shuffled)
        var nearTarget = source
        MoveRun(source, count: 10, across: true, reach: nil, seed: 22).forward(&nearTarget)
        printRow(["---", "", "", "", ""])
        for (name, target) in [("diff after 1,000 moves → random shuffle (100k)", shuffleTarget),
                               ("diff after 1,000 moves → 10 more moves (100k)", nearTarget)] {
            let changes = try! StagedChangeset(from: source, to: target)
            var shown = source
            for stage in changes.stages { shown = try! shown.applying(stage) }
            precondition(shown == target, "diff did not replay to the target")
            let t = measure(name, iterations: 11) { blackHole(try! StagedChangeset(from: source, to: target)) }
            printRow([name, "-", formatNanos(t.medianNanos), "-", "-"])
        }
    }
}
