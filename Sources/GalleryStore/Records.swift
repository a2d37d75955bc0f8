import GRDB
import GalleryCore

/// Rows as plain structs; the SQL that reads and writes them stays in the store's files.
struct GalleryRecord: Codable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "gallery"
    var id: Int64?
    var name: String
    var version: Int64
    var createdAt: Double
}

struct SectionRecord: Codable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "section"
    var id: Int64?
    var galleryId: Int64
    var title: String
    var rank: String
    var deleted: Bool
}

struct ItemRecord: Codable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "item"
    var id: Int64?
    var galleryId: Int64
    var sectionId: Int64
    var rank: String
    var title: String
    var sourceURL: String?
    var fileHash: String?
    var width: Int?
    var height: Int?
    var aspect: Double
    var state: String
    var reason: String?
    var contentVersion: Int64
    var trashed: Bool
    var trashedAt: Double?
    var createdAt: Double

    var json: ItemJSON {
        let itemState = ItemState(rawValue: state) ?? .failed
        return ItemJSON(id: id ?? 0, sectionId: sectionId, title: title, sourceURL: sourceURL, fileHash: fileHash,
                        width: width, height: height, aspect: itemState == .ready ? aspect : 1, state: itemState,
                        reason: reason, version: UInt32(truncatingIfNeeded: contentVersion),
                        thumbnails: itemState == .ready ? fileHash.map(Thumbnails.init(hash:)) : nil, trashed: trashed)
    }
}

struct OperationRecord: Codable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "operation"
    var galleryId: Int64
    var version: Int64
    var payload: String
    var createdAt: Double
}
