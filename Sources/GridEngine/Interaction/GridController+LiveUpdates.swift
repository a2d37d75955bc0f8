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
    /// `modelSnapshot`; one `.commit` animates the whole change. Invalid stages throw and
    /// change nothing.
    ///
    /// Cost: stages of item changes only (no section inserts, deletes or moves) naming at
    /// most ``liveChangesIncrementalLimit`` items in all, with no placeholder shown, are
    /// checked in O(k log k) and applied like local commits — O(k + the touched sections):
    /// the snapshot edits the touched items and the layout re-lays out a touched section
    /// from its first changed item. Anything else (and anything that check cannot prove
    /// valid) is O(n): the stages are applied to a copy of the model, which replaces the
    /// arrangement (``applyLiveSnapshot(_:aspects:)``).
    public mutating func applyLiveChanges(_ changes: StagedChangeset, aspects: [ItemID: Double] = [:]) throws(GridControllerError) -> [GridEffect] {
        if changes.stages.isEmpty { return [] }
        if placeholders.isEmpty && _appliesInPlace(changes.stages) {
            _applyBlock(nil)   // the layout back in the committed order; the block returns after
            for stage in changes.stages { _applyItemStage(stage, aspects: aspects) }
            // Items shown before whose aspect the host names anew (an image became known),
            // in arrangement order so each section is re-laid out from its first changed item.
            var reshaped: [(IndexPath, Double)] = []
            for (id, aspect) in aspects {
                guard let p = snapshot.indexPath(of: id), layout.aspect(of: p) != aspect else { continue }
                reshaped.append((p, aspect))
            }
            reshaped.sort { $0.0 < $1.0 }
            for (p, aspect) in reshaped { layout.setAspect(aspect, at: p) }
            _afterBaseChange()
            return [.commit(CommittedChange(kind: .liveUpdate, change: ArrangementChange(), updates: changes.stages))]
        }
        var model = _model(of: snapshot)
        for stage in changes.stages {
            do { try model.apply(stage) } catch { throw .invalidUpdate(error) }
        }
        return try applyLiveSnapshot(model, aspects: aspects)
    }

    /// The most items the stages of one change may name for ``applyLiveChanges(_:aspects:)``
    /// to apply them in place: each inserted or moved item renumbers the tail of its
    /// section, so past a few dozen items one O(n) rebuild is cheaper.
    public static let liveChangesIncrementalLimit = 32

    /// Applies one stage of item changes (already checked by `_appliesInPlace`) through
    /// `_apply`, the path of local commits: the leaving items go, then the arriving ones
    /// land at their index paths in ascending order — UIKit's batch-update semantics.
    mutating func _applyItemStage(_ stage: BatchUpdate, aspects: [ItemID: Double]) {
        var change = ArrangementChange()
        func placement(at p: IndexPath) -> ItemPlacement {
            ItemPlacement(id: snapshot.itemID(at: p), section: snapshot.sectionID(at: p.section), index: p.item,
                          aspect: layout.aspect(of: p), version: snapshot.version(at: p))
        }
        for p in stage.itemDeletes { change.removed.append(placement(at: p)) }
        for m in stage.itemMoves {
            var moved = placement(at: m.from)
            change.removed.append(moved)
            moved.section = snapshot.sectionID(at: m.to.section)
            moved.index = m.to.item
            change.inserted.append(moved)
        }
        var named: [(id: ItemID, version: UInt32)] = []   // inserted and reloaded: the server's version
        for i in stage.itemInserts {
            change.inserted.append(ItemPlacement(id: i.id, section: snapshot.sectionID(at: i.at.section), index: i.at.item,
                                                 aspect: aspects[i.id] ?? 1, version: i.version))
            named.append((i.id, i.version))
        }
        for r in stage.itemReloads { named.append((snapshot.itemID(at: r.at), r.version)) }
        _ = _apply(change, modelCoordinates: false)
        for n in named { try? snapshot.setVersion(n.version, of: n.id) }
    }

    /// Whether `stages` are item changes that provably follow UIKit's batch-update rules
    /// from `snapshot` on, checked without a pass over the arrangement (O(k log k)): index
    /// paths in range of the counts before each stage, no item deleted, moved or reloaded
    /// twice or both, no destination used twice, inserted ids new, and every section's
    /// count after matching. Conservative: what it cannot prove (an id a later stage deletes
    /// and inserts again) answers false and takes the exact O(n) path, which throws if invalid.
    func _appliesInPlace(_ stages: [BatchUpdate]) -> Bool {
        var total = 0
        for u in stages {
            guard u.sectionDeletes.isEmpty && u.sectionInserts.isEmpty && u.sectionMoves.isEmpty else { return false }
            total += u.changeCount
        }
        guard total <= Self.liveChangesIncrementalLimit else { return false }
        let n = snapshot.sectionCount
        var counts: [Int] = []
        for s in 0..<n { counts.append(snapshot.itemCount(inSection: s)) }
        var gone = Set<ItemID>(), added = Set<ItemID>()
        for (k, u) in stages.enumerated() {
            guard u.itemCountsAfter.count == n else { return false }
            func valid(_ p: IndexPath) -> Bool { p.section >= 0 && p.section < n && p.item >= 0 && p.item < counts[p.section] }
            func validAfter(_ p: IndexPath) -> Bool {
                p.section >= 0 && p.section < n && p.item >= 0 && p.item < u.itemCountsAfter[p.section]
            }
            var delta = [Int](repeating: 0, count: n)
            var sources = Set<IndexPath>(), destinations = Set<IndexPath>()
            for p in u.itemDeletes {
                guard valid(p), sources.insert(p).inserted else { return false }
                if k == 0 { gone.insert(snapshot.itemID(at: p)) }
                delta[p.section] -= 1
            }
            for m in u.itemMoves {
                guard valid(m.from), validAfter(m.to), sources.insert(m.from).inserted, destinations.insert(m.to).inserted
                else { return false }
                delta[m.from.section] -= 1
                delta[m.to.section] += 1
            }
            var inserted = Set<ItemID>()
            for i in u.itemInserts {
                guard validAfter(i.at), destinations.insert(i.at).inserted, inserted.insert(i.id).inserted else { return false }
                // New, or deleted by the first stage (whose deleted ids are known); an id a
                // later stage deletes and inserts again is not proven new: the O(n) path.
                if added.contains(i.id) || (snapshot.contains(i.id) && !gone.contains(i.id)) { return false }
                delta[i.at.section] += 1
            }
            var reloaded = Set<IndexPath>()
            for r in u.itemReloads {
                guard valid(r.at), !sources.contains(r.at), reloaded.insert(r.at).inserted else { return false }
            }
            for s in 0..<n where counts[s] + delta[s] != u.itemCountsAfter[s] { return false }
            counts = u.itemCountsAfter
            for id in inserted { added.insert(id) }
        }
        return true
    }

    /// Whether the model (the arrangement without placeholders) has `counts` items per
    /// section, each of `placed` at its index path with its version (an entry whose section
    /// is negative: with its version, wherever it is), and none of `absent`.
    /// The page asks this after its own batch comes back from the server: when the engine
    /// already shows the server's answer, nothing needs to be applied. O(k) without
    /// placeholders, O(n) with.
    public func modelMatches(counts: [Int], placed: [(id: ItemID, at: IndexPath, version: UInt32)], absent: [ItemID]) -> Bool {
        let model = placeholders.isEmpty ? snapshot : _model(of: snapshot)
        guard counts.count == model.sectionCount else { return false }
        for s in 0..<counts.count where model.itemCount(inSection: s) != counts[s] { return false }
        for p in placed {
            if p.at.section < 0 {
                guard model.version(of: p.id) == p.version else { return false }
                continue
            }
            guard model.isValid(p.at), model.itemID(at: p.at) == p.id, model.version(at: p.at) == p.version else { return false }
        }
        for id in absent where model.contains(id) { return false }
        return true
    }

    /// The model's item (placeholders not counted) at `index` in the section with this id;
    /// nil when there is none. O(1) without placeholders, O(placeholders) with.
    public func modelItem(section: SectionID, index: Int) -> ItemID? {
        guard let s = snapshot.indexOfSection(section), index >= 0 else { return nil }
        if placeholders.isEmpty {
            return index < snapshot.itemCount(inSection: s) ? snapshot.itemID(at: IndexPath(item: index, section: s)) : nil
        }
        // The display index of the model item number `index` (placeholders skipped).
        let d = _displayIndex(model: index, section: s, excluding: nil)
        guard d < snapshot.itemCount(inSection: s) else { return nil }
        let id = snapshot.itemID(at: IndexPath(item: d, section: s))
        return isPlaceholder(id) ? nil : id
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

    /// Replaces the model with the server's whole arrangement, as
    /// ``applyLiveSnapshot(_:aspects:)`` does, for a host that reads it again after a long
    /// absence (a reload): `aspects` are the model's items' in arrangement order (the form the
    /// host reads from the server's columns). No diff against the old arrangement and no table of
    /// aspects by id: the commit names no stages (a change this big is shown at once, not
    /// animated). Placeholders, the drag and the focus survive. O(n), about a quarter of
    /// ``applyLiveSnapshot(_:aspects:)``'s time at 100k items (its id tables and diff were most of it).
    public mutating func replaceLiveModel(_ model: Snapshot, orderedAspects aspects: [Double]) throws(GridControllerError) -> [GridEffect] {
        guard aspects.count == model.itemCount else { throw .invalidSnapshot }
        for p in placeholders where model.contains(p.id.itemID) { throw .invalidSnapshot }
        _applyBlock(nil)   // the layout back in the committed order; the block returns after
        var flat = aspects
        var merged = model
        if !placeholders.isEmpty {
            // A placeholder keeps the aspect it lays out with; the model's items take the host's, in order.
            let old = snapshot
            var shown: [ItemID: Double] = [:]
            for p in placeholders {
                if let at = old.indexPath(of: p.id.itemID) { shown[p.id.itemID] = layout.aspect(of: at) }
            }
            _mergePlaceholders(from: old, into: &merged)
            flat = []
            flat.reserveCapacity(merged.itemCount)
            var k = 0
            for s in 0..<merged.sectionCount {
                for id in merged.items(inSection: s) {
                    if isPlaceholder(id) { flat.append(shown[id] ?? 1) } else { flat.append(aspects[k]); k += 1 }
                }
            }
        }
        var counts: [Int] = []
        counts.reserveCapacity(merged.sectionCount)
        for s in 0..<merged.sectionCount { counts.append(merged.itemCount(inSection: s)) }
        snapshot = merged
        layout.prepare(aspects: flat, sectionCounts: counts)
        _afterBaseChange()
        return [.commit(CommittedChange(kind: .liveUpdate, change: ArrangementChange(), updates: []))]
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
