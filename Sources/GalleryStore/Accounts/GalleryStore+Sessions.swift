import Foundation
import GalleryCore

/// Sessions and API tokens, looked up by the SHA-256 of what the client holds.
extension GalleryStore {
    public func createSession(idHash: String, owner: SessionOwner) async throws {
        let now = Self.now()
        try await database.write { db in
            switch owner {
            case let .account(a):
                try db.execute("INSERT INTO session (idHash, accountId, createdAt, lastSeenAt) VALUES (?, ?, ?, ?)", [idHash, a, now, now])
            case let .link(l):
                try db.execute("INSERT INTO session (idHash, linkId, createdAt, lastSeenAt) VALUES (?, ?, ?, ?)", [idHash, l, now, now])
            }
        }
    }

    public func session(idHash: String) async throws -> StoredSession? {
        try await database.read { db in
            try db.fetchOne("SELECT * FROM session WHERE idHash = ?", [idHash]).map { row in
                let owner: SessionOwner = (row["accountId"] as Int64?).map { .account($0) } ?? .link(row["linkId"])
                return StoredSession(owner: owner, createdAt: row["createdAt"], lastSeenAt: row["lastSeenAt"])
            }
        }
    }

    public func touchSession(idHash: String, at time: Double) async throws {
        try await database.write { db in try db.execute("UPDATE session SET lastSeenAt = ? WHERE idHash = ?", [time, idHash]) }
    }

    public func deleteSession(idHash: String) async throws {
        try await database.write { db in try db.execute("DELETE FROM session WHERE idHash = ?", [idHash]) }
    }

    /// "Sign out everywhere".
    public func deleteSessions(account: Int64) async throws {
        try await database.write { db in try db.execute("DELETE FROM session WHERE accountId = ?", [account]) }
    }

    /// Forgets sessions past their lifetimes.
    public func deleteExpiredSessions(idleBefore: Double, createdBefore: Double) async throws {
        try await database.write { db in
            try db.execute("DELETE FROM session WHERE lastSeenAt < ? OR createdAt < ?", [idleBefore, createdBefore])
        }
    }

    // MARK: API tokens

    static func token(_ row: SQLRow) -> APIToken {
        APIToken(id: row["id"], name: row["name"], scope: APIToken.Scope(rawValue: row["scope"])!, createdAt: row["createdAt"], lastUsedAt: row["lastUsedAt"])
    }

    public func createToken(account: Int64, name: String, scope: APIToken.Scope, tokenHash: String) async throws -> APIToken {
        let name = try Self.checkName(name)
        return try await database.write { db in
            let id = try db.insert("INSERT INTO api_token (accountId, name, scope, tokenHash, createdAt) VALUES (?, ?, ?, ?, ?) RETURNING id",
                                   [account, name, scope.rawValue, tokenHash, Self.now()])
            return Self.token(try db.fetchOne("SELECT * FROM api_token WHERE id = ?", [id])!)
        }
    }

    public func tokens(account: Int64) async throws -> [APIToken] {
        try await database.read { db in try db.fetchAll("SELECT * FROM api_token WHERE accountId = ? ORDER BY id", [account]).map(Self.token) }
    }

    /// The token and its account, when the hash is known.
    public func token(hash: String) async throws -> (token: APIToken, account: Int64)? {
        try await database.read { db in
            try db.fetchOne("SELECT * FROM api_token WHERE tokenHash = ?", [hash]).map { (Self.token($0), $0["accountId"]) }
        }
    }

    public func touchToken(_ id: Int64, at time: Double) async throws {
        try await database.write { db in try db.execute("UPDATE api_token SET lastUsedAt = ? WHERE id = ?", [time, id]) }
    }

    /// Revokes one of the account's tokens; false when it has no such token.
    public func deleteToken(_ id: Int64, account: Int64) async throws -> Bool {
        try await database.write { db in
            return try db.execute("DELETE FROM api_token WHERE id = ? AND accountId = ?", [id, account]) == 1
        }
    }
}
