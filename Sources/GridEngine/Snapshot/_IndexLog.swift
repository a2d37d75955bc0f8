/// The index shifts of one section that `moveItem` has not yet written into the snapshot's
/// id table (see `Snapshot._flushIndexLog`).
///
/// Why: after a move the eager upkeep rewrote the table entry of every item whose index
/// changed: a whole span of a section, or both tails for a move between sections, each a
/// random access into a table of megabytes. A move now only appends an edit here (and, when
/// the item changes section, rewrites that one entry's slot); lookups correct the stored
/// index by the edits, and the table is brought up to date in one pass over the edits'
/// affected range ("hull") when the log is full, when the next edit would make that pass
/// much longer than the eager upkeep of the logged edits, or before any other item edit of
/// the section.
///
/// The edits, in order (positions in the section as it was just before each edit):
/// - `rotate(a → b)`, a move within the section: positions in (a, b] go down by one when
///   a < b, positions in [b, a) up by one when a > b; the moved item lands on b.
/// - `remove(at: k)`, the source of a move to another section: positions > k go down by one.
/// - `insert(at: k)`, the destination of a move from another section: positions ≥ k go up
///   by one; the moved item lands on k.
/// An edit may pin the id of the moved item: its position right after that edit is the
/// edit's target.
///
/// Invariant (what makes the lookup and the flush right): an item of the section that no
/// logged edit pins has in the table the index it had before the log's first edit (the table
/// was exact when the log was last empty, and nothing but a flush rewrites those entries);
/// a pinned item's stored index is ignored and its position after its newest pinning edit is
/// that edit's target. So replaying the later edits gives the current position exactly.
/// Each edit maps a position inside its affected range to a position inside the same range
/// and leaves every other position alone, so an item whose position changed since the log
/// began is now inside the union of the edits' ranges: an item currently outside that union
/// has its stored index right, and a flush only rewrites the hull [`lo`, `hi`) — clipped
/// to the section's count — to make every entry exact again.
struct _IndexLog: Sendable {
    struct Edit: Sendable {
        /// `rotate`: a → b; `remove`: a = k, b = -1; `insert`: a = -1, b = k.
        var a: Int32
        var b: Int32
        /// The id of the moved item when `pinned`.
        var pin: UInt64
        var pinned: Bool
    }

    /// At most `capacity` edits.
    static let capacity = 32
    /// A flush may cost at most `slack × work + slackConstant` table writes.
    static let slack = 4
    static let slackConstant = 64

    var edits: [Edit] = []
    /// The hull of the edits' affected ranges: [lo, hi), hi = Int.max once an insert or a
    /// remove reaches the end of the section.
    var lo: Int = Int.max
    var hi: Int = 0
    /// The table writes the eager upkeep would have made for the logged edits.
    var work: Int = 0

    @inline(__always) var isEmpty: Bool { edits.isEmpty }

    /// The current index of an item whose table entry stores `stored`.
    func resolve(_ key: UInt64, stored: Int) -> Int {
        edits.withUnsafeBufferPointer { e in
            var p = stored
            var start = 0
            var k = e.count - 1
            while k >= 0 {
                if e[k].pinned && e[k].pin == key {
                    p = Int(e[k].b)
                    start = k + 1
                    break
                }
                k -= 1
            }
            var j = start
            while j < e.count {
                let a = Int(e[j].a), b = Int(e[j].b)
                if b < 0 {
                    if p > a { p -= 1 }
                } else if a < 0 {
                    if p >= b { p += 1 }
                } else if a < b {
                    if p > a && p <= b { p -= 1 }
                } else {
                    if p >= b && p < a { p += 1 }
                }
                j += 1
            }
            return p
        }
    }

    /// Whether appending an edit with affected range [`editLo`, `editHi`) and eager cost
    /// `editWork` must be preceded by a flush: the log is full, or the flush would then cost
    /// more than `slack × work + slackConstant`. `count` is the section's item count after
    /// the edit.
    func mustFlushBefore(editLo: Int, editHi: Int, editWork: Int, count: Int) -> Bool {
        if edits.isEmpty { return false }
        if edits.count >= _IndexLog.capacity { return true }
        let newLo = min(lo, editLo)
        let newHi = min(max(hi, editHi), count)
        return newHi - newLo > _IndexLog.slack * (work + editWork) + _IndexLog.slackConstant
    }

    mutating func append(_ edit: Edit, lo editLo: Int, hi editHi: Int, work editWork: Int) {
        edits.append(edit)
        lo = min(lo, editLo)
        hi = max(hi, editHi)
        work += editWork
    }

    mutating func removeAll() {
        edits.removeAll(keepingCapacity: true)
        lo = Int.max
        hi = 0
        work = 0
    }
}
