// The crash list of UIKit's performBatchUpdates, as code. `_BatchPlan` checks a batch
// against the snapshot it will be applied to and keeps what `Snapshot.applying(_:)` needs
// (where every old section lands, which old items leave), so apply never re-derives it.

extension BatchUpdate {
    /// Throws the first reason UIKit would reject `stage` on a collection view showing
    /// `snapshot` (or the reason the result would hold a duplicate id).
    /// - Complexity: O(n + changes) for n items in `snapshot`.
    public static func validate(_ stage: BatchUpdate, against snapshot: Snapshot) throws(BatchUpdateError) {
        _ = try _BatchPlan(stage, snapshot)
    }
}

struct _BatchPlan {
    static let _deleted: UInt8 = 1, _moved: UInt8 = 2, _reloaded: UInt8 = 4

    /// For each section after the batch: the old section it continues, or -1 if inserted.
    var newFromOld: [Int]
    /// For each section after the batch: its index in `sectionInserts`, or -1.
    var insertionAt: [Int]
    /// Flat offsets of the old sections' items (count + 1 entries).
    var oldStart: [Int]
    /// Flat offsets of the new sections' items (count + 1 entries).
    var newStart: [Int]
    /// Per old item: `_deleted` / `_moved` / `_reloaded` bits.
    var oldMark: [UInt8]
    /// Per new slot: filled by an insert or a move.
    var newTaken: [Bool]

    init(_ stage: BatchUpdate, _ snapshot: Snapshot) throws(BatchUpdateError) {
        let sections = snapshot._sections
        let ns = sections.count

        // Sections: deletes (old indices).
        var sectionDeleted = [Bool](repeating: false, count: ns)
        for d in stage.sectionDeletes {
            guard d >= 0 && d < ns else { throw .sectionDeleteOutOfRange(d) }
            guard !sectionDeleted[d] else { throw .sectionDeletedTwice(d) }
            sectionDeleted[d] = true
        }
        let nsNew = ns - stage.sectionDeletes.count + stage.sectionInserts.count
        guard stage.itemCountsAfter.count == nsNew else {
            throw .sectionCountMismatch(expected: nsNew, declared: stage.itemCountsAfter.count)
        }
        // Inserts (new indices), each with its contents.
        newFromOld = [Int](repeating: -1, count: nsNew)
        insertionAt = [Int](repeating: -1, count: nsNew)
        for (k, ins) in stage.sectionInserts.enumerated() {
            guard ins.index >= 0 && ins.index < nsNew else { throw .sectionInsertOutOfRange(ins.index) }
            guard insertionAt[ins.index] < 0 else { throw .sectionInsertedTwice(ins.index) }
            guard ins.items.count == ins.versions.count && ins.items.count == stage.itemCountsAfter[ins.index] else {
                throw .sectionInsertContentMismatch(ins.index)
            }
            insertionAt[ins.index] = k
        }
        // Moves (old → new).
        var sectionMoved = [Bool](repeating: false, count: ns)
        for m in stage.sectionMoves {
            guard m.from >= 0 && m.from < ns else { throw .sectionMoveSourceOutOfRange(m.from) }
            guard !sectionDeleted[m.from] else { throw .sectionDeletedAndMoved(m.from) }
            guard !sectionMoved[m.from] else { throw .sectionMovedTwice(m.from) }
            guard m.to >= 0 && m.to < nsNew else { throw .sectionMoveDestinationOutOfRange(m.to) }
            guard insertionAt[m.to] < 0 && newFromOld[m.to] < 0 else { throw .sectionDestinationUsedTwice(m.to) }
            sectionMoved[m.from] = true
            newFromOld[m.to] = m.from
        }
        // The other old sections fill the free new slots in their old order.
        var oldToNew = [Int](repeating: -1, count: ns)
        var slot = 0
        for s in 0..<ns where !sectionDeleted[s] {
            if sectionMoved[s] { continue }
            while insertionAt[slot] >= 0 || newFromOld[slot] >= 0 { slot += 1 }
            newFromOld[slot] = s
            slot += 1
        }
        for t in 0..<nsNew where newFromOld[t] >= 0 { oldToNew[newFromOld[t]] = t }

        // Flat item coordinates, before and after.
        oldStart = [Int](repeating: 0, count: ns + 1)
        for s in 0..<ns { oldStart[s + 1] = oldStart[s] + sections[s].items.count }
        // No valid batch can end with more items than were there plus all it inserts; the
        // bound also keeps hostile counts from overflowing or allocating without limit.
        var bound = oldStart[ns] + stage.itemInserts.count
        for ins in stage.sectionInserts { bound += ins.items.count }
        newStart = [Int](repeating: 0, count: nsNew + 1)
        for t in 0..<nsNew {
            let c = stage.itemCountsAfter[t]
            guard c >= 0 && c <= bound else { throw .itemCountOutOfRange(section: t, declared: c) }
            newStart[t + 1] = newStart[t] + c
            guard newStart[t + 1] <= bound else { throw .itemCountOutOfRange(section: t, declared: c) }
        }
        oldMark = [UInt8](repeating: 0, count: oldStart[ns])
        newTaken = [Bool](repeating: false, count: newStart[nsNew])
        var leaving = [Int](repeating: 0, count: ns)
        var arriving = [Int](repeating: 0, count: nsNew)

        @inline(__always) func oldFlat(_ p: IndexPath) -> Int? {
            guard p.section >= 0 && p.section < ns && p.item >= 0 && p.item < sections[p.section].items.count
            else { return nil }
            return oldStart[p.section] + p.item
        }
        @inline(__always) func newFlat(_ p: IndexPath) -> Int? {
            guard p.section >= 0 && p.section < nsNew && p.item >= 0 && p.item < stage.itemCountsAfter[p.section]
            else { return nil }
            return newStart[p.section] + p.item
        }

        for p in stage.itemDeletes {
            guard let f = oldFlat(p) else { throw .itemDeleteOutOfRange(p) }
            guard !sectionDeleted[p.section] else { throw .itemDeleteInDeletedSection(p) }
            guard oldMark[f] & _BatchPlan._deleted == 0 else { throw .itemDeletedTwice(p) }
            oldMark[f] |= _BatchPlan._deleted
            leaving[p.section] += 1
        }
        for m in stage.itemMoves {
            guard let f = oldFlat(m.from) else { throw .itemMoveSourceOutOfRange(m.from) }
            guard !sectionDeleted[m.from.section] else { throw .itemMoveFromDeletedSection(m.from) }
            guard oldMark[f] & _BatchPlan._deleted == 0 else { throw .itemDeletedAndMoved(m.from) }
            guard oldMark[f] & _BatchPlan._moved == 0 else { throw .itemMovedTwice(m.from) }
            guard let g = newFlat(m.to) else { throw .itemMoveDestinationOutOfRange(m.to) }
            guard insertionAt[m.to.section] < 0 else { throw .itemMoveIntoInsertedSection(m.to) }
            guard !newTaken[g] else { throw .itemDestinationUsedTwice(m.to) }
            oldMark[f] |= _BatchPlan._moved
            newTaken[g] = true
            leaving[m.from.section] += 1
            arriving[m.to.section] += 1
        }
        for ins in stage.itemInserts {
            guard let g = newFlat(ins.at) else { throw .itemInsertOutOfRange(ins.at) }
            guard insertionAt[ins.at.section] < 0 else { throw .itemInsertIntoInsertedSection(ins.at) }
            guard !newTaken[g] else { throw .itemDestinationUsedTwice(ins.at) }
            newTaken[g] = true
            arriving[ins.at.section] += 1
        }
        for r in stage.itemReloads {
            guard let f = oldFlat(r.at) else { throw .itemReloadOutOfRange(r.at) }
            guard !sectionDeleted[r.at.section] else { throw .itemReloadInDeletedSection(r.at) }
            guard oldMark[f] & _BatchPlan._deleted == 0 else { throw .itemDeletedAndReloaded(r.at) }
            guard oldMark[f] & _BatchPlan._moved == 0 else { throw .itemMovedAndReloaded(r.at) }
            guard oldMark[f] & _BatchPlan._reloaded == 0 else { throw .itemReloadedTwice(r.at) }
            oldMark[f] |= _BatchPlan._reloaded
        }
        // "Invalid number of items in section".
        for s in 0..<ns where !sectionDeleted[s] {
            let t = oldToNew[s]
            let expected = sections[s].items.count - leaving[s] + arriving[t]
            guard expected == stage.itemCountsAfter[t] else {
                throw .itemCountMismatch(section: t, expected: expected, declared: stage.itemCountsAfter[t])
            }
        }

        // Ids stay unique: an inserted id must leave in this batch or be new.
        if !stage.sectionInserts.isEmpty {
            var seen = _IDTable(minimumCapacity: stage.sectionInserts.count)
            for ins in stage.sectionInserts {
                guard seen.insertIfAbsent(ins.id.rawValue, 0) < 0 else { throw .duplicateSectionID(ins.id) }
                if let s = snapshot.indexOfSection(ins.id), !sectionDeleted[s] { throw .duplicateSectionID(ins.id) }
            }
        }
        var insertedCount = stage.itemInserts.count
        for ins in stage.sectionInserts { insertedCount += ins.items.count }
        if insertedCount > 0 {
            var seen = _IDTable(minimumCapacity: insertedCount)
            let present = snapshot._itemTable
            let mark = oldMark, start = oldStart
            func check(_ id: ItemID) throws(BatchUpdateError) {
                guard seen.insertIfAbsent(id.rawValue, 0) < 0 else { throw .duplicateItemID(id) }
                let packed = present.find(id.rawValue)
                if packed >= 0 {
                    let p = snapshot._resolve(id.rawValue, packed)
                    if !sectionDeleted[p.section] && mark[start[p.section] + p.item] & _BatchPlan._deleted == 0 {
                        throw .duplicateItemID(id)
                    }
                }
            }
            for ins in stage.itemInserts { try check(ins.id) }
            for s in stage.sectionInserts { for id in s.items { try check(id) } }
        }
    }
}
