import Foundation
import GalleryCore

/// Share links: made by an owner, looked up by the SHA-256 of the token in the URL.
extension GalleryStore {
    static func link(_ row: SQLRow) -> ShareLink {
        ShareLink(id: row["id"], gallery: row["galleryId"], role: LinkRole(rawValue: row["role"])!, hasPassword: row["passwordHash"] as String? != nil,
                  expiresAt: row["expiresAt"], allowDownload: row["allowDownload"], showMetadata: row["showMetadata"],
                  createdAt: row["createdAt"], lastUsedAt: row["lastUsedAt"], revoked: row["revokedAt"] as Double? != nil)
    }

    public func createLink(gallery: Int64, createdBy: Int64?, role: LinkRole, tokenHash: String, passwordHash: String?,
                           expiresAt: Double?, options: LinkOptions) async throws -> ShareLink {
        try await database.write { db in
            _ = try Self.galleryInfo(db, gallery)
            let id = try db.insert("""
                INSERT INTO share_link (galleryId, createdBy, role, tokenHash, passwordHash, expiresAt, allowDownload, showMetadata, createdAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
                """, [gallery, createdBy, role.rawValue, tokenHash, passwordHash, expiresAt, options.allowDownload, options.showMetadata, Self.now()])
            return Self.link(try db.fetchOne("SELECT * FROM share_link WHERE id = ?", [id])!)
        }
    }

    public func links(gallery: Int64) async throws -> [ShareLink] {
        try await database.read { db in try db.fetchAll("SELECT * FROM share_link WHERE galleryId = ? ORDER BY id", [gallery]).map(Self.link) }
    }

    public func link(_ id: Int64) async throws -> ShareLink? {
        try await database.read { db in try db.fetchOne("SELECT * FROM share_link WHERE id = ?", [id]).map(Self.link) }
    }

    /// The link and its password hash, when the token's hash is known.
    public func link(tokenHash: String) async throws -> (link: ShareLink, passwordHash: String?)? {
        try await database.read { db in
            try db.fetchOne("SELECT * FROM share_link WHERE tokenHash = ?", [tokenHash]).map { (Self.link($0), $0["passwordHash"]) }
        }
    }

    public func touchLink(_ id: Int64, at time: Double) async throws {
        try await database.write { db in try db.execute("UPDATE share_link SET lastUsedAt = ? WHERE id = ?", [time, id]) }
    }

    /// Revokes the link and ends its visitors' sessions; false when the gallery has no such link.
    public func revokeLink(_ id: Int64, gallery: Int64) async throws -> Bool {
        try await database.write { db in
            let changed = try db.execute("UPDATE share_link SET revokedAt = ? WHERE id = ? AND galleryId = ? AND revokedAt IS NULL", [Self.now(), id, gallery]) == 1
            try db.execute("DELETE FROM session WHERE linkId = ?", [id])
            if changed { return true }
            return try db.value("SELECT COUNT(*) FROM share_link WHERE id = ? AND galleryId = ?", [id, gallery], as: Int.self)! == 1
        }
    }

    /// Remembers that an uploader link added these items (the only ones its visitors see).
    public func recordLinkItems(link: Int64, items: [Int64]) async throws {
        try await database.write { db in
            for i in items { try db.execute("INSERT INTO link_item (linkId, itemId) VALUES (?, ?) ON CONFLICT DO NOTHING", [link, i]) }
        }
    }

    public func linkItemIds(link: Int64) async throws -> [Int64] {
        try await database.read { db in try db.values("SELECT itemId FROM link_item WHERE linkId = ? ORDER BY itemId", [link], as: Int64.self) }
    }

    // MARK: Images by hash

    /// Whether an account may see some gallery holding the image (trashed items count only for
    /// roles that see the trash).
    public func accountMaySeeImage(account: Int64, hash: String) async throws -> Bool {
        try await database.read { db in
            try db.value("""
                SELECT EXISTS (SELECT 1 FROM item i JOIN member m ON m.galleryId = i.galleryId AND m.accountId = ?
                               WHERE i.fileHash = ? AND (i.trashed = 0 OR m.role != 'viewer'))
                """, [account, hash], as: Bool.self) ?? false
        }
    }

    /// Whether the link's visitors may see the image: in its gallery, or added by it (uploader).
    public func linkMaySeeImage(link: ShareLink, hash: String) async throws -> Bool {
        try await database.read { db in
            switch link.role {
            case .uploader:
                return try db.value("""
                    SELECT EXISTS (SELECT 1 FROM link_item l JOIN item i ON i.id = l.itemId WHERE l.linkId = ? AND i.fileHash = ?)
                    """, [link.id, hash], as: Bool.self) ?? false
            case .viewer, .editor:
                return try db.value("""
                    SELECT EXISTS (SELECT 1 FROM item WHERE galleryId = ? AND fileHash = ? AND (trashed = 0 OR ? = 1))
                    """, [link.gallery, hash, link.role == .editor], as: Bool.self) ?? false
            }
        }
    }
}
