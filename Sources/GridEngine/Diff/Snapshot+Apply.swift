extension Snapshot {
    /// The snapshot after `stage`, with exactly UIKit's batch-update semantics (see
    /// ``BatchUpdate``). Validates first: a batch UIKit would reject throws, never traps.
    ///
    ///     var shown = old
    ///     for stage in changes.stages { try shown.apply(stage) }
    ///     // shown == new
    ///
    /// - Complexity: O(n + changes).
    public func applying(_ stage: BatchUpdate) throws(BatchUpdateError) -> Snapshot {
        let result = try _appliedSections(stage)
        // The validator kept ids unique, so the unchecked build cannot lose anything.
        let out = (try? Snapshot(_sections: result, checked: false)) ?? Snapshot()
        return out
    }

    /// The sections after `stage` (validated first), without the lookup tables: `applying`
    /// builds them for the whole result, `applyInPlace` updates its own for the touched sections.
    func _appliedSections(_ stage: BatchUpdate) throws(BatchUpdateError) -> [_Section] {
        let plan = try _BatchPlan(stage, self)
        let nsNew = stage.itemCountsAfter.count
        let total = plan.newStart[nsNew]

        // Inserts and moves land on their slots first...
        var ids = [ItemID](repeating: ItemID(0), count: total)
        var versions = [UInt32](repeating: 0, count: total)
        for ins in stage.itemInserts {
            let g = plan.newStart[ins.at.section] + ins.at.item
            ids[g] = ins.id
            versions[g] = ins.version
        }
        for m in stage.itemMoves {
            let g = plan.newStart[m.to.section] + m.to.item
            ids[g] = _sections[m.from.section].items[m.from.item]
            versions[g] = _sections[m.from.section].versions[m.from.item]
        }
        var reloaded = _IDTable(minimumCapacity: stage.itemReloads.count)
        for r in stage.itemReloads {
            _ = reloaded.insertIfAbsent(UInt64(plan.oldStart[r.at.section] + r.at.item), Int64(r.version))
        }

        // ...then the items that stay fill the free slots of their section in old order.
        var result: [_Section] = []
        result.reserveCapacity(nsNew)
        for t in 0..<nsNew {
            let k = plan.insertionAt[t]
            if k >= 0 {
                let ins = stage.sectionInserts[k]
                result.append(_Section(id: ins.id, slot: 0, items: ins.items, versions: ins.versions))
                continue
            }
            let s = plan.newFromOld[t]
            let old = _sections[s]
            var g = plan.newStart[t]
            let end = plan.newStart[t + 1]
            for i in 0..<old.items.count {
                let f = plan.oldStart[s] + i
                let mark = plan.oldMark[f]
                if mark & (_BatchPlan._deleted | _BatchPlan._moved) != 0 { continue }
                while plan.newTaken[g] { g += 1 }
                ids[g] = old.items[i]
                versions[g] = old.versions[i]
                if mark & _BatchPlan._reloaded != 0 { versions[g] = UInt32(truncatingIfNeeded: reloaded.find(UInt64(f))) }
                g += 1
            }
            let lo = plan.newStart[t]
            result.append(_Section(id: old.id, slot: 0, items: Array(ids[lo..<end]), versions: Array(versions[lo..<end])))
        }
        return result
    }

    /// Applies `stage` in place (see ``applying(_:)``); on a throw the snapshot is unchanged.
    public mutating func apply(_ stage: BatchUpdate) throws(BatchUpdateError) {
        self = try applying(stage)
    }

    /// Applies `stage` in place with the same result and the same errors as ``applying(_:)``,
    /// but rewriting only the sections the stage touches: a stage that changes items and not
    /// sections (a move, a trash, a copy, a reload) costs O(changes + sections + items of the
    /// touched sections), not O(n). The touched sections are taken out as a small snapshot,
    /// `applying` runs on that (with the stage's section indices mapped onto it), and the
    /// result is put back with the id table updated for those sections only. A stage with
    /// section edits, or one that does not validate, goes through `applying` on the whole
    /// snapshot (so a rejected stage throws exactly what `applying` throws and changes nothing).
    /// What a history replay uses (a catch-up window checked after a restart: thousands of
    /// versions of a 1M-item gallery).
    public mutating func applyInPlace(_ stage: BatchUpdate) throws(BatchUpdateError) {
        let ns = _sections.count
        guard stage.sectionDeletes.isEmpty, stage.sectionInserts.isEmpty, stage.sectionMoves.isEmpty,
              stage.itemCountsAfter.count == ns else {
            self = try applying(stage)
            return
        }
        guard let (touched, after) = Snapshot._appliedToTouched(stage, _sections, sectionOf: { id in
            let packed = _itemTable.find(id.rawValue)
            return packed >= 0 ? _resolve(id.rawValue, packed).section : nil
        }) else {
            self = try applying(stage)
            return
        }
        if touched.isEmpty { return } // nothing changes (itemCountsAfter matched every section)
        // Put the touched sections back: the deleted ids leave the table, every item of a
        // touched section that changed place gets its new position (an id moved in from another
        // touched section keeps its entry, updated; an inserted one is added).
        for s in touched { _flushIndexLog(section: s) }
        // (An id deleted and inserted again keeps its entry: rewritten below if its place changed.)
        var reinserted = _IDTable(minimumCapacity: stage.itemInserts.count)
        for ins in stage.itemInserts { _ = reinserted.insertIfAbsent(ins.id.rawValue, 0) }
        for p in stage.itemDeletes {
            let key = _sections[p.section].items[p.item].rawValue
            if reinserted.find(key) < 0 { _ = _itemTable.remove(key) }
        }
        var old: [[ItemID]] = []
        old.reserveCapacity(touched.count)
        for (k, s) in touched.enumerated() {
            old.append(_sections[s].items)
            _sections[s].items = after[k].items
            _sections[s].versions = after[k].versions
        }
        // Only the entries of items whose place changed (an item that stayed at the same index
        // of the same section keeps a right entry).
        for (k, s) in touched.enumerated() {
            let slot = _sections[s].slot
            let items = _sections[s].items, before = old[k]
            for i in 0..<items.count where i >= before.count || before[i] != items[i] {
                let key = items[i].rawValue, packed = Snapshot._pack(slot: slot, item: i)
                if _itemTable.insertIfAbsent(key, packed) >= 0 { _itemTable.update(key, packed) }
            }
        }
    }
}

extension Snapshot {
    /// The item edits of `stage` (no section edits; one count per section) applied to the sections
    /// it touches alone, in order: `applyInPlace` and ``SnapshotReplay`` put them back into their
    /// own tables. nil when the stage must go through `applying` on the whole (a section out of
    /// range, an untouched section's count changed, an inserted id present in an untouched
    /// section — `sectionOf` answers where an id is now — or the touched sections refuse it);
    /// no touched sections when nothing changes.
    static func _appliedToTouched(_ stage: BatchUpdate, _ sections: [_Section],
                                  sectionOf: (ItemID) -> Int?) -> (touched: [Int], after: [_Section])? {
        let ns = sections.count
        // The touched sections (old index == new index: no section edits), in order.
        var local = [Int](repeating: -1, count: ns)
        var touched: [Int] = []
        func touch(_ s: Int) -> Bool {
            guard s >= 0 && s < ns else { return false }
            if local[s] < 0 { local[s] = 0; touched.append(s) }
            return true
        }
        for p in stage.itemDeletes where !touch(p.section) { return nil }
        for m in stage.itemMoves where !touch(m.from.section) || !touch(m.to.section) { return nil }
        for i in stage.itemInserts where !touch(i.at.section) { return nil }
        for r in stage.itemReloads where !touch(r.at.section) { return nil }
        // An untouched section keeps its count; an inserted id must not stay elsewhere.
        for s in 0..<ns where local[s] < 0 && stage.itemCountsAfter[s] != sections[s].items.count { return nil }
        for ins in stage.itemInserts {
            if let s = sectionOf(ins.id), local[s] < 0 { return nil }
        }
        if touched.isEmpty { return ([], []) }
        touched.sort()
        for (k, s) in touched.enumerated() { local[s] = k }
        func map(_ p: IndexPath) -> IndexPath { IndexPath(item: p.item, section: local[p.section]) }
        var sub = BatchUpdate()
        sub.itemDeletes = stage.itemDeletes.map(map)
        sub.itemMoves = stage.itemMoves.map { ItemMove(from: map($0.from), to: map($0.to)) }
        sub.itemInserts = stage.itemInserts.map { ItemInsertion(at: map($0.at), id: $0.id, version: $0.version) }
        sub.itemReloads = stage.itemReloads.map { ItemReload(at: map($0.at), version: $0.version) }
        sub.itemCountsAfter = touched.map { stage.itemCountsAfter[$0] }
        // The touched sections as a snapshot of their own; its id table only when the stage
        // inserts (the validator looks inserted ids up in it; moves, deletes and reloads do not).
        var part = Snapshot()
        part._sections = touched.enumerated().map { k, s in
            _Section(id: sections[s].id, slot: k, items: sections[s].items, versions: sections[s].versions)
        }
        part._slotIndex = Array(0..<touched.count)
        if !stage.itemInserts.isEmpty {
            part = (try? Snapshot(_sections: part._sections, checked: false)) ?? Snapshot()
        }
        // Rejected on the touched sections: rejected on the whole (`applying`: same error, nothing changed).
        guard let after = try? part._appliedSections(sub) else { return nil }
        return (touched, after)
    }
}
