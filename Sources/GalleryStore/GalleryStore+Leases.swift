import Foundation

/// Ingestion leases (issue 14, several instances): a pending item is worked on by one instance at
/// a time. The instance claims it (`leaseOwner`, `leaseUntil` on its row, migration v5), renews
/// the lease while the fetch or the thumbnails run, and the finish — conditional on still holding
/// it — clears it. A lease that ran out (its instance was killed, or lost the database for longer
/// than the lease) is claimed by whichever instance looks next. Times are the database's clock
/// (`SQLDialect.now`), so instances on machines whose clocks differ agree on what expired.
///
/// PostgreSQL: the claim picks its rows with `FOR UPDATE SKIP LOCKED`, so two instances claiming
/// at once never wait on each other nor take the same row; a row another claim has just taken is
/// re-checked against the lease (READ COMMITTED re-reads an updated row) and left out. SQLite has
/// one writer: claims are serialised by it, the same SQL without the lock clause.
public struct ClaimedItem: Sendable, Equatable {
    public var id: Int64
    public var gallery: Int64
    public var fileHash: String?
    public var sourceURL: String?
}

/// Which pending items a finish may settle.
public enum LeaseCondition: Sendable, Equatable {
    /// Whoever holds them (`gallery import` without a server, the store's own tests).
    case none
    /// Only while `owner` holds the item's lease: an instance that lost its lease (it stalled,
    /// another took the item over) finishes nothing.
    case held(by: String)
    /// Held by `owner`, or by nobody, or by a lease that ran out: the copies of a dropped URL
    /// settled by one fetch, but not those another instance is fetching right now.
    case heldOrFree(by: String)

    /// The SQL condition on `item` (no alias) and its arguments.
    func sql(_ d: SQLDialect) -> (String, SQLArguments) {
        switch self {
        case .none: return ("", [])
        case let .held(owner): return (" AND leaseOwner = ?", [owner])
        case let .heldOrFree(owner): return (" AND (leaseOwner = ? OR leaseUntil IS NULL OR leaseUntil < \(d.now))", [owner])
        }
    }
}

extension GalleryStore {
    /// Claims up to `limit` pending items that nobody holds or whose lease ran out, oldest first,
    /// for `owner` until `lease` seconds from now. Answers what it claimed.
    public func claimPending(owner: String, lease: Double, limit: Int) async throws -> [ClaimedItem] {
        guard limit > 0 else { return [] }
        return try await database.write { db in try Self.claim(db, owner: owner, lease: lease, limit: limit, item: nil) }
    }

    /// Whether some pending item is free to claim (nobody holds it, or its lease ran out): a
    /// read, so that an idle instance's look costs no write transaction.
    public func hasClaimable() async throws -> Bool {
        try await database.read { db in
            try db.exists("SELECT 1 FROM item WHERE state = 'pending' AND (leaseUntil IS NULL OR leaseUntil < \(db.dialect.now))")
        }
    }

    /// Claims one item if it is pending and free (nobody holds it, or the lease ran out): the
    /// start of a job this instance queued itself (an upload, a dropped URL). False: another
    /// instance has it, or it is no longer pending.
    public func claim(item: Int64, owner: String, lease: Double) async throws -> ClaimedItem? {
        try await database.write { db in try Self.claim(db, owner: owner, lease: lease, limit: 1, item: item).first }
    }

    static func claim(_ db: any SQLConnection, owner: String, lease: Double, limit: Int, item: Int64?) throws -> [ClaimedItem] {
        let d = db.dialect
        let one = item == nil ? "" : " AND id = ?"
        let args: SQLArguments = [owner, lease] + (item.map { [$0] } ?? []) + [limit]
        return try db.fetchAll("""
            UPDATE item SET leaseOwner = ?, leaseUntil = \(d.now) + ?
            WHERE id IN (
                SELECT id FROM item
                WHERE state = 'pending' AND (leaseUntil IS NULL OR leaseUntil < \(d.now))\(one)
                  AND galleryId NOT IN (SELECT id FROM gallery WHERE deleting = 1)
                ORDER BY id LIMIT ?\(d.skipLocked))
            RETURNING id, galleryId, fileHash, sourceURL
            """, args, cached: true)
            .map { ClaimedItem(id: $0["id"], gallery: $0["galleryId"], fileHash: $0["fileHash"], sourceURL: $0["sourceURL"]) }
            .sorted { $0.id < $1.id }
    }

    /// Pushes the leases `owner` holds on `items` to `lease` seconds from now (items finished or
    /// taken over meanwhile are left alone). Answers how many were renewed.
    @discardableResult
    public func renewLeases(owner: String, items: [Int64], lease: Double) async throws -> Int {
        guard !items.isEmpty else { return 0 }
        return try await database.write { db in
            // One statement per item (an instance holds a few: its workers' items), kept prepared.
            var renewed = 0
            for id in items {
                renewed += try db.execute("UPDATE item SET leaseUntil = \(db.dialect.now) + ? WHERE id = ? AND leaseOwner = ? AND state = 'pending'",
                                          [lease, id, owner])
            }
            return renewed
        }
    }

    /// Lets go of items `owner` holds (all of them when `items` is nil): a graceful stop leaves
    /// its unfinished items to the next claim. `retryAfter`: not claimable before that many
    /// seconds (the images folder could not take a file: try again later, not in a loop).
    @discardableResult
    public func releaseLeases(owner: String, items: [Int64]? = nil, retryAfter: Double? = nil) async throws -> Int {
        try await database.write { db in
            let until = retryAfter.map { "\(db.dialect.now) + \($0)" } ?? "NULL"
            guard let items else {
                return try db.execute("UPDATE item SET leaseOwner = NULL, leaseUntil = \(until) WHERE leaseOwner = ? AND state = 'pending'",
                                      [owner])
            }
            var released = 0
            for id in items {
                released += try db.execute("UPDATE item SET leaseOwner = NULL, leaseUntil = \(until) WHERE id = ? AND leaseOwner = ? AND state = 'pending'",
                                           [id, owner])
            }
            return released
        }
    }

    /// At start: the leases an earlier run of this instance (the same `--instance` name, any
    /// process) left — it was killed; this process is its successor — or, when `all`, every
    /// lease (SQLite: one server process per data folder). Their items are claimable at once
    /// instead of after the lease. Answers how many.
    @discardableResult
    public func releaseLeasesOfEarlierRuns(instancePrefix: String, all: Bool) async throws -> Int {
        try await database.write { db in
            if all {
                return try db.execute("UPDATE item SET leaseOwner = NULL, leaseUntil = NULL WHERE state = 'pending' AND leaseOwner IS NOT NULL")
            }
            return try db.execute("""
                UPDATE item SET leaseOwner = NULL, leaseUntil = NULL
                WHERE state = 'pending' AND substr(leaseOwner, 1, CAST(? AS INTEGER)) = ?
                """, [instancePrefix.unicodeScalars.count, instancePrefix])
        }
    }

    /// Whether the item is still pending and `condition` allows settling it (a finish checks
    /// this first, so that an instance that lost its lease writes no empty version).
    public func maySettle(item: Int64, _ condition: LeaseCondition) async throws -> Bool {
        try await database.read { db in
            let (sql, args) = condition.sql(db.dialect)
            return try db.exists("SELECT 1 FROM item WHERE id = ? AND state = 'pending'" + sql, [item] + args)
        }
    }

    /// The lease on an item: holder and expiry (nil, nil when nobody holds it). For tests and logs.
    public func lease(of item: Int64) async throws -> (owner: String?, until: Double?) {
        try await database.read { db in
            guard let row = try db.fetchOne("SELECT leaseOwner, leaseUntil FROM item WHERE id = ?", [item]) else {
                throw StoreError.itemNotFound(item)
            }
            return (row["leaseOwner"], row["leaseUntil"])
        }
    }

    /// Once per database, whoever asks first: true for the one caller that gets `task` (the
    /// sample gallery: two instances starting at once on an empty database make one).
    public func claimOnce(_ task: String, by owner: String) async throws -> Bool {
        try await database.write { db in
            try db.execute("INSERT INTO startup_claim (task, claimedBy, claimedAt) VALUES (?, ?, ?) ON CONFLICT (task) DO NOTHING",
                           [task, owner, Self.now()]) == 1
        }
    }

    /// The server's key named `name` (32 random bytes), made by whichever instance asks first and
    /// the same at every instance and after a restart (the device cookies' HMAC key).
    public func serverKey(_ name: String) async throws -> [UInt8] {
        var rng = SystemRandomNumberGenerator()
        let fresh = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &rng) }
        return try await database.write { db in
            try db.execute("INSERT INTO server_key (name, secret, createdAt) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING",
                           [name, Data(fresh), Self.now()])
            guard let key = try db.value("SELECT secret FROM server_key WHERE name = ?", [name], as: Data.self), key.count >= 32 else {
                throw StoreError.corrupt("the server key \(name) is missing or short")
            }
            return Array(key)
        }
    }

    /// A first-account link's token (its SHA-256), valid on every instance until spent or until
    /// the first account exists.
    public func addSetupToken(hash: String) async throws {
        try await database.write { db in
            try db.execute("INSERT INTO setup_token (tokenHash, createdAt) VALUES (?, ?) ON CONFLICT (tokenHash) DO NOTHING", [hash, Self.now()])
        }
    }

    /// Spends a setup token once, whichever instance is asked: true for the one caller that removed it.
    public func spendSetupToken(hash: String) async throws -> Bool {
        try await database.write { db in
            try db.execute("DELETE FROM setup_token WHERE tokenHash = ?", [hash]) == 1
        }
    }
}
