/// Insets on the four edges of a rectangle (section insets, content insets).
public struct EdgeInsets: Hashable, Sendable {
    public var top: Double
    public var left: Double
    public var bottom: Double
    public var right: Double

    @inlinable public init(top: Double = 0, left: Double = 0, bottom: Double = 0, right: Double = 0) {
        self.top = top; self.left = left; self.bottom = bottom; self.right = right
    }

    @inlinable public init(all v: Double) { self.init(top: v, left: v, bottom: v, right: v) }

    public static let zero = EdgeInsets()
}
