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
