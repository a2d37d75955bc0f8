/// A gallery as listed in the document browser (F25).
public struct GalleryInfo: Codable, Equatable, Sendable {
    public var id: Int64
    public var name: String
    public var version: Int64
    public var itemCount: Int
    public var createdAt: Double
    /// The caller's role in the gallery, in lists (nil where the answer is not for one caller).
    public var role: String?

    public init(id: Int64, name: String, version: Int64, itemCount: Int, createdAt: Double, role: String? = nil) {
        self.id = id; self.name = name; self.version = version; self.itemCount = itemCount; self.createdAt = createdAt; self.role = role
    }
}
