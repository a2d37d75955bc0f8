/// The position of an item: its section and its index inside that section.
public struct IndexPath: Hashable, Comparable, Sendable {
    public var section: Int
    public var item: Int

    @inlinable public init(item: Int, section: Int) { self.section = section; self.item = item }

    @inlinable public static func < (a: IndexPath, b: IndexPath) -> Bool {
        a.section != b.section ? a.section < b.section : a.item < b.item
    }
}
