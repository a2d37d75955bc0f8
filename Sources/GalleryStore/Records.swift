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

/// The one place that writes new item rows: every column a new row sets, in one list.
enum ItemRows {
    static let columns = "galleryId, sectionId, rank, title, sourceURL, fileHash, width, height, aspect, state, reason, contentVersion, trashed, createdAt"

    /// A new item (content version 0, not in the trash); answers its id.
    static func insert(_ db: Database, gallery: Int64, section: Int64, rank: String, title: String, _ item: NewItem, at now: Double) throws -> Int64 {
        try db.execute(sql: "INSERT INTO item (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?)",
                       arguments: [gallery, section, rank, title, item.sourceURL, item.fileHash, item.width, item.height,
                                   item.aspect, item.state.rawValue, item.reason, now])
        return db.lastInsertedRowID
    }

    /// Copies of the live items `condition` selects: same content, content version 0, not in the
    /// trash. `gallery`, `section` and `rank` are SQL expressions (a `?` or a column); their
    /// arguments come first, then the creation time, then the condition's.
    static func copy(_ db: Database, gallery: String, section: String, rank: String, where condition: String, arguments: StatementArguments) throws {
        try db.execute(sql: """
            INSERT INTO item (\(columns))
            SELECT \(gallery), \(section), \(rank), title, sourceURL, fileHash, width, height, aspect, state, reason, 0, 0, ?
            FROM item WHERE \(condition)
            """, arguments: arguments)
    }
}
