/// How quickly the live reorder preview follows the pointer, as
/// `UICollectionView.ReorderingCadence`: the pointer has to rest on a new destination
/// this long before the others shift (F30: fast by default).
public enum ReorderCadence: UInt8, Hashable, Sendable {
    case immediate
    case fast
    case slow

    /// Seconds the pointer must stay over a new destination before the preview shifts.
    public var delay: Double {
        switch self {
        case .immediate: return 0
        case .fast: return 0.05
        case .slow: return 0.3
        }
    }
}
