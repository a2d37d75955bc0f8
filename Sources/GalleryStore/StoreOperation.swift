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

/// How ingestion of a pending item ended.
public enum IngestOutcome: Sendable, Equatable {
    case ready(hash: String, width: Int, height: Int)
    case failed(reason: String)
}

/// Everything a write batch can contain: the clients' operations and the server's own.
public enum StoreOperation: Sendable {
    case client(GalleryOperation)
    /// New items, in order, at a destination (a placeholder at the drop position, F19).
    case insert([NewItem], at: Destination)
    /// A pending item becomes ready or failed; its content version is bumped (a reload).
    case finish(item: Int64, IngestOutcome)
    /// A ready item's displayed size was read again (after an upgrade that reads EXIF
    /// orientation): new width, height and aspect, and a new content version when they change.
    case resize(item: Int64, width: Int, height: Int)
    /// Every pending item of the gallery waiting for this URL (the dropped one and its copies) settles at once.
    case finishURL(String, IngestOutcome)
    /// The gallery's new name (checked by the caller): a version of its own with no stages, so
    /// the live stream and catch-up carry it to every window (`ChangesJSON.name`).
    case renameGallery(String)
}

/// The answer to a batch: the new version, the staged changes from the previous one, the ids
/// the batch created, and how many rows it wrote (moves write one row per moved item plus
/// the version and the log row).
public struct BatchResult: Codable, Sendable {
    public var version: Int64
    public var changes: ChangesJSON
    public var createdItems: [Int64]
    public var createdSections: [Int64]
    public var rowsWritten: Int
    /// Image hashes no item refers to any more (after a purge); the caller may delete their files.
    public var orphanedHashes: [String]
}
