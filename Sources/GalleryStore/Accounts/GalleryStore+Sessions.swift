import Foundation
import GRDB
import GalleryCore

/// Sessions and API tokens, looked up by the SHA-256 of what the client holds.
extension GalleryStore {
    public func createSession(idHash: String, owner: SessionOwner) async throws {
        let now = Self.now()
        try await pool.write { db in
            switch owner {
            case let .account(a):
                try db.execute(sql: "INSERT INTO session (idHash, accountId, createdAt, lastSeenAt) VALUES (?, ?, ?, ?)", arguments: [idHash, a, now, now])
            case let .link(l):
                try db.execute(sql: "INSERT INTO session (idHash, linkId, createdAt, lastSeenAt) VALUES (?, ?, ?, ?)", arguments: [idHash, l, now, now])
            }
        }
    }

    public func session(idHash: String) async throws -> StoredSession? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM session WHERE idHash = ?", arguments: [idHash]).map { row in
                let owner: SessionOwner = (row["accountId"] as Int64?).map { .account($0) } ?? .link(row["linkId"])
                return StoredSession(owner: owner, createdAt: row["createdAt"], lastSeenAt: row["lastSeenAt"])
            }
        }
    }

    public func touchSession(idHash: String, at time: Double) async throws {
        try await pool.write { db in try db.execute(sql: "UPDATE session SET lastSeenAt = ? WHERE idHash = ?", arguments: [time, idHash]) }
    }

    public func deleteSession(idHash: String) async throws {
        try await pool.write { db in try db.execute(sql: "DELETE FROM session WHERE idHash = ?", arguments: [idHash]) }
    }

    /// "Sign out everywhere".
    public func deleteSessions(account: Int64) async throws {
        try await pool.write { db in try db.execute(sql: "DELETE FROM session WHERE accountId = ?", arguments: [account]) }
    }

    /// Forgets sessions past their lifetimes.
    public func deleteExpiredSessions(idleBefore: Double, createdBefore: Double) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM session WHERE lastSeenAt < ? OR createdAt < ?", arguments: [idleBefore, createdBefore])
        }
    }

    // MARK: API tokens

    static func token(_ row: Row) -> APIToken {
        APIToken(id: row["id"], name: row["name"], scope: APIToken.Scope(rawValue: row["scope"])!, createdAt: row["createdAt"], lastUsedAt: row["lastUsedAt"])
    }

    public func createToken(account: Int64, name: String, scope: APIToken.Scope, tokenHash: String) async throws -> APIToken {
        let name = try Self.checkName(name)
        return try await pool.write { db in
            try db.execute(sql: "INSERT INTO api_token (accountId, name, scope, tokenHash, createdAt) VALUES (?, ?, ?, ?, ?)",
                           arguments: [account, name, scope.rawValue, tokenHash, Self.now()])
            return Self.token(try Row.fetchOne(db, sql: "SELECT * FROM api_token WHERE id = ?", arguments: [db.lastInsertedRowID])!)
        }
    }

    public func tokens(account: Int64) async throws -> [APIToken] {
        try await pool.read { db in try Row.fetchAll(db, sql: "SELECT * FROM api_token WHERE accountId = ? ORDER BY id", arguments: [account]).map(Self.token) }
    }

    /// The token and its account, when the hash is known.
    public func token(hash: String) async throws -> (token: APIToken, account: Int64)? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM api_token WHERE tokenHash = ?", arguments: [hash]).map { (Self.token($0), $0["accountId"]) }
        }
    }

    public func touchToken(_ id: Int64, at time: Double) async throws {
        try await pool.write { db in try db.execute(sql: "UPDATE api_token SET lastUsedAt = ? WHERE id = ?", arguments: [time, id]) }
    }

    /// Revokes one of the account's tokens; false when it has no such token.
    public func deleteToken(_ id: Int64, account: Int64) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM api_token WHERE id = ? AND accountId = ?", arguments: [id, account])
            return db.changesCount == 1
        }
    }
}
