// The server edits of a commit (issue 11): what the host sends, decided here from the
// committed change and the arrangement right after it, so the host decides no arrangement.

extension GridController {
    /// Whether the server knows this item: not a placeholder, not a copy the server has not
    /// named yet (the engine's generated ids).
    func _serverKnows(_ id: ItemID) -> Bool { id.rawValue < _generatedIDBase }

    /// Contiguous runs of placements in arrangement order: (section id, first model index, ids).
    static func _blocks(_ placements: [ItemPlacement]) -> [(section: SectionID, index: Int, ids: [ItemID])] {
        let sorted = placements.sorted { a, b in
            a.section.rawValue != b.section.rawValue ? a.section.rawValue < b.section.rawValue : a.index < b.index
        }
        var out: [(section: SectionID, index: Int, ids: [ItemID])] = []
        for p in sorted {
            if let last = out.last, last.section == p.section, last.index + last.ids.count == p.index {
                out[out.count - 1].ids.append(p.id)
            } else {
                out.append((p.section, p.index, [p.id]))
            }
        }
        return out
    }

    /// After the model item before the block (as the arrangement is now), else first in its section.
    func _anchor(section: SectionID, index: Int) -> ServerAnchor {
        if index > 0, let before = modelItem(section: section, index: index - 1) { return .after(before) }
        return .sectionStart(section)
    }

    /// The edits for a change just committed (the arrangement already shows it). Keeps the
    /// record of what this engine put in the server's trash, so an undo restores exactly those.
    mutating func _serverEdits(kind: CommitKind, change: ArrangementChange, copiedFrom: [ItemID]) -> [ServerEdit] {
        switch kind {
        case .move, .commitPlaceholder:
            return Self._blocks(change.inserted).map { .move(items: $0.ids, to: _anchor(section: $0.section, index: $0.index)) }
        case .swap:
            // One pair, or a run: each carried item lands where its partner was. A run is a few
            // items: linear scans.
            var paired: [ItemID] = []
            var edits: [ServerEdit] = []
            for p in change.inserted {
                guard let partner = change.removed.first(where: { $0.section == p.section && $0.index == p.index })?.id,
                      partner != p.id, !paired.contains(p.id), !paired.contains(partner) else { continue }
                paired.append(p.id); paired.append(partner)
                edits.append(.swap(p.id, partner))
            }
            return edits
        case .copy:
            guard let first = Self._blocks(change.inserted).first else { return [] }
            return [.copy(items: copiedFrom, to: _anchor(section: first.section, index: first.index))]
        case .delete:
            let gone = change.removed.map { $0.id }.filter { _serverKnows($0) }
            for id in gone { _serverTrash.insert(id) }
            return gone.isEmpty ? [] : [.trash(gone)]
        case .addSection:
            return change.sections.compactMap { $0.from == nil ? $0.to.map { .createSection(index: $0) } : nil }
        case .moveSection:
            return change.sections.compactMap { s in s.from != nil ? s.to.map { .moveSection(s.id, index: $0) } : nil }
        case .deleteSection:
            // The server trashes the section's items with it; a restore of them brings it back.
            for p in change.removed where _serverKnows(p.id) { _serverTrash.insert(p.id) }
            return change.sections.filter { $0.to == nil }.map { .deleteSection($0.id) }
        case .undo, .redo:
            // Items that stay move; items that come back are restored first; items that go are trashed.
            var inserted: Set<ItemID> = [], removed: Set<ItemID> = []
            for p in change.inserted { inserted.insert(p.id) }
            for p in change.removed { removed.insert(p.id) }
            var edits: [ServerEdit] = []
            // Sections moving come first (a section coming back comes with its restored items;
            // one leaving goes after its items left).
            for s in change.sections { if s.from != nil, let to = s.to { edits.append(.moveSection(s.id, index: to)) } }
            let gone = change.removed.map { $0.id }.filter { !inserted.contains($0) && _serverKnows($0) }
            if !gone.isEmpty { edits.append(.trash(gone)); for id in gone { _serverTrash.insert(id) } }
            let back = change.inserted.map { $0.id }.filter { !removed.contains($0) && _serverTrash.contains($0) }
            if !back.isEmpty { edits.append(.restore(back)); for id in back { _serverTrash.remove(id) } }
            let placed = change.inserted.filter { _serverKnows($0.id) }
            for b in Self._blocks(placed) { edits.append(.move(items: b.ids, to: _anchor(section: b.section, index: b.index))) }
            for s in change.sections where s.to == nil && s.from != nil { edits.append(.deleteSection(s.id)) }
            return edits
        case .insertPlaceholders, .deletePlaceholder, .liveUpdate:
            return [] // placeholders come and go locally; live updates came from the server
        }
    }

    /// Where the server must create the item a placeholder waits for (an upload, a dropped or
    /// pasted URL), as the arrangement is now: before the next item of its section the server
    /// knows, else at the end of that section. nil for an unknown placeholder.
    public func serverDestination(ofPlaceholder placeholder: ItemID) -> ServerAnchor? {
        guard isPlaceholder(placeholder), let ip = snapshot.indexPath(of: placeholder) else { return nil }
        let items = snapshot.items(inSection: ip.section)
        var i = ip.item + 1
        while i < items.count {
            if !isPlaceholder(items[i]) && _serverKnows(items[i]) { return .before(items[i]) }
            i += 1
        }
        return .sectionEnd(snapshot.sectionID(at: ip.section))
    }
}
