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
        // The validator kept ids unique, so the unchecked build cannot lose anything.
        let out = (try? Snapshot(_sections: result, checked: false)) ?? Snapshot()
        return out
    }

    /// Applies `stage` in place (see ``applying(_:)``); on a throw the snapshot is unchanged.
    public mutating func apply(_ stage: BatchUpdate) throws(BatchUpdateError) {
        self = try applying(stage)
    }
}
