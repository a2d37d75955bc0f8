/// The diff behind ``StagedChangeset``: match ids, then emit the three stages.
///
/// Everything is flat arrays indexed by a "flat" item position (section offset + item) and
/// one `_IDTable`; positions are packed as `section << 32 | item` in `Int64`, so the code
/// is the same on 64-bit hosts and wasm32.
struct _SnapshotDiffer {
    let S: [Snapshot._Section]
    let T: [Snapshot._Section]
    /// Flat offsets of the source / target sections.
    var sStart: [Int] = [], tStart: [Int] = []
    /// Source section → target section and back, -1 when deleted / inserted.
    var secS2T: [Int] = [], secT2S: [Int] = []
    /// Flat source item → packed target position, -1 when gone; and target → source.
    var s2t: [Int64] = [], t2s: [Int64] = []
    /// Flat source item → its index after stage 1 (its section's deletes removed), -1 if deleted.
    var postA: [Int32] = []
    var lis = _LongestIncreasingSubsequence()

    init(source: Snapshot, target: Snapshot) {
        S = source._sections
        T = target._sections
    }

    static let _targetOnly: Int64 = 1 &<< 62

    mutating func run() throws(DiffError) -> [BatchUpdate] {
        try _matchSections()
        try _matchItems()
        var stages: [BatchUpdate] = []
        let a = _stageDeletesAndReloads()
        if a.hasChanges { stages.append(a) }
        let b = _stageSections(countsAfterA: a.itemCountsAfter)
        if b.hasChanges { stages.append(b) }
        let c = _stageInsertsAndMoves()
        if c.hasChanges { stages.append(c) }
        return stages
    }

    // MARK: Matching

    mutating func _matchSections() throws(DiffError) {
        let ns = S.count, nt = T.count
        var table = _IDTable(minimumCapacity: ns + nt)
        for s in 0..<ns where table.insertIfAbsent(S[s].id.rawValue, Int64(s)) >= 0 {
            throw .duplicateSectionInSource(S[s].id)
        }
        secS2T = [Int](repeating: -1, count: ns)
        secT2S = [Int](repeating: -1, count: nt)
        for t in 0..<nt {
            // Target-only ids go into the table too, tagged, so a second one is caught.
            let found = table.insertIfAbsent(T[t].id.rawValue, _SnapshotDiffer._targetOnly | Int64(t))
            if found < 0 { continue }
            if found & _SnapshotDiffer._targetOnly != 0 { throw .duplicateSectionInTarget(T[t].id) }
            let s = Int(found)
            if secS2T[s] >= 0 { throw .duplicateSectionInTarget(T[t].id) }
            secS2T[s] = t
            secT2S[t] = s
        }
    }

    mutating func _matchItems() throws(DiffError) {
        sStart = [Int](repeating: 0, count: S.count + 1)
        for s in 0..<S.count { sStart[s + 1] = sStart[s] + S[s].items.count }
        tStart = [Int](repeating: 0, count: T.count + 1)
        for t in 0..<T.count { tStart[t + 1] = tStart[t] + T[t].items.count }
        let n = sStart[S.count], m = tStart[T.count]

        var table = _IDTable(minimumCapacity: n)
        for s in 0..<S.count {
            let items = S[s].items
            for i in 0..<items.count {
                let existing = table.insertIfAbsent(items[i].rawValue, (Int64(s) &<< 32) | Int64(i))
                if existing >= 0 { throw .duplicateItemInSource(items[i]) }
            }
        }
        s2t = [Int64](repeating: -1, count: n)
        t2s = [Int64](repeating: -1, count: m)
        let sStart = self.sStart, tStart = self.tStart
        var s2t = self.s2t, t2s = self.t2s
        self.s2t = []; self.t2s = []
        defer { self.s2t = s2t; self.t2s = t2s }
        for t in 0..<T.count {
            let items = T[t].items
            let base = tStart[t]
            for j in 0..<items.count {
                let packed = (Int64(t) &<< 32) | Int64(j)
                let found = table.insertIfAbsent(items[j].rawValue, _SnapshotDiffer._targetOnly | packed)
                if found < 0 { continue }
                if found & _SnapshotDiffer._targetOnly != 0 { throw .duplicateItemInTarget(items[j]) }
                let f = sStart[Int(found &>> 32)] + Int(found & 0xFFFF_FFFF)
                if s2t[f] >= 0 { throw .duplicateItemInTarget(items[j]) }
                s2t[f] = packed
                t2s[base + j] = found
            }
        }
    }

    // MARK: Stages

    /// Stage 1: section deletes, item deletes and reloads, in source positions.
    mutating func _stageDeletesAndReloads() -> BatchUpdate {
        var stage = BatchUpdate()
        postA = [Int32](repeating: -1, count: sStart[S.count])
        for s in 0..<S.count {
            if secS2T[s] < 0 {
                stage.sectionDeletes.append(s)
                continue
            }
            let items = S[s].items, versions = S[s].versions
            let base = sStart[s]
            var kept: Int32 = 0
            for i in 0..<items.count {
                let p = s2t[base + i]
                // Gone, or bound for a section that stage 2 inserts whole: delete here.
                if p < 0 || secT2S[Int(p &>> 32)] < 0 {
                    stage.itemDeletes.append(IndexPath(item: i, section: s))
                    continue
                }
                let newVersion = T[Int(p &>> 32)].versions[Int(p & 0xFFFF_FFFF)]
                if newVersion != versions[i] {
                    stage.itemReloads.append(ItemReload(at: IndexPath(item: i, section: s), version: newVersion))
                }
                postA[base + i] = kept
                kept += 1
            }
            stage.itemCountsAfter.append(Int(kept))
        }
        return stage
    }

    /// Stage 2: section inserts (whole) and the fewest section moves.
    mutating func _stageSections(countsAfterA: [Int]) -> BatchUpdate {
        var stage = BatchUpdate()
        // Position of each surviving source section after stage 1.
        var rank = [Int](repeating: -1, count: S.count)
        var r = 0
        for s in 0..<S.count where secS2T[s] >= 0 { rank[s] = r; r += 1 }

        var keys: [Int32] = []
        var targets: [Int] = []
        for t in 0..<T.count {
            let s = secT2S[t]
            if s < 0 {
                stage.sectionInserts.append(SectionInsertion(index: t, id: T[t].id, items: T[t].items, versions: T[t].versions))
                stage.itemCountsAfter.append(T[t].items.count)
            } else {
                keys.append(Int32(truncatingIfNeeded: rank[s]))
                targets.append(t)
                stage.itemCountsAfter.append(countsAfterA[rank[s]])
            }
        }
        var keep = [Bool](repeating: true, count: keys.count)
        keys.withUnsafeBufferPointer { k in
            keep.withUnsafeMutableBufferPointer { lis.mark(k, count: keys.count, keep: $0) }
        }
        for k in 0..<keys.count where !keep[k] {
            stage.sectionMoves.append(SectionMove(from: Int(keys[k]), to: targets[k]))
        }
        return stage
    }

    /// Stage 3: item inserts and the fewest item moves, into target positions.
    mutating func _stageInsertsAndMoves() -> BatchUpdate {
        var stage = BatchUpdate()
        var maxCount = 0
        for t in 0..<T.count { maxCount = max(maxCount, T[t].items.count) }
        // Same-section candidates of one target section: their index after stage 2 and
        // their target index.
        var keys = [Int32](repeating: 0, count: maxCount)
        var slots = [Int32](repeating: 0, count: maxCount)
        var keep = [Bool](repeating: false, count: maxCount)

        for t in 0..<T.count {
            let count = T[t].items.count
            stage.itemCountsAfter.append(count)
            let s = secT2S[t]
            if s < 0 { continue }  // inserted whole in stage 2
            let base = tStart[t]
            var k = 0
            var sorted = true
            for j in 0..<count {
                let p = t2s[base + j]
                if p < 0 || secS2T[Int(p &>> 32)] < 0 {
                    // New, or its section went away in stage 1.
                    stage.itemInserts.append(ItemInsertion(at: IndexPath(item: j, section: t), id: T[t].items[j], version: T[t].versions[j]))
                    continue
                }
                let ps = Int(p &>> 32)
                let key = postA[sStart[ps] + Int(p & 0xFFFF_FFFF)]
                if ps == s {
                    if k > 0 && keys[k - 1] > key { sorted = false }
                    keys[k] = key
                    slots[k] = Int32(truncatingIfNeeded: j)
                    k += 1
                } else {
                    // Stage 2 put the source section at its target index.
                    stage.itemMoves.append(ItemMove(from: IndexPath(item: Int(key), section: secS2T[ps]), to: IndexPath(item: j, section: t)))
                }
            }
            if sorted { continue }
            keys.withUnsafeBufferPointer { kb in
                keep.withUnsafeMutableBufferPointer { lis.mark(kb, count: k, keep: $0) }
            }
            for i in 0..<k where !keep[i] {
                stage.itemMoves.append(ItemMove(from: IndexPath(item: Int(keys[i]), section: t), to: IndexPath(item: Int(slots[i]), section: t)))
            }
        }
        return stage
    }
}
