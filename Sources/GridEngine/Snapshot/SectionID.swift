/// The stable identity of one section of a ``Snapshot``.
///
///     let favourites = SectionID(1)
///     var snapshot = Snapshot()
///     try snapshot.appendSection(favourites, items: [ItemID(7)])
///
/// A plain 64-bit value, hashed by the engine's own table.
public struct SectionID: Hashable, Comparable, Sendable {
    public var rawValue: UInt64

    @inlinable public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    @inlinable public init(rawValue: UInt64) { self.rawValue = rawValue }

    @inlinable public static func < (a: SectionID, b: SectionID) -> Bool { a.rawValue < b.rawValue }
}
