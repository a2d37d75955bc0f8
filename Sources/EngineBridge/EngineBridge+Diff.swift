import GridEngine

// The diff operation. Input: two snapshots, each
//   [sectionCount, per section: id, count, item id × count, version × count];
// output: [stageCount, per stage: a BatchUpdate in the order of its fields]
//   [n, sectionDelete × n,
//    n, per insert: index, id, count, item id × count, version × count,
//    n, per section move: from, to,
//    n, per item delete: section, item,
//    n, per item insert: section, item, id, version,
//    n, per item move: fromSection, fromItem, toSection, toItem,
//    n, per reload: section, item, version,
//    n, itemCountsAfter × n].

extension EngineBridge {
    static func _snapshot(_ r: inout _BridgeReader) throws(_BridgeFailure) -> Snapshot {
        let n = try r.count(stride: 2)
        var sections: [(id: SectionID, items: [ItemID], versions: [UInt32])] = []
        sections.reserveCapacity(n)
        for _ in 0..<n {
            let id = SectionID(try r.id())
            let count = try r.count(stride: 2)
            let items = try r.ids(count)
            sections.append((id: id, items: items, versions: try r.versions(count)))
        }
        do throws(SnapshotError) {
            return try Snapshot(sections)
        } catch {
            switch error {
            case .duplicateItem(let id): throw _BridgeFailure(.invalidSnapshot, [1, Double(id.rawValue)])
            case .duplicateSection(let id): throw _BridgeFailure(.invalidSnapshot, [2, Double(id.rawValue)])
            default: throw _BridgeFailure(.invalidSnapshot, [0, 0])
            }
        }
    }

    func _diff(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let source = try Self._snapshot(&r)
        let target = try Self._snapshot(&r)
        let changes: StagedChangeset
        do throws(DiffError) {
            changes = try StagedChangeset(from: source, to: target)
        } catch {
            // Unreachable after Snapshot's own checks, but answered rather than trapped.
            switch error {
            case .duplicateItemInSource(let id): throw _BridgeFailure(.diffRefused, [1, Double(id.rawValue)])
            case .duplicateItemInTarget(let id): throw _BridgeFailure(.diffRefused, [2, Double(id.rawValue)])
            case .duplicateSectionInSource(let id): throw _BridgeFailure(.diffRefused, [3, Double(id.rawValue)])
            case .duplicateSectionInTarget(let id): throw _BridgeFailure(.diffRefused, [4, Double(id.rawValue)])
            }
        }
        out.append(Double(changes.stages.count))
        for stage in changes.stages { Self._encode(stage, into: &out) }
    }

    /// Appends one batch update in the layout above.
    static func _encode(_ u: BatchUpdate, into out: inout [Double]) {
        func ip(_ p: IndexPath) { out.append(Double(p.section)); out.append(Double(p.item)) }
        out.append(Double(u.sectionDeletes.count))
        for s in u.sectionDeletes { out.append(Double(s)) }
        out.append(Double(u.sectionInserts.count))
        for s in u.sectionInserts {
            out.append(Double(s.index)); out.append(Double(s.id.rawValue)); out.append(Double(s.items.count))
            for id in s.items { out.append(Double(id.rawValue)) }
            for v in s.versions { out.append(Double(v)) }
        }
        out.append(Double(u.sectionMoves.count))
        for m in u.sectionMoves { out.append(Double(m.from)); out.append(Double(m.to)) }
        out.append(Double(u.itemDeletes.count))
        for p in u.itemDeletes { ip(p) }
        out.append(Double(u.itemInserts.count))
        for i in u.itemInserts { ip(i.at); out.append(Double(i.id.rawValue)); out.append(Double(i.version)) }
        out.append(Double(u.itemMoves.count))
        for m in u.itemMoves { ip(m.from); ip(m.to) }
        out.append(Double(u.itemReloads.count))
        for rl in u.itemReloads { ip(rl.at); out.append(Double(rl.version)) }
        out.append(Double(u.itemCountsAfter.count))
        for c in u.itemCountsAfter { out.append(Double(c)) }
    }
}

// Applying staged changes (a live update from the server) to a snapshot. Input: a snapshot
// (as for diff), then [stageCount, stages as the diff answers them]; answer: the new snapshot
// in the same layout, or `.invalidBatch` when a stage breaks UIKit's rules for the snapshot
// it applies to (the page then reloads instead of drawing a wrong gallery).
extension EngineBridge {
    static func _decodeStage(_ r: inout _BridgeReader) throws(_BridgeFailure) -> BatchUpdate {
        func ip(_ r: inout _BridgeReader) throws(_BridgeFailure) -> IndexPath {
            let s = try r.int()
            return IndexPath(item: try r.int(), section: s)
        }
        var u = BatchUpdate()
        for _ in 0..<(try r.count(stride: 1)) { u.sectionDeletes.append(try r.int()) }
        for _ in 0..<(try r.count(stride: 3)) {
            let index = try r.int(), id = SectionID(try r.id()), n = try r.count(stride: 2)
            var items: [ItemID] = [], versions: [UInt32] = []
            for _ in 0..<n { items.append(ItemID(try r.id())) }
            for _ in 0..<n { versions.append(try r.version()) }
            u.sectionInserts.append(SectionInsertion(index: index, id: id, items: items, versions: versions))
        }
        for _ in 0..<(try r.count(stride: 2)) { let f = try r.int(); u.sectionMoves.append(SectionMove(from: f, to: try r.int())) }
        for _ in 0..<(try r.count(stride: 2)) { u.itemDeletes.append(try ip(&r)) }
        for _ in 0..<(try r.count(stride: 4)) {
            let at = try ip(&r), id = ItemID(try r.id())
            u.itemInserts.append(ItemInsertion(at: at, id: id, version: try r.version()))
        }
        for _ in 0..<(try r.count(stride: 4)) { let f = try ip(&r); u.itemMoves.append(ItemMove(from: f, to: try ip(&r))) }
        for _ in 0..<(try r.count(stride: 3)) { let at = try ip(&r); u.itemReloads.append(ItemReload(at: at, version: try r.version())) }
        for _ in 0..<(try r.count(stride: 1)) { u.itemCountsAfter.append(try r.int()) }
        return u
    }

    static func _encode(_ s: Snapshot, into out: inout [Double]) {
        out.append(Double(s.sectionCount))
        for section in 0..<s.sectionCount {
            let items = s.items(inSection: section)
            out.append(Double(s.sectionID(at: section).rawValue)); out.append(Double(items.count))
            for id in items { out.append(Double(id.rawValue)) }
            for v in s.versions(inSection: section) { out.append(Double(v)) }
        }
    }

    func _snapshotApply(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        var snapshot = try Self._snapshot(&r)
        let stages = try r.count(stride: 8)
        for _ in 0..<stages {
            let stage = try Self._decodeStage(&r)
            do throws(BatchUpdateError) {
                try BatchUpdate.validate(stage, against: snapshot)
                try snapshot.apply(stage)
            } catch {
                throw _BridgeFailure(.invalidBatch)
            }
        }
        Self._encode(snapshot, into: &out)
    }
}
