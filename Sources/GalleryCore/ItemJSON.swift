/// URLs of an item's thumbnails (content-addressed, cached forever).
public struct Thumbnails: Codable, Equatable, Sendable {
    public var grid: String
    public var detail: String
    public var original: String

    public init(hash: String) {
        grid = "/api/images/\(hash)/grid.jpg"
        detail = "/api/images/\(hash)/detail.jpg"
        original = "/api/images/\(hash)/original"
    }
}

/// An item as the page needs it to lay out without measuring: id usable as the engine's
/// ItemID, aspect (width / height; 1 while pending or failed, the square tile of F16).
public struct ItemJSON: Codable, Equatable, Sendable {
    public var id: Int64
    public var sectionId: Int64
    public var title: String
    public var sourceURL: String?
    public var fileHash: String?
    public var width: Int?
    public var height: Int?
    public var aspect: Double
    public var state: ItemState
    public var reason: String?
    /// Content version (the engine's UInt32 item version): bumped when what the cell shows changes.
    public var version: UInt32
    public var thumbnails: Thumbnails?
    public var trashed: Bool

    public init(id: Int64, sectionId: Int64, title: String, sourceURL: String?, fileHash: String?, width: Int?, height: Int?,
                aspect: Double, state: ItemState, reason: String?, version: UInt32, thumbnails: Thumbnails?, trashed: Bool) {
        self.id = id; self.sectionId = sectionId; self.title = title; self.sourceURL = sourceURL; self.fileHash = fileHash
        self.width = width; self.height = height; self.aspect = aspect; self.state = state; self.reason = reason
        self.version = version; self.thumbnails = thumbnails; self.trashed = trashed
    }
}
