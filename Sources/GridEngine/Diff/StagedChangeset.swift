/// The difference between two snapshots as an ordered list of ``BatchUpdate`` stages, each
/// safe for one `performBatchUpdates` (UIKit's rules, see ``BatchUpdate``). Applying the
/// stages in order to the source gives exactly the target.
///
///     let changes = try StagedChangeset(from: shown, to: latest)
///     for stage in changes.stages { try shown.apply(stage) }   // shown == latest
///     changes.moveCount                                         // ≈ items really moved
///
/// Staging follows DifferenceKit (Paul Heckel's matching plus stages), because UIKit
/// rejects or mis-animates some combinations inside one batch: an item both reloaded and
/// moved, item moves mixed with section moves, item changes in sections being deleted or
/// inserted. At most three stages, each omitted when empty:
/// 1. section deletes, item deletes, reloads (all in source positions);
/// 2. section inserts (with their contents) and section moves;
/// 3. item inserts and item moves (into target positions).
/// Items moving into an inserted section leave in stage 1 and arrive with it in stage 2;
/// items leaving a deleted section go with it and arrive as inserts in stage 3.
/// Moves are minimal per section: a longest increasing subsequence stays, the rest moves.
/// Complexity: O(n + m + k log k) for n source and m target items, k items compared by
/// the subsequence pass; ids are matched with an open-addressing table, no `Dictionary`.
public struct StagedChangeset: Equatable, Sendable {
    public var stages: [BatchUpdate]

    public init(stages: [BatchUpdate]) { self.stages = stages }

    /// The staged difference from `source` to `target`.
    ///
    /// When `target` is `source` edited (or the other way round) without a section change, only
    /// the sections whose arrays no longer share storage with the other's are compared: O(the
    /// items of the sections that changed), not O(n) — a server batch of a few operations on a
    /// gallery of a million items diffs the handful of sections it touched (issue 15).
    /// - Throws: a ``DiffError`` when either snapshot holds an id twice.
    public init(from source: Snapshot, to target: Snapshot) throws(DiffError) {
        if let changed = source._sectionsChanged(in: target), changed.count < source.sectionCount {
            stages = try Self._diff(source._sections, target._sections, onlySections: changed)
        } else {
            var differ = _SnapshotDiffer(source: source, target: target)
            stages = try differ.run()
        }
    }

    /// The staged difference comparing every section (what `init(from:to:)` did before it
    /// learned to skip the sections that did not change): the baseline of the benchmarks.
    public init(wholeFrom source: Snapshot, to target: Snapshot) throws(DiffError) {
        var differ = _SnapshotDiffer(source: source, target: target)
        stages = try differ.run()
    }

    /// The staged difference from the sections `source` held when they were taken
    /// (``Snapshot/sections(naming:)``) to `target`, that snapshot since edited in place:
    /// O(sections + the items of the sections whose arrays changed, added or removed), also when
    /// sections were added, removed or moved — the very stages of the whole diff when the edit kept
    /// its promise. Only input with a repeated id gets the whole diff (the source's tables built
    /// again, O(n)), which names it.
    public init(from source: Snapshot.Sections, to target: Snapshot) throws(DiffError) {
        if source._unique, target._isUnique, let diffed = Self._diff(source._sections, target._sections, hints: source._named) {
            stages = diffed
        } else {
            var differ = _SnapshotDiffer(source: source.snapshot, target: target)
            stages = try differ.run()
        }
    }

    /// The diff of the sections at `changed` (ascending) alone, its index paths and item counts
    /// put back in the whole snapshots' terms. Both hold the same sections in the same order
    /// (`Snapshot._sectionsChanged`), so no item enters or leaves a section outside `changed`
    /// and the stages hold no section change.
    static func _diff(_ source: [Snapshot._Section], _ target: [Snapshot._Section], onlySections changed: [Int]) throws(DiffError) -> [BatchUpdate] {
        if changed.isEmpty { return [] }
        func part(_ s: [Snapshot._Section]) -> Snapshot {
            // The ids are unique in the whole snapshot (checked by the caller), so in the part too;
            // checked, a big part's table is built in bulk (`_IDTable.init(bulk:)`).
            (try? Snapshot(_sections: changed.map { s[$0] }, checked: true)) ?? Snapshot()
        }
        var differ = _SnapshotDiffer(source: part(source), target: part(target))
        return _whole(try differ.run(), source, onlySections: changed)
    }

    /// The diff when only the items at `hints` (id, section, item in `source`) may have left their
    /// order or section (`_SnapshotDiffer.init(source:target:hints:named:sections:)`); sections may
    /// have been added, removed or moved. Sections are matched by id (a table of the source's
    /// section ids, O(sections)); one in both whose arrays are still shared (copy-on-write: not
    /// changed) is left out hollow — none of its items walked, only its count added to the stages'
    /// — and the changed ones are walked without an id table: O(sections + the items of the
    /// sections changed, added or deleted + hints). A deleted section's items need no hint unless
    /// the same section comes back (a restore after a section delete): then every one of them does
    /// (`Snapshot.sections(naming:wholeSections:)`). Nil when a section id is repeated.
    static func _diff(_ source: [Snapshot._Section], _ target: [Snapshot._Section],
                      hints: [(id: ItemID, at: IndexPath)]) -> [BatchUpdate]? {
        var sectionTable = _IDTable(minimumCapacity: source.count)
        for s in 0..<source.count where sectionTable.insertIfAbsent(source[s].id.rawValue, Int64(s)) >= 0 { return nil }
        var S = source, T = target
        var sections = [Int](repeating: -1, count: T.count), taken = [Bool](repeating: false, count: S.count)
        var extraS = [Int](repeating: 0, count: S.count), extraT = [Int](repeating: 0, count: T.count)
        for t in 0..<T.count {
            let found = sectionTable.find(T[t].id.rawValue)
            if found < 0 { continue }
            let s = Int(found)
            if taken[s] { return nil }
            taken[s] = true
            sections[t] = s
            if Snapshot._sharesArrays(source[s], target[t]) {
                extraS[s] = source[s].items.count
                extraT[t] = target[t].items.count
                S[s].items = []; S[s].versions = []
                T[t].items = []; T[t].versions = []
            }
        }
        var start = [Int](repeating: 0, count: S.count + 1)
        for s in 0..<S.count { start[s + 1] = start[s] + S[s].items.count }
        var table = _IDTable(minimumCapacity: hints.count)
        var named = [Bool](repeating: false, count: start[S.count])
        for h in hints {
            // A hint in a hollow section is passed over: its item did not leave its place.
            guard h.at.section >= 0, h.at.section < S.count, h.at.item >= 0, h.at.item < S[h.at.section].items.count,
                  S[h.at.section].items[h.at.item] == h.id else { continue }
            _ = table.insertIfAbsent(h.id.rawValue, Snapshot._pack(slot: h.at.section, item: h.at.item))
            named[start[h.at.section] + h.at.item] = true
        }
        var differ = _SnapshotDiffer(source: S, target: T, hints: table, named: named, sections: sections)
        differ.extraS = extraS
        differ.extraT = extraT
        // Without id tables nothing can throw (a repeated id was ruled out by the caller).
        return (try? differ.run()) ?? []
    }

    /// Stages of the sections at `changed` put back in the whole snapshots' terms.
    static func _whole(_ part: [BatchUpdate], _ source: [Snapshot._Section], onlySections changed: [Int]) -> [BatchUpdate] {
        var stages = part
        var counts = [Int](repeating: 0, count: source.count)
        for s in 0..<counts.count { counts[s] = source[s].items.count }
        @inline(__always) func whole(_ p: IndexPath) -> IndexPath { IndexPath(item: p.item, section: changed[p.section]) }
        for k in 0..<stages.count {
            for i in 0..<stages[k].itemDeletes.count { stages[k].itemDeletes[i] = whole(stages[k].itemDeletes[i]) }
            for i in 0..<stages[k].itemInserts.count { stages[k].itemInserts[i].at = whole(stages[k].itemInserts[i].at) }
            for i in 0..<stages[k].itemMoves.count {
                stages[k].itemMoves[i].from = whole(stages[k].itemMoves[i].from)
                stages[k].itemMoves[i].to = whole(stages[k].itemMoves[i].to)
            }
            for i in 0..<stages[k].itemReloads.count { stages[k].itemReloads[i].at = whole(stages[k].itemReloads[i].at) }
            for (j, s) in changed.enumerated() { counts[s] = stages[k].itemCountsAfter[j] }
            stages[k].itemCountsAfter = counts
        }
        return stages
    }

    /// Whether the snapshots were equal (no stage at all).
    public var isEmpty: Bool { stages.isEmpty }

    /// Item and section moves over all stages.
    public var moveCount: Int {
        var n = 0
        for s in stages { n += s.itemMoves.count + s.sectionMoves.count }
        return n
    }

    /// Every delete, insert, move and reload over all stages.
    public var changeCount: Int {
        var n = 0
        for s in stages { n += s.changeCount }
        return n
    }
}
