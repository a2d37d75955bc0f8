/// Everything a `CollectionLayout` needs besides the items: the kind, the container
/// width, section headers, insets and spacing, the drag-time gap cells, and how much of
/// an item counts as "onto it" for drops.
///
///     var config = LayoutConfiguration(kind: .waterfall(columns: 3), containerWidth: 390)
///     config.headerHeight = 44; config.itemSpacing = 4; config.lineSpacing = 4
///     var layout = CollectionLayout(configuration: config, aspects: [[1.5, 0.75]])
public struct LayoutConfiguration: Hashable, Sendable {
    public var kind: LayoutKind
    /// Width of the scrolling container; content never scrolls horizontally.
    public var containerWidth: Double
    /// Height of each section's header (full width, above the section insets); 0 = none.
    public var headerHeight: Double
    /// Insets of each section's items, below its header.
    public var sectionInsets: EdgeInsets
    /// Horizontal gap between neighbouring items (and between waterfall columns).
    public var itemSpacing: Double
    /// Vertical gap between rows (and between items stacked in a waterfall column).
    public var lineSpacing: Double
    /// When true every section ends with a square-ish "drop at end" gap cell (F27).
    /// Turning it on or off never moves an item within its section.
    public var showsGapCells: Bool
    /// The central fraction (per axis) of an item where a drop means "into" it rather
    /// than "insert before/after it". 0.5 = the middle half.
    public var dropIntoFraction: Double

    public init(kind: LayoutKind, containerWidth: Double, headerHeight: Double = 0,
                sectionInsets: EdgeInsets = .zero, itemSpacing: Double = 0, lineSpacing: Double = 0,
                showsGapCells: Bool = false, dropIntoFraction: Double = 0.5) {
        self.kind = kind
        self.containerWidth = containerWidth
        self.headerHeight = headerHeight
        self.sectionInsets = sectionInsets
        self.itemSpacing = itemSpacing
        self.lineSpacing = lineSpacing
        self.showsGapCells = showsGapCells
        self.dropIntoFraction = dropIntoFraction
    }
}
