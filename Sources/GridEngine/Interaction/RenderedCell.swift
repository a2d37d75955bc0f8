/// What a rendered element is.
public enum RenderedCellKind: UInt8, Hashable, Sendable {
    case item
    case header
    /// The temporary end-of-section drop cell (F27).
    case gapCell
    /// A cell holding the place of loading external data (F19).
    case placeholder
    /// The floating preview of a lifted item (F10), above everything.
    case preview
}

/// State flags of a rendered element.
public struct RenderedCellFlags: OptionSet, Hashable, Sendable {
    public var rawValue: UInt16
    @inlinable public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// A floating preview of a dragged item.
    public static let lifted = RenderedCellFlags(rawValue: 1)
    /// The grid slot of an item that is being dragged (shown at `sourceOpacity`).
    public static let liftedSource = RenderedCellFlags(rawValue: 2)
    /// The item a swap-mode drag hovers (F4).
    public static let hoveredTarget = RenderedCellFlags(rawValue: 4)
    /// A gap cell the drop would land in.
    public static let dropTarget = RenderedCellFlags(rawValue: 8)
    /// Draw with the lift tint (the seed's grey background).
    public static let tinted = RenderedCellFlags(rawValue: 16)
    /// The keyboard focus.
    public static let focused = RenderedCellFlags(rawValue: 32)
    /// A preview flying into an outside target (the trash) to vanish.
    public static let vanishing = RenderedCellFlags(rawValue: 64)
    /// The proposal under the preview is forbidden (draw the no-entry badge).
    public static let forbidden = RenderedCellFlags(rawValue: 128)
}

/// One element to draw: a plain record the page flattens into numbers. `frame` is in
/// content coordinates (subtract `contentOffset` for the viewport), unscaled; `scale`
/// is applied about the frame's centre.
public struct RenderedCell: Hashable, Sendable {
    public var kind: RenderedCellKind
    /// The item shown; for headers and gap cells, the raw id of their section (a host names
    /// the section by it without keeping the arrangement).
    public var item: ItemID
    public var indexPath: IndexPath
    public var frame: Rect
    public var scale: Double
    public var opacity: Double
    public var zIndex: Int
    public var flags: RenderedCellFlags

    public init(kind: RenderedCellKind, item: ItemID, indexPath: IndexPath, frame: Rect, scale: Double = 1,
                opacity: Double = 1, zIndex: Int = 0, flags: RenderedCellFlags = []) {
        self.kind = kind; self.item = item; self.indexPath = indexPath; self.frame = frame
        self.scale = scale; self.opacity = opacity; self.zIndex = zIndex; self.flags = flags
    }
}
