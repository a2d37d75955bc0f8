import Foundation
import GalleryCore

/// Accounts, their galleries (members) and second factor. Secrets arrive already hashed: the
/// store never sees a password or a token.
extension GalleryStore {
    static func account(_ row: SQLRow) -> Account {
        Account(id: row["id"], name: row["name"], admin: row["admin"], createdAt: row["createdAt"], totp: row["totpSecret"] as String? != nil)
    }

    public func accountCount() async throws -> Int {
        try await database.read { db in try db.value("SELECT COUNT(*) FROM account", as: Int.self) ?? 0 }
    }

    public func accounts() async throws -> [Account] {
        try await database.read { db in try db.fetchAll("SELECT * FROM account ORDER BY id").map(Self.account) }
    }

    public func account(_ id: Int64) async throws -> Account? {
        try await database.read { db in try db.fetchOne("SELECT * FROM account WHERE id = ?", [id]).map(Self.account) }
    }

    public func account(named name: String) async throws -> Account? {
        try await secrets(named: name)?.account
    }

    public func secrets(named name: String) async throws -> AccountSecrets? {
        try await database.read { db in try db.fetchOne("SELECT * FROM account WHERE lower(name) = lower(?)", [name]).map(Self.secrets) }
    }

    public func secrets(_ id: Int64) async throws -> AccountSecrets? {
        try await database.read { db in try db.fetchOne("SELECT * FROM account WHERE id = ?", [id]).map(Self.secrets) }
    }

    static func secrets(_ row: SQLRow) -> AccountSecrets {
        AccountSecrets(account: account(row), passwordHash: row["passwordHash"], totpSecret: row["totpSecret"],
                       totpPending: row["totpPending"], totpLastStep: row["totpLastStep"])
    }

    static func checkAccountName(_ name: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw StoreError.invalid("name must not be empty") }
        guard trimmed.count <= 64 else { throw StoreError.invalid("name is longer than 64 characters") }
        guard !trimmed.contains(where: { $0.isNewline || $0 == "\0" }) else { throw StoreError.invalid("name must be one line") }
        // A member route names a user by id or by name: a name of digits only would be both.
        guard !trimmed.allSatisfy({ $0.isASCII && $0.isNumber }) else { throw StoreError.invalid("name must not be digits only") }
        // Nothing unseen in a name others read to pick a member: no zero-width or direction
        // marks ("ana\u{200B}" shows as "ana"), no controls, private-use or unassigned code points.
        let unseen: Set<Unicode.GeneralCategory> = [.format, .control, .privateUse, .surrogate, .unassigned]
        guard !trimmed.unicodeScalars.contains(where: { unseen.contains($0.properties.generalCategory) }) else {
            throw StoreError.invalid("name must not contain invisible, control or unassigned characters")
        }
        return trimmed
    }

    /// A name as it reads: compatibility forms folded (NFKC: full-width "ａｎａ", the ligature in
    /// "ﬁona", superscripts) and case ignored. Two accounts never read the same.
    static func nameReading(_ name: String) -> String {
        name.precomposedStringWithCompatibilityMapping.lowercased().precomposedStringWithCompatibilityMapping
    }

    /// A new account. `onlyIfFirst`: refused when any account exists (the setup link creates
    /// the first one only). The first account is an admin and owns every gallery without an
    /// owner (a data folder from before accounts keeps all its galleries).
    public func createAccount(name: String, passwordHash: String, admin: Bool, onlyIfFirst: Bool = false) async throws -> Account {
        let name = try Self.checkAccountName(name)
        return try await database.write { db in
            // Two instances making the first account at once (two setup links): the second waits on
            // this row's key until the first commits (it is gone again by then), then counts its account.
            if onlyIfFirst {
                try db.execute("INSERT INTO startup_claim (task, claimedBy, claimedAt) VALUES ('first-account', '', ?) ON CONFLICT (task) DO NOTHING",
                               [Self.now()])
            }
            defer { if onlyIfFirst { _ = try? db.execute("DELETE FROM startup_claim WHERE task = 'first-account'") } }
            let count = try db.value("SELECT COUNT(*) FROM account", as: Int.self) ?? 0
            if onlyIfFirst && count > 0 { throw StoreError.invalid("the first account exists already") }
            if count == 0 { try db.execute("DELETE FROM setup_token") }
            if try db.value("SELECT COUNT(*) FROM account WHERE lower(name) = lower(?)", [name], as: Int.self)! > 0 {
                throw StoreError.invalid("an account named \"\(name)\" exists already")
            }
            // Look-alikes (the attacker review of session 27): the few accounts' names read here.
            let reading = Self.nameReading(name)
            if let same = try db.values("SELECT name FROM account", as: String.self).first(where: { Self.nameReading($0) == reading }) {
                throw StoreError.invalid("an account named \"\(same)\" exists already, which \"\(name)\" reads as")
            }
            let id = try db.insert("INSERT INTO account (name, passwordHash, admin, createdAt) VALUES (?, ?, ?, ?) RETURNING id",
                                   [name, passwordHash, admin || count == 0, Self.now()])
            if count == 0 { try Self.adoptOwnerlessGalleries(db, account: id) }
            return Self.account(try db.fetchOne("SELECT * FROM account WHERE id = ?", [id])!)
        }
    }

    /// Galleries nobody owns go to `account` (the first admin): after an upgrade, an import, or
    /// the sample gallery made before anyone signed up.
    static func adoptOwnerlessGalleries(_ db: any SQLConnection, account: Int64) throws {
        try db.execute("""
            INSERT INTO member (galleryId, accountId, role)
            SELECT g.id, ?, 'owner' FROM gallery g
            WHERE g.deleting = 0 AND NOT EXISTS (SELECT 1 FROM member m WHERE m.galleryId = g.id AND m.role = 'owner')
            ON CONFLICT (galleryId, accountId) DO UPDATE SET role = 'owner'
            """, [account])
    }

    /// Gives galleries without an owner to the first admin, if there is one.
    public func adoptOwnerlessGalleries() async throws {
        try await database.write { db in
            if let admin = try db.value("SELECT id FROM account WHERE admin = 1 ORDER BY id LIMIT 1", as: Int64.self) {
                try Self.adoptOwnerlessGalleries(db, account: admin)
            }
        }
    }

    public func setPassword(account: Int64, passwordHash: String) async throws {
        try await database.write { db in
            guard try db.execute("UPDATE account SET passwordHash = ? WHERE id = ?", [passwordHash, account]) == 1 else { throw StoreError.invalid("unknown user \(account)") }
        }
    }

    /// Removes an account with its sessions, tokens and memberships. The last admin stays.
    /// Galleries it alone owned go to the first remaining admin, so nothing becomes unreachable.
    public func deleteAccount(_ id: Int64) async throws {
        try await database.write { db in
            guard let row = try db.fetchOne("SELECT admin FROM account WHERE id = ?", [id]) else {
                throw StoreError.invalid("unknown user \(id)")
            }
            let admins = try db.value("SELECT COUNT(*) FROM account WHERE admin = 1", as: Int.self)!
            if (row["admin"] as Bool) && admins == 1 { throw StoreError.invalid("the last admin cannot be removed") }
            try db.execute("DELETE FROM account WHERE id = ?", [id])
            if let admin = try db.value("SELECT id FROM account WHERE admin = 1 ORDER BY id LIMIT 1", as: Int64.self) {
                try Self.adoptOwnerlessGalleries(db, account: admin)
            }
        }
    }

    // MARK: Second factor

    public func setPendingTOTP(account: Int64, secret: String?) async throws {
        try await database.write { db in try db.execute("UPDATE account SET totpPending = ? WHERE id = ?", [secret, account]) }
    }

    /// Turns the pending secret on and replaces the recovery codes.
    public func confirmTOTP(account: Int64, step: Int64, recoveryCodeHashes: [String]) async throws {
        try await database.write { db in
            guard try db.execute("UPDATE account SET totpSecret = totpPending, totpPending = NULL, totpLastStep = ? WHERE id = ? AND totpPending IS NOT NULL", [step, account]) == 1 else { throw StoreError.invalid("no second factor is being set up") }
            try db.execute("DELETE FROM recovery_code WHERE accountId = ?", [account])
            for h in recoveryCodeHashes {
                try db.execute("INSERT INTO recovery_code (accountId, codeHash) VALUES (?, ?)", [account, h])
            }
        }
    }

    public func disableTOTP(account: Int64) async throws {
        try await database.write { db in
            try db.execute("UPDATE account SET totpSecret = NULL, totpPending = NULL, totpLastStep = NULL WHERE id = ?", [account])
            try db.execute("DELETE FROM recovery_code WHERE accountId = ?", [account])
        }
    }

    /// Records a used time step; false when that step (or a later one) was used already (replay).
    public func useTOTPStep(account: Int64, step: Int64) async throws -> Bool {
        try await database.write { db in
            return try db.execute("UPDATE account SET totpLastStep = ? WHERE id = ? AND (totpLastStep IS NULL OR totpLastStep < ?)", [step, account, step]) == 1
        }
    }

    /// Spends a recovery code; false when it is unknown or spent.
    public func useRecoveryCode(account: Int64, codeHash: String) async throws -> Bool {
        try await database.write { db in
            return try db.execute("UPDATE recovery_code SET usedAt = ? WHERE accountId = ? AND codeHash = ? AND usedAt IS NULL", [Self.now(), account, codeHash]) == 1
        }
    }

    // MARK: Members

    /// The account's role in the gallery, nil when it has none.
    public func role(account: Int64, gallery: Int64) async throws -> GalleryRole? {
        try await database.read { db in
            try db.value("SELECT role FROM member WHERE galleryId = ? AND accountId = ?", [gallery, account], as: String.self)
                .flatMap(GalleryRole.init(rawValue:))
        }
    }

    /// Every gallery the account may see, with its role there.
    public func roles(account: Int64) async throws -> [Int64: GalleryRole] {
        try await database.read { db in
            var out: [Int64: GalleryRole] = [:]
            for row in try db.fetchAll("SELECT galleryId, role FROM member WHERE accountId = ?", [account]) {
                out[row["galleryId"]] = GalleryRole(rawValue: row["role"])
            }
            return out
        }
    }

    public func members(gallery: Int64) async throws -> [Member] {
        try await database.read { db in
            try db.fetchAll("""
                SELECT a.id, a.name, m.role FROM member m JOIN account a ON a.id = m.accountId
                WHERE m.galleryId = ? ORDER BY a.name
                """, [gallery]).map { Member(user: .init(id: $0["id"], name: $0["name"]), role: GalleryRole(rawValue: $0["role"])!) }
        }
    }

    /// Gives `account` the role (owner, editor, viewer); a gallery keeps at least one owner.
    public func setMember(gallery: Int64, account: Int64, role: GalleryRole?) async throws {
        try await database.write { db in
            _ = try Self.galleryInfo(db, gallery)
            guard try db.value("SELECT COUNT(*) FROM account WHERE id = ?", [account], as: Int.self)! == 1 else {
                throw StoreError.invalid("unknown user \(account)")
            }
            if let role {
                try db.execute("""
                    INSERT INTO member (galleryId, accountId, role) VALUES (?, ?, ?)
                    ON CONFLICT (galleryId, accountId) DO UPDATE SET role = excluded.role
                    """, [gallery, account, role.rawValue])
            } else {
                try db.execute("DELETE FROM member WHERE galleryId = ? AND accountId = ?", [gallery, account])
            }
            let owners = try db.value("SELECT COUNT(*) FROM member WHERE galleryId = ? AND role = 'owner'", [gallery], as: Int.self)!
            if owners == 0 { throw StoreError.invalid("a gallery needs an owner: make someone else owner first") }
        }
    }
}
