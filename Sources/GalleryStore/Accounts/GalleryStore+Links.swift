import Foundation
import GRDB
import GalleryCore

/// Share links: made by an owner, looked up by the SHA-256 of the token in the URL.
extension GalleryStore {
    static func link(_ row: Row) -> ShareLink {
        ShareLink(id: row["id"], gallery: row["galleryId"], role: LinkRole(rawValue: row["role"])!, hasPassword: row["passwordHash"] as String? != nil,
                  expiresAt: row["expiresAt"], allowDownload: row["allowDownload"], showMetadata: row["showMetadata"],
                  createdAt: row["createdAt"], lastUsedAt: row["lastUsedAt"], revoked: row["revokedAt"] as Double? != nil)
    }

    public func createLink(gallery: Int64, createdBy: Int64?, role: LinkRole, tokenHash: String, passwordHash: String?,
                           expiresAt: Double?, options: LinkOptions) async throws -> ShareLink {
        try await pool.write { db in
            _ = try Self.galleryInfo(db, gallery)
            try db.execute(sql: """
                INSERT INTO share_link (galleryId, createdBy, role, tokenHash, passwordHash, expiresAt, allowDownload, showMetadata, createdAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [gallery, createdBy, role.rawValue, tokenHash, passwordHash, expiresAt, options.allowDownload, options.showMetadata, Self.now()])
            return Self.link(try Row.fetchOne(db, sql: "SELECT * FROM share_link WHERE id = ?", arguments: [db.lastInsertedRowID])!)
        }
    }

    public func links(gallery: Int64) async throws -> [ShareLink] {
        try await pool.read { db in try Row.fetchAll(db, sql: "SELECT * FROM share_link WHERE galleryId = ? ORDER BY id", arguments: [gallery]).map(Self.link) }
    }

    public func link(_ id: Int64) async throws -> ShareLink? {
        try await pool.read { db in try Row.fetchOne(db, sql: "SELECT * FROM share_link WHERE id = ?", arguments: [id]).map(Self.link) }
    }

    /// The link and its password hash, when the token's hash is known.
    public func link(tokenHash: String) async throws -> (link: ShareLink, passwordHash: String?)? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM share_link WHERE tokenHash = ?", arguments: [tokenHash]).map { (Self.link($0), $0["passwordHash"]) }
        }
    }

    public func touchLink(_ id: Int64, at time: Double) async throws {
        try await pool.write { db in try db.execute(sql: "UPDATE share_link SET lastUsedAt = ? WHERE id = ?", arguments: [time, id]) }
    }

    /// Revokes the link and ends its visitors' sessions; false when the gallery has no such link.
    public func revokeLink(_ id: Int64, gallery: Int64) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "UPDATE share_link SET revokedAt = ? WHERE id = ? AND galleryId = ? AND revokedAt IS NULL",
                           arguments: [Self.now(), id, gallery])
            let changed = db.changesCount == 1
            try db.execute(sql: "DELETE FROM session WHERE linkId = ?", arguments: [id])
            if changed { return true }
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM share_link WHERE id = ? AND galleryId = ?", arguments: [id, gallery])! == 1
        }
    }

    /// Remembers that an uploader link added these items (the only ones its visitors see).
    public func recordLinkItems(link: Int64, items: [Int64]) async throws {
        try await pool.write { db in
            for i in items { try db.execute(sql: "INSERT OR IGNORE INTO link_item (linkId, itemId) VALUES (?, ?)", arguments: [link, i]) }
        }
    }

    public func linkItemIds(link: Int64) async throws -> [Int64] {
        try await pool.read { db in try Int64.fetchAll(db, sql: "SELECT itemId FROM link_item WHERE linkId = ? ORDER BY itemId", arguments: [link]) }
    }

    // MARK: Images by hash

    /// Whether an account may see some gallery holding the image (trashed items count only for
    /// roles that see the trash).
    public func accountMaySeeImage(account: Int64, hash: String) async throws -> Bool {
        try await pool.read { db in
            try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM item i JOIN member m ON m.galleryId = i.galleryId AND m.accountId = ?
                               WHERE i.fileHash = ? AND (i.trashed = 0 OR m.role != 'viewer'))
                """, arguments: [account, hash]) ?? false
        }
    }

    /// Whether the link's visitors may see the image: in its gallery, or added by it (uploader).
    public func linkMaySeeImage(link: ShareLink, hash: String) async throws -> Bool {
        try await pool.read { db in
            switch link.role {
            case .uploader:
                return try Bool.fetchOne(db, sql: """
                    SELECT EXISTS (SELECT 1 FROM link_item l JOIN item i ON i.id = l.itemId WHERE l.linkId = ? AND i.fileHash = ?)
                    """, arguments: [link.id, hash]) ?? false
            case .viewer, .editor:
                return try Bool.fetchOne(db, sql: """
                    SELECT EXISTS (SELECT 1 FROM item WHERE galleryId = ? AND fileHash = ? AND (trashed = 0 OR ?))
                    """, arguments: [link.gallery, hash, link.role == .editor]) ?? false
            }
        }
    }
}
