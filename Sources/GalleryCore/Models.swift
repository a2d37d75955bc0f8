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

public struct SectionJSON: Codable, Equatable, Sendable {
    public var id: Int64
    public var title: String
    public var items: [ItemJSON]

    public init(id: Int64, title: String, items: [ItemJSON]) { self.id = id; self.title = title; self.items = items }
}

/// The whole gallery at one version.
public struct GallerySnapshotJSON: Codable, Equatable, Sendable {
    public var gallery: GalleryInfo
    public var version: Int64
    public var sections: [SectionJSON]

    public init(gallery: GalleryInfo, version: Int64, sections: [SectionJSON]) {
        self.gallery = gallery; self.version = version; self.sections = sections
    }
}
