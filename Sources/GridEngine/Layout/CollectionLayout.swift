/// The geometry of a sectioned collection: grid, flow, waterfall or justified rows (one
/// struct, switched by `LayoutKind`), with section headers, insets, spacing and the
/// optional end-of-section gap cells. Sizes come from data (each item's aspect ratio,
/// width / height; unknown or failed images are 1), so nothing is measured.
///
///     var layout = CollectionLayout(configuration: config, aspects: [[1.5, 1, 0.75], [1]])
///     let visible = layout.attributes(in: viewport)          // what to draw
///     let target = layout.dropDestination(at: pointer)       // .insert(at:) / .into(_)
///
/// Complexity: `prepare` is O(n). `attributes(in:)`, `indexPath(at:)` and
/// `dropDestination(at:)` are O(log n + visible): binary search over section tops, then
/// over rows (grid, flow, justified) or over each column's y-sorted items (waterfall).
/// `itemMoved(from:to:)` re-lays out only the affected sections from the first affected
/// item (nothing at all for grid and flow, whose cells are all one size) and re-sums the
/// section tops, O(sections).
///
/// Storage is a struct of flat `Double` arrays indexed by a global item index
/// (`_sectionStart[s] + item`). Item y is stored relative to its section's top, so a
/// change in one section moves later sections by rewriting only `_sectionTop`.
public struct CollectionLayout: Sendable {
    public internal(set) var configuration: LayoutConfiguration

    // Per item, global index. `_y` is relative to the section top.
    @usableFromInline var _aspect: [Double] = []
    @usableFromInline var _x: [Double] = []
    @usableFromInline var _y: [Double] = []
    @usableFromInline var _w: [Double] = []
    @usableFromInline var _h: [Double] = []

    // Per section. `_sectionStart` has one more entry than there are sections.
    @usableFromInline var _sectionStart: [Int] = [0]
    @usableFromInline var _sectionTop: [Double] = []
    @usableFromInline var _sectionHeight: [Double] = []
    // Gap cell frame per section (y relative to the section top); zero size when hidden.
    @usableFromInline var _gapX: [Double] = []
    @usableFromInline var _gapY: [Double] = []
    @usableFromInline var _gapW: [Double] = []
    @usableFromInline var _gapH: [Double] = []

    // Rows (grid, flow, justified): first item of each row, section-relative; the rows of
    // section s are `_rowFirst[_sectionRowStart[s] ..< _sectionRowStart[s + 1]]`.
    @usableFromInline var _rowFirst: [Int32] = []
    @usableFromInline var _sectionRowStart: [Int] = [0]

    // Waterfall: each item's column, and per section its items grouped by column in index
    // (hence y) order: column c of section s is `_columnItems[base + lo ..< base + hi]`
    // with lo/hi from `_columnEnd[s * columns + c - 1, c]` (section-relative ends).
    @usableFromInline var _column: [Int32] = []
    /// Waterfall columns pinned during a drag (issue 13), per item (moving with it like
    /// `_aspect`); empty when not pinned. See `pinColumns()`.
    @usableFromInline var _hint: [Int32] = []
    /// Per section, the first item placed in its pinned column instead of the shortest
    /// (Int.max: none): where `unpinColumns()` re-lays out from.
    @usableFromInline var _hintFirst: [Int] = []
    @usableFromInline var _columnItems: [Int32] = []
    @usableFromInline var _columnEnd: [Int32] = []

    // Sanitised metrics of the current configuration (see `_computeMetrics`).
    @usableFromInline var _m = _Metrics()

    /// An empty layout (no sections) with this configuration.
    public init(configuration: LayoutConfiguration) {
        self.configuration = configuration
        _m = _Metrics(configuration)
    }

    /// A layout of `aspects[section][item]`, prepared.
    public init(configuration: LayoutConfiguration, aspects: [[Double]]) {
        self.init(configuration: configuration)
        prepare(aspects: aspects)
    }

    // MARK: Basic queries

    @inlinable public var numberOfSections: Int { _sectionTop.count }
    @inlinable public var numberOfItems: Int { _aspect.count }
    @inlinable public func numberOfItems(inSection s: Int) -> Int { _sectionStart[s + 1] - _sectionStart[s] }

    /// Width is the container width; height ends at the last section's bottom.
    public var contentSize: Size {
        let n = _sectionTop.count
        let height = n == 0 ? 0 : _sectionTop[n - 1] + _sectionHeight[n - 1]
        return Size(width: configuration.containerWidth, height: height)
    }

    /// The aspect ratio the layout holds for an item.
    @inlinable public func aspect(of ip: IndexPath) -> Double { _aspect[_sectionStart[ip.section] + ip.item] }

    /// The frame of an item in content coordinates, or nil if there is no such item. O(1).
    public func frame(of ip: IndexPath) -> Rect? {
        guard ip.section >= 0, ip.section < numberOfSections, ip.item >= 0,
              ip.item < numberOfItems(inSection: ip.section) else { return nil }
        return _itemFrame(_sectionStart[ip.section] + ip.item, section: ip.section)
    }

    /// The section's whole frame: header, insets, items and gap cell.
    public func sectionFrame(_ s: Int) -> Rect {
        Rect(x: 0, y: _sectionTop[s], width: configuration.containerWidth, height: _sectionHeight[s])
    }

    /// The header's frame, or nil when headers are off (`headerHeight` 0).
    public func headerFrame(section s: Int) -> Rect? {
        guard _m.headerHeight > 0 else { return nil }
        return Rect(x: 0, y: _sectionTop[s], width: configuration.containerWidth, height: _m.headerHeight)
    }

    /// The gap cell's frame, or nil when gap cells are hidden.
    public func gapCellFrame(section s: Int) -> Rect? {
        guard configuration.showsGapCells else { return nil }
        return Rect(x: _gapX[s], y: _sectionTop[s] + _gapY[s], width: _gapW[s], height: _gapH[s])
    }

    @inlinable func _itemFrame(_ g: Int, section s: Int) -> Rect {
        Rect(x: _x[g], y: _sectionTop[s] + _y[g], width: _w[g], height: _h[g])
    }
}

/// The configuration reduced to the numbers the layout loops use, with degenerate
/// values made safe (no division by zero, no negative widths).
@usableFromInline struct _Metrics: Sendable {
    @usableFromInline var left = 0.0
    @usableFromInline var available = 0.0      // container width minus left/right insets, ≥ 0
    @usableFromInline var itemsTop = 0.0       // section-relative: header + top inset
    @usableFromInline var bottomInset = 0.0
    @usableFromInline var headerHeight = 0.0
    @usableFromInline var itemSpacing = 0.0
    @usableFromInline var lineSpacing = 0.0
    @usableFromInline var columns = 1          // grid/waterfall columns, flow items per row
    @usableFromInline var cellWidth = 0.0      // grid/flow cell, waterfall column width
    @usableFromInline var cellHeight = 0.0     // grid/flow cell height
    @usableFromInline var rowHeight = 1.0      // justified target

    init() {}

    init(_ c: LayoutConfiguration) {
        func finite(_ v: Double, _ fallback: Double = 0) -> Double { v.isFinite ? v : fallback }
        let insets = c.sectionInsets
        left = max(0, finite(insets.left))
        headerHeight = max(0, finite(c.headerHeight))
        itemsTop = headerHeight + max(0, finite(insets.top))
        bottomInset = max(0, finite(insets.bottom))
        itemSpacing = max(0, finite(c.itemSpacing))
        lineSpacing = max(0, finite(c.lineSpacing))
        available = max(0, finite(c.containerWidth) - left - max(0, finite(insets.right)))
        switch c.kind {
        case .grid(let n, let aspect):
            columns = max(1, n)
            cellWidth = max(0, (available - Double(columns - 1) * itemSpacing) / Double(columns))
            cellHeight = cellWidth / _sanitizedAspect(aspect)
        case .waterfall(let n):
            columns = max(1, n)
            cellWidth = max(0, (available - Double(columns - 1) * itemSpacing) / Double(columns))
        case .flow(let size):
            cellWidth = max(0, finite(size.width))
            cellHeight = max(0, finite(size.height))
            let perRow = (available + itemSpacing) / (cellWidth + itemSpacing)
            // Guard Int(_:) against infinity and absurd counts.
            columns = perRow.isFinite ? max(1, Int(min(perRow, 1_000_000))) : 1
        case .justified(let h):
            rowHeight = h.isFinite && h > 0 ? h : 1
        }
    }
}

/// Unknown, failed or nonsense aspects lay out as squares (F16).
@inlinable func _sanitizedAspect(_ a: Double) -> Double {
    a.isFinite && a > 0 ? a : 1
}
