import GalleryCore

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
