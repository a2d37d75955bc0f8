// The server's whole arrangement handed over in parts (a reload of a big gallery): built
// beside the arrangement shown, a few thousand items a call, and swapped in at the end, so
// that no single call is O(n) but the last (the layout).

/// What ``GridController/beginLiveReplacement(itemCount:sectionCount:)`` starts.
struct _LiveReplacement: Sendable {
    var builder: Snapshot.Builder
    var aspects: [Double] = []
}

extension GridController {
    /// Starts handing over the server's whole arrangement in parts (forgetting one not
    /// finished): ``appendToLiveReplacement(section:items:versions:aspects:)`` then
    /// ``finishLiveReplacement()``. Until then the arrangement shown and every interaction go on
    /// as before. The counts size the tables (no growth on the way); they are hints, taken up to
    /// `replacementSizingLimit` (a count beyond it, wrong or hostile, allocates no more up front).
    public mutating func beginLiveReplacement(itemCount: Int, sectionCount: Int) {
        _replacement = nil
        let items = min(max(0, itemCount), Self.replacementSizingLimit)
        var r = _LiveReplacement(builder: Snapshot.Builder(expectedItems: items,
                                                           expectedSections: min(max(0, sectionCount), Self.replacementSizingLimit)))
        r.aspects.reserveCapacity(items)
        _replacement = r
    }

    /// The most items (and sections) ``beginLiveReplacement(itemCount:sectionCount:)`` sizes its
    /// tables for up front; a bigger arrangement grows them on the way.
    public static let replacementSizingLimit = 1 << 22

    /// Whether a replacement is being handed over.
    public var isReplacing: Bool { _replacement != nil }

    /// The next items of the replacement, in arrangement order: appended to the section `id`
    /// when it is the last one begun, else to a new section after it (see `Snapshot.Builder`).
    /// `aspects` are the items' (width / height). O(items). A repeated id (or no replacement
    /// begun) throws `.invalidSnapshot` and forgets the replacement.
    public mutating func appendToLiveReplacement(section id: SectionID, items: [ItemID], versions: [UInt32],
                                                 aspects: [Double]) throws(GridControllerError) {
        guard _replacement != nil, items.count == aspects.count else {
            _replacement = nil
            throw .invalidSnapshot
        }
        do {
            try _replacement!.builder.append(section: id, items: items, versions: versions)
        } catch {
            _replacement = nil
            throw .invalidSnapshot
        }
        _replacement!.aspects.append(contentsOf: aspects)
    }

    /// Swaps the replacement in (``replaceLiveModel(_:orderedAspects:)``: placeholders, the drag
    /// and the focus survive; the commit names no stages). O(sections) and the layout, O(n).
    /// Throws `.invalidSnapshot` when none was begun or it names a waiting placeholder's id.
    public mutating func finishLiveReplacement() throws(GridControllerError) -> [GridEffect] {
        guard let r = _replacement else { throw .invalidSnapshot }
        _replacement = nil
        return try replaceLiveModel(r.builder.snapshot(), orderedAspects: r.aspects)
    }
}
