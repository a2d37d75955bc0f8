// Changes from elsewhere (another window, another person, B2) while the user may be in
// the middle of a drag. The server knows nothing of placeholders, so its batches and
// snapshots are taken against the model (the arrangement without placeholders); the
// placeholders are then put back next to the item they followed. A drag in progress
// keeps its items (by identity) and its place; items deleted elsewhere leave the drag.

extension GridController {
    /// Applies a batch update the server sent, valid against `modelSnapshot`.
    /// - Parameter aspects: the aspect of each inserted item (new items not named here lay
    ///   out as squares); an item already shown that is named here takes the new aspect
    ///   (its image became known).
    /// - Returns: a `.commit` of kind `.liveUpdate` whose stages animate the change.
    public mutating func applyLiveUpdate(_ stage: BatchUpdate, aspects: [ItemID: Double] = [:]) throws(GridControllerError) -> [GridEffect] {
        let model: Snapshot
        do { model = try _model(of: snapshot).applying(stage) } catch { throw .invalidUpdate(error) }
        return try applyLiveSnapshot(model, aspects: aspects)
    }

    /// Applies a staged changeset the server sent (all its stages, in order), valid against
    /// `modelSnapshot`; one `.commit` animates the whole change.
    public mutating func applyLiveChanges(_ changes: StagedChangeset, aspects: [ItemID: Double] = [:]) throws(GridControllerError) -> [GridEffect] {
        var model = _model(of: snapshot)
        for stage in changes.stages {
            do { try model.apply(stage) } catch { throw .invalidUpdate(error) }
        }
        return try applyLiveSnapshot(model, aspects: aspects)
    }

    /// Replaces the model with the server's latest arrangement (after a reconnect, or a
    /// whole changeset). Placeholders, the drag and the focus survive. O(n).
    public mutating func applyLiveSnapshot(_ model: Snapshot, aspects: [ItemID: Double] = [:]) throws(GridControllerError) -> [GridEffect] {
        for p in placeholders where model.contains(p.id.itemID) { throw .invalidSnapshot }
        _applyBlock(nil)   // the layout back in the committed order; the block returns after
        let old = snapshot
        var merged = model
        _mergePlaceholders(from: old, into: &merged)

        // Aspects: what the layout holds for items that stay, the host's for new ones.
        var known: [ItemID: Double] = [:]
        for s in 0..<old.sectionCount {
            let items = old.items(inSection: s)
            for i in 0..<items.count { known[items[i]] = layout.aspect(of: IndexPath(item: i, section: s)) }
        }
        var flat: [Double] = []
        var counts: [Int] = []
        flat.reserveCapacity(merged.itemCount)
        for s in 0..<merged.sectionCount {
            for id in merged.items(inSection: s) { flat.append(aspects[id] ?? known[id] ?? 1) }
            counts.append(merged.itemCount(inSection: s))
        }
        let stages: [BatchUpdate]
        do { stages = try StagedChangeset(from: old, to: merged).stages } catch { throw .invalidSnapshot }
        snapshot = merged
        layout.prepare(aspects: flat, sectionCounts: counts)
        _afterBaseChange()
        return [.commit(CommittedChange(kind: .liveUpdate, change: ArrangementChange(), updates: stages))]
    }

    /// Puts every placeholder of `old` back into `merged`: right after the nearest model
    /// item that preceded it in its section (past placeholders already there), else at
    /// the start of its section, else at the end of the last section. A placeholder with
    /// nowhere to go (no sections) is forgotten.
    mutating func _mergePlaceholders(from old: Snapshot, into merged: inout Snapshot) {
        var ordered: [(IndexPath, PlaceholderID)] = []
        for p in placeholders { if let ip = old.indexPath(of: p.id.itemID) { ordered.append((ip, p.id)) } }
        ordered.sort { $0.0 < $1.0 }
        var lost: [PlaceholderID] = []
        for (ip, pid) in ordered {
            var anchor: ItemID?
            var i = ip.item - 1
            while i >= 0 {
                let id = old.itemID(at: IndexPath(item: i, section: ip.section))
                if !isPlaceholder(id) && merged.contains(id) { anchor = id; break }
                i -= 1
            }
            var at: IndexPath
            if let anchor, let a = merged.indexPath(of: anchor) {
                at = IndexPath(item: a.item + 1, section: a.section)
            } else if let s = merged.indexOfSection(old.sectionID(at: ip.section)) {
                at = IndexPath(item: 0, section: s)
            } else if merged.sectionCount > 0 {
                let s = merged.sectionCount - 1
                at = IndexPath(item: merged.itemCount(inSection: s), section: s)
            } else {
                lost.append(pid)
                continue
            }
            while at.item < merged.itemCount(inSection: at.section) && isPlaceholder(merged.itemID(at: at)) { at.item += 1 }
            try? merged.insertItems([pid.itemID], at: at)
        }
        placeholders.removeAll { p in lost.contains(p.id) }
    }
}
