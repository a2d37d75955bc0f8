import GalleryCore

/// An item the server creates: a dropped URL's placeholder, an upload, an imported image.
public struct NewItem: Sendable {
    public var title: String
    public var sourceURL: String?
    public var fileHash: String?
    public var width: Int?
    public var height: Int?
    public var state: ItemState
    public var reason: String?

    public init(title: String, sourceURL: String? = nil, fileHash: String? = nil, width: Int? = nil, height: Int? = nil,
                state: ItemState = .pending, reason: String? = nil) {
        self.title = title; self.sourceURL = sourceURL; self.fileHash = fileHash
        self.width = width; self.height = height; self.state = state; self.reason = reason
    }

    /// Width over height when both are known, else 1 (a square until the image is probed).
    public var aspect: Double {
        if let width, let height, width > 0, height > 0 { return Double(width) / Double(height) }
        return 1
    }
}
