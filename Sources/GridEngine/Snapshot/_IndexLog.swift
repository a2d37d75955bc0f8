/// The index shifts of one section that `moveItem` has not yet written into the snapshot's
/// id table (see `Snapshot._flushIndexLog`).
///
/// Why: after a move the eager upkeep rewrote the table entry of every item whose index
/// changed: a whole span of a section, or both tails for a move between sections, each a
/// random access into a table of megabytes. A move now only appends an edit here (and, when
/// the item changes section, rewrites that one entry's slot); lookups correct the stored
/// index by the edits, and the table is brought up to date in one pass over the edits'
/// affected range (the "hull") when the log is full, when the next edit would make that
/// pass longer than `slack` × the largest single renumbering the eager upkeep would have
/// done for one of the logged edits (+ `slackConstant`), or before any other item edit of
/// the section. So a flush never costs more than about twice the worst eager move it
/// replaces (no spike in a frame of the page), and all flushes together at most about
/// twice the eager total.
///
/// The edits, in order (positions in the section as it was just before each edit):
/// - `rotate(a → b)`, a move within the section: positions in (a, b] go down by one when
///   a < b, positions in [b, a) up by one when a > b; the moved item lands on b.
/// - `remove(at: k)`, the source of a move to another section: positions > k go down by one.
/// - `insert(at: k)`, the destination of a move from another section: positions ≥ k go up
///   by one; the moved item lands on k.
/// Rotate and insert pin the id of the moved item: its position right after that edit is
/// the edit's target.
///
/// Invariant (what makes the lookup and the flush right): an item of the section that no
/// logged edit pins has in the table the index it had before the log's first edit (the table
/// was exact when the log was last empty, and nothing but a flush rewrites those entries);
/// a pinned item's stored index is ignored and its position after its newest pinning edit is
/// that edit's target (it cannot have left the section and come back since without a newer
/// pin: a move back pins it again, an insert flushes the log). So replaying the edits from
/// there gives the current position exactly. Each edit maps a position inside its affected
/// range to a position inside the same range and leaves every other position alone, so an
/// item whose position changed since the log began is now inside the union of the edits'
/// ranges: an item currently outside that union has its stored index right, and a flush
/// only rewrites the hull [`lo`, `hi`) — clipped to the section's count — to make every
/// entry exact again (`Snapshot.checkInvariants` checks both halves).
struct _IndexLog: Sendable {
    /// One edit as the shift it applies: positions in `lo...hi` move by `delta`; then the
    /// pinned item (when `target` ≥ 0) is at `target`.
    struct Edit: Sendable {
        var lo: Int32
        var hi: Int32
        var delta: Int32
        var target: Int32
        var pin: UInt64

        static func rotate(from a: Int, to b: Int, id: UInt64) -> Edit {
            a < b ? Edit(lo: Int32(a + 1), hi: Int32(b), delta: -1, target: Int32(b), pin: id)
                  : Edit(lo: Int32(b), hi: Int32(a - 1), delta: 1, target: Int32(b), pin: id)
        }
        static func remove(at k: Int) -> Edit {
            Edit(lo: Int32(k + 1), hi: Int32.max, delta: -1, target: -1, pin: 0)
        }
        static func insert(at k: Int, id: UInt64) -> Edit {
            Edit(lo: Int32(k), hi: Int32.max, delta: 1, target: Int32(k), pin: id)
        }
    }

    /// At most `capacity` edits.
    static let capacity = 32
    /// A flush may cost at most `slack × maxSpan + slackConstant` table writes.
    static let slack = 2
    static let slackConstant = 64

    var edits: [Edit] = []
    /// The hull of the edits' affected ranges: [lo, hi), hi = Int.max once an insert or a
    /// remove reaches the end of the section.
    var lo: Int = Int.max
    var hi: Int = 0
    /// The most table writes the eager upkeep would have made for one logged edit.
    var maxSpan: Int = 0

    @inline(__always) var isEmpty: Bool { edits.isEmpty }

    /// The current index of item `key` whose table entry stores `stored`: one pass over the
    /// edits (a pinned edit of this id overrides what the earlier edits gave). O(edits).
    func resolve(_ key: UInt64, stored: Int) -> Int {
        edits.withUnsafeBufferPointer { e in
            var p = Int32(truncatingIfNeeded: stored)
            for j in 0..<e.count {
                let edit = e[j]
                let inside = UInt32(bitPattern: p &- edit.lo) <= UInt32(bitPattern: edit.hi &- edit.lo)
                p = inside ? p &+ edit.delta : p
                p = edit.pin == key && edit.target >= 0 ? edit.target : p
            }
            return Int(p)
        }
    }

    /// Whether appending an edit with affected range [`editLo`, `editHi`) and eager cost
    /// `editSpan` must be preceded by a flush: the log is full, or its flush would then cost
    /// more than `slack × maxSpan + slackConstant`. `count` is the section's item count
    /// after the edit.
    func mustFlushBefore(editLo: Int, editHi: Int, editSpan: Int, count: Int) -> Bool {
        if edits.isEmpty { return false }
        if edits.count >= _IndexLog.capacity { return true }
        let newLo = min(lo, editLo)
        let newHi = min(max(hi, editHi), count)
        return newHi - newLo > _IndexLog.slack * max(maxSpan, editSpan) + _IndexLog.slackConstant
    }

    mutating func append(_ edit: Edit, lo editLo: Int, hi editHi: Int, span: Int) {
        edits.append(edit)
        lo = min(lo, editLo)
        hi = max(hi, editHi)
        maxSpan = max(maxSpan, span)
    }

    mutating func removeAll() {
        edits.removeAll(keepingCapacity: true)
        lo = Int.max
        hi = 0
        maxSpan = 0
    }
}
