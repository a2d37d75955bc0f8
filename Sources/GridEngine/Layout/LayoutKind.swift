/// Which arrangement a `CollectionLayout` computes. An enum (not a protocol) so the host
/// switches layouts at run time without existentials, which Embedded Swift lacks.
///
///     var config = LayoutConfiguration(kind: .grid(columns: 4), containerWidth: 390)
///     config.kind = .justified(rowHeight: 120)   // switch at run time
///     layout.reconfigure(config)
///
/// Degenerate values are sanitised when laying out: fewer than one column counts as one,
/// a non-positive or non-finite aspect or row height counts as 1.
public enum LayoutKind: Hashable, Sendable {
    /// `columns` equal columns; every cell has the same `aspect` (width / height, 1 = square).
    case grid(columns: Int, aspect: Double = 1)
    /// Fixed-size items wrapped into left-aligned rows (as many per row as fit).
    case flow(itemSize: Size)
    /// `columns` equal columns; an item's height comes from its aspect; each item goes
    /// into the shortest column (ties to the leftmost). Masonry.
    case waterfall(columns: Int)
    /// Rows at about `rowHeight`, each scaled to fill the width exactly; the last row keeps
    /// the target height, left-aligned; an item too wide alone gets a row of its own.
    case justified(rowHeight: Double)
}

extension LayoutKind {
    /// Grid and flow cells all have one size, so moving an item changes no frame.
    @inlinable public var hasUniformCells: Bool {
        switch self {
        case .grid, .flow: return true
        case .waterfall, .justified: return false
        }
    }

    /// The same kind with a new density: columns for grid and waterfall, row height for
    /// justified, item width (height scaled alike) for flow. What a pinch changes (F22).
    public func withDensity(columns: Int, rowHeight: Double) -> LayoutKind {
        switch self {
        case .grid(_, let aspect): return .grid(columns: columns, aspect: aspect)
        case .waterfall: return .waterfall(columns: columns)
        case .justified: return .justified(rowHeight: rowHeight)
        case .flow(let s):
            let scale = s.height > 0 ? rowHeight / s.height : 1
            return .flow(itemSize: Size(width: s.width * scale, height: rowHeight))
        }
    }
}
