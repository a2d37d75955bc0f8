import GalleryCore

/// Rows as plain structs, read from either backend's rows; the SQL that reads and writes them
/// stays in the store's files.
struct SectionRecord: Sendable {
    var id: Int64?
    var galleryId: Int64
    var title: String
    var rank: String
    var deleted: Bool

    init(_ row: SQLRow) {
        id = row["id"]; galleryId = row["galleryId"]; title = row["title"]; rank = row["rank"]; deleted = row["deleted"]
    }
}

struct ItemRecord: Sendable {
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

    init(_ row: SQLRow) {
        id = row["id"]; galleryId = row["galleryId"]; sectionId = row["sectionId"]; rank = row["rank"]; title = row["title"]
        sourceURL = row["sourceURL"]; fileHash = row["fileHash"]; width = row["width"]; height = row["height"]
        aspect = row["aspect"]; state = row["state"]; reason = row["reason"]; contentVersion = row["contentVersion"]
        trashed = row["trashed"]; trashedAt = row["trashedAt"]; createdAt = row["createdAt"]
    }

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

    /// One new row's values for `columns` (content version 0, not in the trash) and their arguments.
    static let rowValues = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?)"
    static func rowArguments(gallery: Int64, section: Int64, rank: String, title: String, _ item: NewItem, at now: Double) -> SQLArguments {
        [gallery, section, rank, title, item.sourceURL, item.fileHash, item.width, item.height, item.aspect, item.state.rawValue, item.reason, now]
    }

    /// A new item (content version 0, not in the trash); answers its id.
    static func insert(_ db: any SQLConnection, gallery: Int64, section: Int64, rank: String, title: String, _ item: NewItem, at now: Double) throws -> Int64 {
        try db.insert("INSERT INTO item (\(columns)) VALUES \(rowValues) RETURNING id",
                      rowArguments(gallery: gallery, section: section, rank: rank, title: title, item, at: now))
    }

    /// Rows in one statement at most (12 arguments each: 1,200, under both SQLite's and PostgreSQL's limits).
    static let rowsPerInsert = 100

    /// New items in order (content version 0, not in the trash), `rowsPerInsert` rows to a
    /// statement; answers their ids in the same order. A statement per row was half of an
    /// import's time on SQLite (100,000 items: ~55 % in `INSERT … RETURNING` through GRDB, one
    /// statement each) and a round trip each on PostgreSQL. The ranks, distinct within one
    /// insert, tell the returned ids apart (neither database promises RETURNING's order).
    static func insert(_ db: any SQLConnection, gallery: Int64, section: Int64, rows: [(rank: String, title: String, item: NewItem)],
                       at now: Double) throws -> [Int64] {
        if rows.count == 1 { return [try insert(db, gallery: gallery, section: section, rank: rows[0].rank, title: rows[0].title, rows[0].item, at: now)] }
        var ids: [Int64] = []
        ids.reserveCapacity(rows.count)
        var start = 0
        while start < rows.count {
            let part = rows[start..<min(start + rowsPerInsert, rows.count)]
            let values = Array(repeating: rowValues, count: part.count).joined(separator: ", ")
            let arguments = part.flatMap { rowArguments(gallery: gallery, section: section, rank: $0.rank, title: $0.title, $0.item, at: now) }
            let returned = try db.fetchAll("INSERT INTO item (\(columns)) VALUES \(values) RETURNING id, rank", arguments,
                                           cached: part.count == rowsPerInsert)
            let byRank = Dictionary(returned.map { ($0["rank"] as String, $0["id"] as Int64) }, uniquingKeysWith: { a, _ in a })
            guard returned.count == part.count else { throw StoreError.corrupt("an insert of \(part.count) items returned \(returned.count) ids") }
            for r in part {
                guard let id = byRank[r.rank] else { throw StoreError.corrupt("an insert returned no id for rank \(r.rank)") }
                ids.append(id)
            }
            start += part.count
        }
        return ids
    }

    /// Copies of the live items `condition` selects: same content, content version 0, not in the
    /// trash. `gallery`, `section` and `rank` are SQL expressions (a `?` or a column); their
    /// arguments come first, then the creation time, then the condition's.
    static func copy(_ db: any SQLConnection, gallery: String, section: String, rank: String, where condition: String, arguments: SQLArguments) throws {
        try db.execute(copySQL(gallery: gallery, section: section, rank: rank, where: condition), arguments)
    }

    /// The copy of the one item `condition` selects; answers its id.
    static func copyOne(_ db: any SQLConnection, gallery: String, section: String, rank: String, where condition: String, arguments: SQLArguments) throws -> Int64 {
        try db.insert(copySQL(gallery: gallery, section: section, rank: rank, where: condition) + " RETURNING id", arguments)
    }

    static func copySQL(gallery: String, section: String, rank: String, from source: String = "item", where condition: String) -> String {
        """
        INSERT INTO item (\(columns))
        SELECT \(gallery), \(section), \(rank), title, sourceURL, fileHash, width, height, aspect, state, reason, 0, 0, ?
        FROM \(source) WHERE \(condition)
        """
    }
}
