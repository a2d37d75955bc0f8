/// What a laid-out element is.
public enum LayoutElementKind: Hashable, Sendable {
    /// A data item; its index path is the item's.
    case item
    /// A section header; index path `(item: 0, section: s)`.
    case header
    /// The temporary "drop at end of section" cell; index path `(item: count, section: s)`.
    case gapCell
}

/// One visible element: its kind, index path and frame in content coordinates.
///
///     for a in layout.attributes(in: viewport) where a.kind == .item {
///         cell(for: a.indexPath).frame = a.frame
///     }
public struct LayoutAttributes: Hashable, Sendable {
    public var kind: LayoutElementKind
    public var indexPath: IndexPath
    public var frame: Rect

    @inlinable public init(kind: LayoutElementKind, indexPath: IndexPath, frame: Rect) {
        self.kind = kind; self.indexPath = indexPath; self.frame = frame
    }
}
