/// The diff behind ``StagedChangeset``: match ids, then emit the three stages.
///
/// Everything is flat arrays indexed by a "flat" item position (section offset + item);
/// ids are looked up in the snapshots' own `_IDTable`s (or a private one, see `_walk`).
/// Positions are packed as `section << 32 | item` in `Int64`, so the code is the same on
/// 64-bit hosts and wasm32.
struct _SnapshotDiffer {
    let source: Snapshot, target: Snapshot
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

    /// With hints (`init(source:target:hints:named:sections:)`): the source positions of every
    /// item that may have left its order, and a mark at each of those positions; no id table is
    /// read. `extraS` / `extraT`: items of sections left out hollow (in both, unchanged), added to
    /// the stages' counts.
    var hints: _IDTable?
    var named: [Bool] = []
    var extraS: [Int] = [], extraT: [Int] = []

    init(source: Snapshot, target: Snapshot) {
        self.source = source
        self.target = target
        S = source._sections
        T = target._sections
    }

    /// A diff of section arrays matched by `sections` (target section → source section, -1 for
    /// one inserted), where only the items at `hints` (id → `section << 32 | item` in `source`)
    /// may have left their order or their section: every other item of a section that stays
    /// stays there, in the same order (a batch moves, deletes and reloads only the items it names;
    /// items new to `target` are inserts; a deleted section goes with its items). Then the walk
    /// matches those others in order and looks up only the hinted ones: no id table of either
    /// side is needed, O(the sections' items) in flat arrays. An item that breaks the promise is
    /// deleted and inserted again instead of moved: still a valid change.
    init(source: [Snapshot._Section], target: [Snapshot._Section], hints: _IDTable, named: [Bool], sections: [Int]) {
        self.source = Snapshot()
        self.target = Snapshot()
        S = source
        T = target
        self.hints = hints
        self.named = named
        secT2S = sections
    }

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

    // Both snapshots already keep id → position tables, so sections match with one lookup
    // each and items mostly without any (see `_walk`). A snapshot whose table holds fewer
    // entries than it has ids holds a duplicate (only `_unchecked` test input can); the
    // slow path names it.

    mutating func _matchSections() throws(DiffError) {
        if hints != nil {
            // Matched by the caller (`secT2S`).
            secS2T = [Int](repeating: -1, count: S.count)
            for t in 0..<T.count where secT2S[t] >= 0 { secS2T[secT2S[t]] = t }
            return
        }
        if source._sectionTable.count != S.count { throw .duplicateSectionInSource(_firstDuplicateSection(S)) }
        if target._sectionTable.count != T.count { throw .duplicateSectionInTarget(_firstDuplicateSection(T)) }
        secS2T = [Int](repeating: -1, count: S.count)
        secT2S = [Int](repeating: -1, count: T.count)
        for t in 0..<T.count {
            let slot = source._sectionTable.find(T[t].id.rawValue)
            if slot < 0 { continue }
            let s = source._slotIndex[Int(slot)]
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
        if hints == nil {
            if source._itemTable.count != n { throw .duplicateItemInSource(_firstDuplicateItem(S)) }
            if target._itemTable.count != m { throw .duplicateItemInTarget(_firstDuplicateItem(T)) }
        }

        var s2t = [Int64](repeating: -1, count: n)
        var t2s = [Int64](repeating: -1, count: m)
        s2t.withUnsafeMutableBufferPointer { s2t in
            t2s.withUnsafeMutableBufferPointer { t2s in
                if let hints { _walkHinted(s2t, t2s, hints) } else { _walk(s2t, t2s) }
            }
        }
        self.s2t = s2t
        self.t2s = t2s
    }

    /// Matches every target item to its source position (see `_matchItems`).
    ///
    /// Walks each target section beside its source section: equal ids are the same item
    /// (ids are unique), so runs that did not change match without hashing. Only the rest
    /// are looked up in the source snapshot's table, and a lookup that lands a little ahead
    /// in the same section jumps the walk past what was deleted or moved away.
    /// That table is usually cold, and dependent lookups in it stall on every miss; when
    /// most items need one (a shuffle), a private table is built instead: its inserts are
    /// stores that overlap, and the lookups that follow hit the cache.
    ///
    /// A snapshot's table may hold stale item indices behind its sections' index logs (see
    /// `_IndexLog`); then its lookups go through `_findResolved`, which replays the log.
    func _walk(_ s2t: UnsafeMutableBufferPointer<Int64>, _ t2s: UnsafeMutableBufferPointer<Int64>) {
        var table = source._itemTable
        var slotIndex = source._slotIndex
        var privateTable = false
        var busyBlocks = 0
        let sourceLogged = source._hasIndexLog
        let targetLogged = target._hasIndexLog
        let targetTable = target._itemTable
        let targetSlotIndex = target._slotIndex
        for t in 0..<T.count {
            let base = tStart[t]
            let targetItems = T[t].items
            let s = secT2S[t]
            let sourceItems = s >= 0 ? S[s].items : []
            let sBase = s >= 0 ? sStart[s] : 0
            var i = 0
            var lookups = 0
            for j in 0..<targetItems.count {
                if j & 31 == 0 {
                    if lookups > 16 && !privateTable {
                        busyBlocks += 1
                        if busyBlocks == 4 {
                            table = _privateSourceTable()
                            slotIndex = Array(0..<S.count)
                            privateTable = true
                        }
                    }
                    lookups = 0
                }
                let id = targetItems[j]
                while i < sourceItems.count && s2t[sBase + i] >= 0 { i += 1 }
                if i < sourceItems.count && sourceItems[i] == id {
                    s2t[sBase + i] = (Int64(t) &<< 32) | Int64(j)
                    t2s[base + j] = (Int64(s) &<< 32) | Int64(i)
                    i += 1
                    continue
                }
                lookups += 1
                let found = sourceLogged && !privateTable ? source._findResolved(id.rawValue) : table.find(id.rawValue)
                if found < 0 { continue }
                let fs = slotIndex[Int(truncatingIfNeeded: found &>> 32)]
                let fi = Int(truncatingIfNeeded: found & 0xFFFF_FFFF)
                s2t[sStart[fs] + fi] = (Int64(t) &<< 32) | Int64(j)
                t2s[base + j] = (Int64(fs) &<< 32) | Int64(fi)
                if fs != s || fi <= i { continue }
                // Jump past sourceItems[i..<fi]? A short gap is cheap to jump even when wrong
                // (those items are then looked up). A long one may mean this item moved back
                // from far ahead, so ask where sourceItems[i] goes: jump unless it stays in
                // this section no further ahead than this item came from.
                let ahead = fi - i
                if ahead <= 8 || privateTable {
                    i = fi + 1
                    continue
                }
                let there = targetLogged ? target._findResolved(sourceItems[i].rawValue) : targetTable.find(sourceItems[i].rawValue)
                if there < 0 || targetSlotIndex[Int(truncatingIfNeeded: there &>> 32)] != t
                    || Int(truncatingIfNeeded: there & 0xFFFF_FFFF) - j > ahead {
                    i = fi + 1
                }
            }
        }
    }

    /// `_walk` with hints (`init(source:target:hints:named:sections:)`): the hinted source items
    /// are passed over in the in-order match and found by their hint; every other item matches the
    /// next unmatched one of its section's source section in order, or (new, from a deleted
    /// section, or breaking the promise) is left unmatched.
    func _walkHinted(_ s2t: UnsafeMutableBufferPointer<Int64>, _ t2s: UnsafeMutableBufferPointer<Int64>, _ hints: _IDTable) {
        named.withUnsafeBufferPointer { named in
            for t in 0..<T.count {
                let s = secT2S[t]
                let base = tStart[t], sBase = s >= 0 ? sStart[s] : 0
                let targetItems = T[t].items, sourceItems = s >= 0 ? S[s].items : []
                var i = 0
                for j in 0..<targetItems.count {
                    let id = targetItems[j]
                    while i < sourceItems.count && (s2t[sBase + i] >= 0 || named[sBase + i]) { i += 1 }
                    if i < sourceItems.count && sourceItems[i] == id {
                        s2t[sBase + i] = (Int64(t) &<< 32) | Int64(j)
                        t2s[base + j] = (Int64(s) &<< 32) | Int64(i)
                        i += 1
                        continue
                    }
                    let found = hints.find(id.rawValue)
                    if found < 0 { continue }
                    let fs = Int(truncatingIfNeeded: found &>> 32), fi = Int(truncatingIfNeeded: found & 0xFFFF_FFFF)
                    s2t[sStart[fs] + fi] = (Int64(t) &<< 32) | Int64(j)
                    t2s[base + j] = (Int64(fs) &<< 32) | Int64(fi)
                }
            }
        }
    }

    /// The source's id → (section index, item) table, built fresh (see `_walk`).
    func _privateSourceTable() -> _IDTable {
        var table = _IDTable(minimumCapacity: sStart[S.count])
        for s in 0..<S.count {
            S[s].items.withUnsafeBufferPointer { items in
                for i in 0..<items.count { _ = table.insertIfAbsent(items[i].rawValue, Snapshot._pack(slot: s, item: i)) }
            }
        }
        return table
    }

    func _firstDuplicateItem(_ sections: [Snapshot._Section]) -> ItemID {
        var seen = _IDTable(minimumCapacity: 0)
        for section in sections {
            for id in section.items where seen.insertIfAbsent(id.rawValue, 0) >= 0 { return id }
        }
        return ItemID(0)
    }

    func _firstDuplicateSection(_ sections: [Snapshot._Section]) -> SectionID {
        var seen = _IDTable(minimumCapacity: 0)
        for section in sections where seen.insertIfAbsent(section.id.rawValue, 0) >= 0 { return section.id }
        return SectionID(0)
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
            stage.itemCountsAfter.append(Int(kept) + (extraS.isEmpty ? 0 : extraS[s]))
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
            stage.itemCountsAfter.append(count + (extraT.isEmpty ? 0 : extraT[t]))
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
