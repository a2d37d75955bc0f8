/// The façade a page (or a UIKit adapter, or a test) drives: it owns the arrangement
/// (``Snapshot``), its geometry (``CollectionLayout``), the drag ``DragSession``, the
/// placeholders, the undo history and the scroll state. Events go in, effects and
/// render output come out; the host never decides arrangement. No clock, no randomness:
/// time is an argument.
///
///     var grid = try GridController(snapshot: fruits, aspects: [[1, 1, 1, 1]],
///                                   layout: LayoutConfiguration(kind: .grid(columns: 4), containerWidth: 400),
///                                   viewport: Size(width: 400, height: 800))
///     var effects = grid.handle(.pointerDown(PointerEvent(location: banana, time: 0, kind: .touch)))
///     effects += grid.tick(now: 0.5)                                  // long press: lifted
///     effects += grid.handle(.pointerMove(PointerEvent(location: date, time: 0.7, kind: .touch)))
///     effects += grid.handle(.pointerUp(PointerEvent(location: date, time: 0.8, kind: .touch)))
///     let cells = grid.visibleCells()                                 // what to draw
///
/// Costs: a pointer move with live reorder moves one item of the layout incrementally
/// (grid and flow: the span between the two places; waterfall and justified: the rest of
/// the section) and never copies the arrangement; hit-testing is O(log n); a drop commits
/// one snapshot move; commits of k items are O(k + the touched sections); live updates
/// are O(n) (a diff and a full layout).
public struct GridController: Sendable {
    /// The committed arrangement shown (placeholders included; see `isPlaceholder`).
    public internal(set) var snapshot: Snapshot
    /// The geometry, in step with `snapshot`; during a live reorder it shows the dragged
    /// block at its proposed place (and during a drag the gap cells), see `displayedSnapshot`.
    public internal(set) var layout: CollectionLayout
    public var configuration: InteractionConfiguration {
        didSet {
            _autoScroller.configuration = configuration.autoScroll
            history.limit = max(1, configuration.historyLimit)
            // A switch between insert and swap mode in the middle of a drag.
            if let s = session, s.isDragging {
                if _showsBlock(s) { _reattachBlock() } else { _applyBlock(nil) }
            }
        }
    }
    /// What drops are allowed (F18, F29).
    public var policy: DropPolicy
    /// Drop regions outside the grid, such as the trash (F21).
    public var outsideTargets: [OutsideTarget]
    /// Snapping for `scrollTarget(proposed:velocity:)` (F6).
    public var snapping: ScrollSnapping
    /// The drag in progress, if any.
    public internal(set) var session: DragSession?
    /// The scroll position (content coordinates of the viewport's top-left).
    public internal(set) var contentOffset: Point
    /// The viewport's size.
    public internal(set) var viewportSize: Size
    public internal(set) var history: UndoStack
    /// The item with the keyboard focus (B3).
    public internal(set) var focusedItem: ItemID?
    /// Placeholders waiting for their data, in drop order (F19).
    public internal(set) var placeholders: [Placeholder] {
        didSet {
            _placeholderIDs.removeAll(keepingCapacity: true)
            for p in placeholders { _placeholderIDs.insert(p.id.itemID) }
        }
    }
    var _placeholderIDs: Set<ItemID> = []
    /// The time of the last event or tick: the clock of the drop animation in
    /// `visibleCells()`.
    public internal(set) var lastEventTime: Double = 0

    /// The dragged block the layout shows (nil: the layout is in the committed order).
    var _block: _Block?
    var _autoScroller: AutoScroller
    var _readOnly: Set<ItemID> = []
    /// The whole grid is read-only (a viewer's page): nothing lifts — no pointer or keyboard
    /// drag, no external drop or paste, no undo — while taps, focus and scrolling still work.
    public internal(set) var isReadOnly: Bool = false
    var _titles: [ItemID: String] = [:]
    var _sectionTitles: [SectionID: String] = [:]
    var _nextGeneratedID: UInt64
    /// The first generated id: ids from here on are placeholders and copies the server has not named.
    let _generatedIDBase: UInt64
    /// Items this engine's commits put in the server's trash and no commit took back (issue 11):
    /// an undo that brings them back restores them first.
    var _serverTrash: Set<ItemID> = []
    /// The server's whole arrangement being handed over in parts (``beginLiveReplacement(itemCount:sectionCount:)``).
    var _replacement: _LiveReplacement?

    /// A controller showing `snapshot` with the aspect of every item (`aspects[section][item]`).
    /// - Parameter generatedIDBase: the first id the engine uses for copies and
    ///   placeholders; the host keeps its own ids below it.
    /// - Throws: `.aspectsMismatch` when the aspects do not match the snapshot's shape.
    public init(snapshot: Snapshot, aspects: [[Double]], layout configuration: LayoutConfiguration, viewport: Size,
                interaction: InteractionConfiguration = InteractionConfiguration(), policy: DropPolicy = DropPolicy(),
                generatedIDBase: UInt64 = 1 << 48) throws(GridControllerError) {
        guard aspects.count == snapshot.sectionCount else { throw .aspectsMismatch }
        for s in 0..<aspects.count where aspects[s].count != snapshot.itemCount(inSection: s) { throw .aspectsMismatch }
        var config = configuration
        config.showsGapCells = false
        self.snapshot = snapshot
        self.layout = CollectionLayout(configuration: config, aspects: aspects)
        self.configuration = interaction
        self.policy = policy
        self.outsideTargets = []
        self.snapping = .none
        self.session = nil
        self.contentOffset = .zero
        self.viewportSize = viewport
        self.history = UndoStack(limit: interaction.historyLimit)
        self.focusedItem = nil
        self.placeholders = []
        self._block = nil
        self._autoScroller = AutoScroller(configuration: interaction.autoScroll)
        self._nextGeneratedID = generatedIDBase
        self._generatedIDBase = generatedIDBase
    }

    // MARK: Host-provided facts

    /// Marks an item read-only: it can be dragged out (copied) but never moved or deleted.
    public mutating func setReadOnly(_ readOnly: Bool, item: ItemID) {
        if readOnly { _readOnly.insert(item) } else { _readOnly.remove(item) }
    }

    public func isReadOnly(_ item: ItemID) -> Bool { _readOnly.contains(item) }

    /// Makes the whole grid read-only or editable again (a role given or taken away while
    /// the page is open). A drag in progress is cancelled: its preview flies home.
    public mutating func setReadOnly(_ readOnly: Bool, now: Double) -> [GridEffect] {
        isReadOnly = readOnly
        guard readOnly, session != nil else { return [] }
        var effects: [GridEffect] = []
        _cancel(now: now, &effects)
        return effects
    }

    /// The title a screen reader announces for an item (B3). An item without one is named by
    /// reference in announcements (``titleReference(_:)``), for the host to fill in from the
    /// data it keeps anyway: the page does, since a million titles held here cost ~160 MB of
    /// wasm memory (BENCHMARKS.md, "The page at 1,000,000 items").
    public mutating func setTitle(_ title: String, for item: ItemID) { _titles[item] = title }

    /// How an announcement names an item that has no title here: U+E000, the item's id in
    /// decimal, U+E001 (private-use characters, which no title a host sets would carry).
    public static func titleReference(_ item: ItemID) -> String { "\u{E000}\(item.rawValue)\u{E001}" }

    /// The title a screen reader announces for a section.
    public mutating func setTitle(_ title: String, forSection section: SectionID) { _sectionTitles[section] = title }

    /// Whether the item is a placeholder waiting for dropped data.
    public func isPlaceholder(_ item: ItemID) -> Bool {
        !_placeholderIDs.isEmpty && _placeholderIDs.contains(item)
    }

    /// The viewport changed size (window resize). Keeps the layout's width in step.
    public mutating func setViewport(_ size: Size) {
        viewportSize = size
        if layout.configuration.containerWidth != size.width {
            var c = layout.configuration
            c.containerWidth = size.width
            _reconfigure(c)
        }
    }

    /// Replaces the layout configuration (kind, spacing, ...), e.g. the snapping demo's
    /// segmented control or a pinch (F22). O(n).
    public mutating func setLayoutConfiguration(_ configuration: LayoutConfiguration) {
        var c = configuration
        c.showsGapCells = layout.configuration.showsGapCells   // shown during a drag only
        _reconfigure(c)
    }

    /// A full prepare at a new configuration. During a drag (gap cells shown) the waterfall's
    /// columns are pinned again from the new layout: a full prepare unpins them, and a block
    /// passing an unpinned waterfall sends the others (and the "Drop here" cells under the
    /// pointer) to other columns — a window resized mid-drag made the gap cell run away.
    mutating func _reconfigure(_ c: LayoutConfiguration) {
        layout.reconfigure(c)
        if layout.configuration.showsGapCells { layout.pinColumns() }
    }

    /// Gives the keyboard focus to an item (nil clears it).
    public mutating func focus(_ item: ItemID?) {
        if let item, !snapshot.contains(item) { return }
        focusedItem = item
    }

    // MARK: What is shown

    /// The arrangement on screen: `snapshot` with a live reorder's block at its place.
    /// O(n) during a live reorder (it is built): for hosts and tests, not for frames.
    public var displayedSnapshot: Snapshot { _order.materialized() }
    /// The geometry on screen: `layout`, which shows the live reorder and, during a drag,
    /// the gap cells (F27).
    public var displayedLayout: CollectionLayout { layout }

    /// The displayed content size.
    public var contentSize: Size { displayedLayout.contentSize }

    /// The model: the arrangement without placeholders (what a store persists). O(n).
    public var modelSnapshot: Snapshot { _model(of: snapshot) }

    // MARK: Internals

    func _title(_ item: ItemID) -> String { _titles[item] ?? Self.titleReference(item) }

    func _isPlaceholderID(_ raw: UInt64) -> Bool { isPlaceholder(ItemID(raw)) }

    /// A fresh id from the engine's range, never one in use.
    mutating func _generateID() -> ItemID {
        while snapshot.contains(ItemID(_nextGeneratedID)) { _nextGeneratedID &+= 1 }
        let id = ItemID(_nextGeneratedID)
        _nextGeneratedID &+= 1
        return id
    }

    func _model(of display: Snapshot) -> Snapshot {
        if placeholders.isEmpty { return display }
        var sections: [(id: SectionID, items: [ItemID], versions: [UInt32])] = []
        sections.reserveCapacity(display.sectionCount)
        for s in 0..<display.sectionCount {
            let items = display.items(inSection: s), versions = display.versions(inSection: s)
            var keptItems: [ItemID] = [], keptVersions: [UInt32] = []
            keptItems.reserveCapacity(items.count); keptVersions.reserveCapacity(items.count)
            for i in 0..<items.count where !isPlaceholder(items[i]) { keptItems.append(items[i]); keptVersions.append(versions[i]) }
            sections.append((id: display.sectionID(at: s), items: keptItems, versions: keptVersions))
        }
        return (try? Snapshot(sections)) ?? Snapshot()
    }

    /// The item counts per section of a snapshot (a batch's `itemCountsAfter`).
    static func _counts(_ s: Snapshot) -> [Int] {
        var out: [Int] = []
        out.reserveCapacity(s.sectionCount)
        for i in 0..<s.sectionCount { out.append(s.itemCount(inSection: i)) }
        return out
    }
}
