/// The stable identity of one item (an image) in a ``Snapshot``.
///
///     let apple = ItemID(1)
///     var snapshot = try Snapshot([(SectionID(0), [apple, ItemID(2)])])
///     snapshot.indexPath(of: apple)   // IndexPath(item: 0, section: 0)
///
/// A plain 64-bit value so that diffs can hash it without `Hashable` overhead.
public struct ItemID: Hashable, Comparable, Sendable {
    public var rawValue: UInt64

    @inlinable public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    @inlinable public init(rawValue: UInt64) { self.rawValue = rawValue }

    @inlinable public static func < (a: ItemID, b: ItemID) -> Bool { a.rawValue < b.rawValue }
}
