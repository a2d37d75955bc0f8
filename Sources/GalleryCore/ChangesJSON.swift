import GridEngine

/// What happened between two gallery versions: the engine's stages, plus the data of every
/// item and section the stages insert or reload (so the page can draw them at once), the
/// current section titles and the gallery's current name (so a rename reaches every window).
public struct ChangesJSON: Codable, Equatable, Sendable {
    public var fromVersion: Int64
    public var toVersion: Int64
    public var stages: [StageJSON]
    public var items: [ItemJSON]
    public var sections: [SectionInfoJSON]
    /// The gallery's name at `toVersion` (optional in decoding: older answers lack it).
    public var name: String?

    public init(fromVersion: Int64, toVersion: Int64, stages: [StageJSON], items: [ItemJSON], sections: [SectionInfoJSON], name: String? = nil) {
        self.fromVersion = fromVersion; self.toVersion = toVersion; self.stages = stages; self.items = items; self.sections = sections
        self.name = name
    }
}

public struct SectionInfoJSON: Codable, Equatable, Sendable {
    public var id: Int64
    public var title: String
    public init(id: Int64, title: String) { self.id = id; self.title = title }
}

extension Snapshot {
    /// The engine snapshot of a gallery: live sections in order, their live items with content versions.
    public init(gallery: GallerySnapshotJSON) throws(SnapshotError) {
        try self.init(gallery.sections.map { s in
            (id: SectionID(UInt64(s.id)), items: s.items.map { ItemID(UInt64($0.id)) }, versions: s.items.map(\.version))
        })
    }
}
