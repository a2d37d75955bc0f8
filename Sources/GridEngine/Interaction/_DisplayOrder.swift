/// The dragged block as the layout shows it: the carried items, in order, starting at
/// index `start` among the non-dragged items of a section.
struct _Block: Hashable, Sendable {
    var items: [ItemID]
    var section: SectionID
    var start: Int
    /// A copy preview: the slots carry these ids (parallel to `items`) and the originals
    /// stay where they are. Empty: a move (the items themselves are the block).
    var copies: [ItemID] = []
    /// Whether a copy preview's slots show. Closed until the pointer first placed the
    /// block: at lift a copy shows the collection as it is, as a move does (whose block is
    /// the lifted item itself, in its own place), so the pointer aims at what it sees.
    var slotsOpen = true

    var isCopy: Bool { !copies.isEmpty }
}

/// The arrangement on screen during a live reorder, without copying it: the committed
/// snapshot with the dragged block taken out and put back at its place. Lookups cost
/// O(dragged items), so a frame of a drag never touches all n items (the layout itself
/// is edited in place, incrementally, to match).
struct _DisplayOrder {
    let base: Snapshot
    let items: [ItemID]
    /// The block's section index, -1 without a block.
    let section: Int
    let start: Int
    /// The committed positions of the block's items, ascending (taken out of the order;
    /// none for a copy preview, whose originals stay).
    let dragged: [IndexPath]
    /// Whether the block is a copy preview: `items` are the copies' slots.
    let isCopy: Bool

    init(base: Snapshot, block: _Block?) {
        self.base = base
        guard let b = block, let s = base.indexOfSection(b.section), !b.items.isEmpty, !b.isCopy || b.slotsOpen else {
            items = []; section = -1; start = 0; dragged = []; isCopy = false
            return
        }
        var paths: [IndexPath] = [], present: [ItemID] = []
        for (k, id) in b.items.enumerated() {
            if let p = base.indexPath(of: id) { paths.append(p); present.append(b.isCopy && k < b.copies.count ? b.copies[k] : id) }
        }
        paths.sort()
        if b.isCopy {
            // The slots open before the `start`-th item that is not dragged, the originals
            // counted where they are (as the drop inserts the copies).
            var index = b.start
            for p in paths where p.section == s && p.item <= index { index += 1 }
            items = present; section = s; start = index; dragged = []; isCopy = true
        } else {
            items = present; section = s; start = b.start; dragged = paths; isCopy = false
        }
    }

    var isIdentity: Bool { items.isEmpty }
    var sectionCount: Int { base.sectionCount }
    func sectionID(at index: Int) -> SectionID { base.sectionID(at: index) }
    func indexOfSection(_ id: SectionID) -> Int? { base.indexOfSection(id) }

    func _draggedCount(inSection s: Int) -> Int {
        var n = 0
        for p in dragged where p.section == s { n += 1 }
        return n
    }

    /// The number of non-dragged items of a section.
    func restCount(inSection s: Int) -> Int { base.itemCount(inSection: s) - _draggedCount(inSection: s) }

    func itemCount(inSection s: Int) -> Int { restCount(inSection: s) + (s == section ? items.count : 0) }

    /// The committed index of the `rest`-th non-dragged item of section `s` (or the count).
    func baseIndex(rest: Int, section s: Int) -> Int {
        var index = rest
        for p in dragged where p.section == s && p.item <= index { index += 1 }
        return index
    }

    func itemID(at p: IndexPath) -> ItemID {
        if items.isEmpty { return base.itemID(at: p) }
        var j = p.item
        if p.section == section {
            if j >= start && j < start + items.count { return items[j - start] }
            if j >= start + items.count { j -= items.count }
        }
        return base.itemID(at: IndexPath(item: baseIndex(rest: j, section: p.section), section: p.section))
    }

    func indexPath(of id: ItemID) -> IndexPath? {
        if items.isEmpty { return base.indexPath(of: id) }
        for (k, item) in items.enumerated() where item == id { return IndexPath(item: start + k, section: section) }
        guard let q = base.indexPath(of: id) else { return nil }
        var r = q.item
        for p in dragged where p.section == q.section && p.item < q.item { r -= 1 }
        if q.section == section && r >= start { r += items.count }
        return IndexPath(item: r, section: q.section)
    }

    /// The order as a snapshot (O(n): for hosts and tests, not for frames).
    func materialized() -> Snapshot {
        if items.isEmpty { return base }
        var s = base
        if isCopy {
            try? s.insertItems(items, at: IndexPath(item: start, section: section))
            return s
        }
        var versions: [UInt32] = []
        for id in items { versions.append(base.version(of: id) ?? 0) }
        try? s.deleteItems(items)
        try? s.insertItems(items, at: IndexPath(item: start, section: section))
        for (k, id) in items.enumerated() { try? s.setVersion(versions[k], of: id) }
        return s
    }
}
