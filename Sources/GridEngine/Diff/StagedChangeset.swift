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
    /// - Throws: a ``DiffError`` when either snapshot holds an id twice.
    public init(from source: Snapshot, to target: Snapshot) throws(DiffError) {
        var differ = _SnapshotDiffer(source: source, target: target)
        stages = try differ.run()
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
