import Foundation
import Testing
import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import GRDB
import GridEngine
import GalleryCore
@testable import GalleryStore
import GalleryServer
import Synchronization
import StoreTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `gallery migrate`, `gallery check` and `gallery backup --database` on the real binary, a real
/// SQLite data folder and the private PostgreSQL cluster (GALLERY_TEST_POSTGRES).
@Suite(.serialized, .enabled(if: Backend.tested.contains(.postgres), "GALLERY_TEST_POSTGRES=skip"))
struct MigrateTests {
    struct Ran { let status: Int32; let output: String }

    /// Runs `gallery ARGS…` to the end; standard output and error together.
    static func gallery(_ arguments: [String], environment: [String: String]? = nil) async throws -> Ran {
        let ran = try await Process.outcome(CrashRecoveryTests.binary, arguments, environment: environment)
        return Ran(status: ran.status, output: ran.output)
    }

    /// What the seeded data folder holds that the tests come back to.
    struct Seed {
        let data: URL
        let fruit: Int64, trips: Int64
        /// A snapshot of Fruit 100 versions before its last, for the catch-up.
        let old: GallerySnapshotJSON
        let aliceSession: String, aliceToken: String, linkToken: String
        let hashes: [String]
        /// The highest item id SQLite ever gave (the last one was purged).
        let lastItemId: Int64
    }

    /// Several galleries and sections, ready/pending/failed items with image files, 600 moves
    /// (checkpoints at 250 and 500, the log compacted behind them), trashed and purged items, a
    /// deleted section, two accounts (one with 2FA and recovery codes), a member, a session, API
    /// tokens, a share link and a link session, on SQLite.
    static func seed() async throws -> Seed {
        let data = testFolder("migrate")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: data.appendingPathComponent("server.log").path, contents: nil)
        try await seedOwner(folder: data)
        let store = try GalleryStore(folder: data)
        defer { try? store.close() }
        let owner = try #require(try await store.account(named: "owner"))
        let alice = try await store.createAccount(name: "alice", passwordHash: testPasswordHash, admin: false)
        try await store.setPendingTOTP(account: alice.id, secret: "JBSWY3DPEHPK3PXP")
        try await store.confirmTOTP(account: alice.id, step: 58_000_000, recoveryCodeHashes: [Secrets.digest("recovery-1"), Secrets.digest("recovery-2")])
        let hashes = try (0..<6).map { k in try store.files.storeOriginal(Array("image bytes \(k)".utf8)) }

        let fruit = try await store.createGallery(name: "Fruit", owner: owner.id)
        var sections = [try await store.snapshot(fruit.id).sections[0].id]
        for s in 1..<3 { sections.append(try await store.apply(gallery: fruit.id, [.createSection(title: "Fruit \(s)", index: nil)]).createdSections[0]) }
        var items: [Int64] = []
        for (s, section) in sections.enumerated() {
            let new = (0..<20).map { k in
                // Pending items too would be fetched by the server after the move (and fail): the
                // states compared are ready and failed.
                k % 5 == 4 ? NewItem(title: "f\(s)-\(k)", sourceURL: "https://example.org/\(k).jpg", state: .failed, reason: "404")
                    : NewItem(title: "f\(s)-\(k)", fileHash: hashes[(s + k) % hashes.count], width: 40 + k, height: 30, state: .ready)
            }
            items += try await store.apply(gallery: fruit.id, [.insert(new, at: .end(section: section))], payload: "seed").createdItems
        }
        var rng = SystemRandomNumberGenerator()
        var old: GallerySnapshotJSON?
        for k in 0..<600 {
            let item = items.randomElement(using: &rng)!
            let to: Destination = Bool.random(using: &rng) ? .end(section: sections.randomElement(using: &rng)!) : .before(item: items.randomElement(using: &rng)!)
            _ = try? await store.apply(gallery: fruit.id, [.move(items: [item], to: to)])
            if k == 500 { old = try await store.snapshot(fruit.id) }
        }
        _ = try await store.apply(gallery: fruit.id, [.trash(items: Array(items[0..<3]))])

        let trips = try await store.createGallery(name: "Trips", owner: owner.id)
        let tripSection = try await store.apply(gallery: trips.id, [.createSection(title: "Gone", index: nil)]).createdSections[0]
        let tripItems = try await store.apply(gallery: trips.id, [.insert((0..<5).map { NewItem(title: "t\($0)", fileHash: hashes[$0], width: 10, height: 10, state: .ready) },
                                                                         at: .end(section: tripSection))], payload: "seed").createdItems
        _ = try await store.apply(gallery: trips.id, [.move(items: [tripItems[0]], to: .end(section: try await store.snapshot(trips.id).sections[0].id))])
        _ = try await store.apply(gallery: trips.id, [.deleteSection(tripSection)])
        let empty = try await store.createGallery(name: "Empty", owner: owner.id)
        try await store.setMember(gallery: empty.id, account: alice.id, role: .viewer)
        // The newest item purged: SQLite's AUTOINCREMENT remembers its id, PostgreSQL must not reuse it.
        let last = try await store.apply(gallery: fruit.id, [.insert([NewItem(title: "purged")], at: .end(section: sections[0]))], payload: "seed").createdItems[0]
        _ = try await store.apply(gallery: fruit.id, [.trash(items: [last])])
        _ = try await store.apply(gallery: fruit.id, [.purge(items: [last])])

        try await store.setMember(gallery: fruit.id, account: alice.id, role: .editor)
        let aliceSession = "alice-session-" + Secrets.token()
        try await store.createSession(idHash: Secrets.digest(aliceSession), owner: .account(alice.id))
        let aliceToken = "gat_alice_" + Secrets.token()
        _ = try await store.createToken(account: alice.id, name: "alice's script", scope: .read, tokenHash: Secrets.digest(aliceToken))
        let linkToken = Secrets.token()
        let link = try await store.createLink(gallery: fruit.id, createdBy: owner.id, role: .viewer, tokenHash: Secrets.digest(linkToken),
                                              passwordHash: nil, expiresAt: nil, options: LinkOptions(allowDownload: true, showMetadata: false))
        try await store.createSession(idHash: Secrets.digest("link-session-" + Secrets.token()), owner: .link(link.id))
        let checkpoints = try await store.database.read { db in try db.value("SELECT COUNT(*) FROM checkpoint", as: Int.self)! }
        #expect(checkpoints >= 2, "checkpoints written (versions 250 and 500)")
        return Seed(data: data, fruit: fruit.id, trips: trips.id, old: try #require(old), aliceSession: aliceSession, aliceToken: aliceToken,
                    linkToken: linkToken, hashes: hashes, lastItemId: last)
    }

    static func request(_ port: Int, _ path: String, method: HTTPMethod = .GET, headers: [(String, String)], body: String? = nil) async throws -> (UInt, Data) {
        var r = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        r.method = method
        for (k, v) in headers { r.headers.add(name: k, value: v) }
        if let body {
            r.headers.add(name: "Content-Type", value: "application/json")
            r.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await HTTPClient.shared.execute(r, timeout: .seconds(30))
        return (response.status.code, Data(try await response.body.collect(upTo: 16 << 20).readableBytesView))
    }

    /// The data folder's SQLite file, waiting for a lock (the seeding store's background WAL
    /// checkpoint may still hold one for a moment after it closed).
    static func openSQLite(_ data: URL) throws -> DatabaseQueue {
        var config = Configuration()
        config.busyMode = .timeout(30)
        return try DatabaseQueue(path: data.appendingPathComponent("gallery.sqlite").path, configuration: config)
    }

    static func order(_ s: GallerySnapshotJSON) -> [[Int64]] { s.sections.map { [$0.id] + $0.items.map(\.id) } }

    @Test func migrateCopiesEverythingAndTheSameGalleriesSessionsTokensAndLinksWorkOnPostgreSQL() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: CrashRecoveryTests.binary.path), "build the gallery product first (swift build)")
        let seed = try await Self.seed()
        let url = try await Backend.makePostgresDatabase()
        // What SQLite serves, read before the copy.
        let sqlite = try GalleryStore(folder: seed.data)
        let list = try await sqlite.listGalleries()
        var snapshots: [Int64: GallerySnapshotJSON] = [:]
        for g in list { snapshots[g.id] = try await sqlite.snapshot(g.id) }
        let sqliteCounts = try await sqlite.database.read { db in
            try StoreSchema.sqlite(db).tables.map { ($0.name, try db.value("SELECT COUNT(*) FROM \($0.name)", as: Int.self)!) }
        }
        try sqlite.close()

        let migrated = try await Self.gallery(["migrate", "--data", seed.data.path, "--to", url])
        #expect(migrated.status == 0, "\(migrated.output)")
        #expect(migrated.output.contains("verified before the commit"), "\(migrated.output)")
        #expect(migrated.output.contains("the images stay in \(seed.data.appendingPathComponent("images").path)"), "\(migrated.output)")
        // Not a terminal: plain lines per table, every table the SQLite file has.
        for (table, rows) in sqliteCounts {
            #expect(migrated.output.contains("\(table): \(rows)/\(rows) rows copied"), "\(table) \(rows): \(migrated.output)")
        }
        #expect(sqliteCounts.map(\.0).sorted() == ["account", "api_token", "checkpoint", "gallery", "item", "link_item", "maintenance",
                                                   "member", "operation", "recovery_code", "section", "session", "share_link"]
                || sqliteCounts.count > 13, "every table of the schema was counted: \(sqliteCounts)")
        let check = try await Self.gallery(["check", "--data", seed.data.path, "--against", url])
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("the same:"), "\(check.output)")

        let port = CrashRecoveryTests.freePort()
        let server = try CrashRecoveryTests.spawn(data: seed.data, port: port, database: url)
        defer { server.terminate(); server.waitUntilExit() }
        try await CrashRecoveryTests.waitReady(port)
        // The same galleries, versions and counts; the same sections and items in the same order.
        let served: [GalleryInfo] = try await CrashRecoveryTests.get(port, "/api/galleries")
        #expect(served.map(\.id) == list.map(\.id))
        #expect(served.map(\.name) == list.map(\.name))
        #expect(served.map(\.version) == list.map(\.version))
        #expect(served.map(\.itemCount) == list.map(\.itemCount))
        for g in list {
            let s: GallerySnapshotJSON = try await CrashRecoveryTests.get(port, "/api/galleries/\(g.id)")
            let before = try #require(snapshots[g.id])
            #expect(Self.order(s) == Self.order(before), "gallery \(g.id)")
            #expect(s.sections.flatMap { $0.items.map(\.title) } == before.sections.flatMap { $0.items.map(\.title) })
            #expect(s.sections.flatMap { $0.items.map(\.state) } == before.sections.flatMap { $0.items.map(\.state) })
            #expect(s.version == before.version)
        }
        // Alice's session cookie and API token, and the share link, from before the copy.
        let (cookieStatus, cookieBody) = try await Self.request(port, "/api/galleries", headers: [("Cookie", "gallery_session=\(seed.aliceSession)")])
        #expect(cookieStatus == 200)
        let aliceSees = try JSONDecoder().decode([GalleryInfo].self, from: cookieBody).map(\.name).sorted()
        #expect(aliceSees == ["Empty", "Fruit"], "alice is Fruit's editor and Empty's owner")
        let (tokenStatus, tokenBody) = try await Self.request(port, "/api/galleries", headers: [("Authorization", "Bearer \(seed.aliceToken)")])
        #expect(tokenStatus == 200)
        #expect(try JSONDecoder().decode([GalleryInfo].self, from: tokenBody).map(\.name).sorted() == ["Empty", "Fruit"])
        let (linkStatus, linkBody) = try await Self.request(port, "/api/links/open", method: .POST, headers: [("Origin", "http://127.0.0.1:\(port)")],
                                                            body: #"{"token": "\#(seed.linkToken)"}"#)
        #expect(linkStatus == 200, "\(String(decoding: linkBody, as: UTF8.self))")
        #expect(String(decoding: linkBody, as: UTF8.self).contains("\"gallery\":\(seed.fruit)"))
        // An image of a copied item, from the data folder's images (not copied: shared).
        let (imageStatus, imageBody) = try await Self.request(port, "/api/images/\(seed.hashes[0])/original", headers: [("Authorization", testOwnerAuthorization)])
        #expect(imageStatus == 200)
        #expect(imageBody == Data("image bytes 0".utf8))
        // Catch-up from a version before the copy: a diff, replayed onto the old snapshot.
        let now: GallerySnapshotJSON = try await CrashRecoveryTests.get(port, "/api/galleries/\(seed.fruit)")
        let (_, caughtBody) = try await Self.request(port, "/api/galleries/\(seed.fruit)/changes?since=\(seed.old.version)", headers: [("Authorization", testOwnerAuthorization)])
        let caught = try JSONDecoder().decode(CatchUpAnswer.self, from: caughtBody)
        let changes = try #require(caught.changes, "a diff from version \(seed.old.version), not a snapshot")
        #expect(changes.toVersion == now.version)
        var replayed = try Snapshot(gallery: seed.old)
        for stage in changes.stages { try replayed.apply(try stage.batchUpdate.unwrap()) }
        #expect(replayed == (try Snapshot(gallery: now)))
        // New rows get ids past every id SQLite gave (the purged item's too): the sequences were set.
        let (status, body) = try await post(port, "/api/galleries/\(seed.fruit)/batch",
                                            #"{"operations": [{"op": "copy", "items": [\#(now.sections[0].items[0].id)], "to": {"after": \#(now.sections[0].items[0].id)}}]}"#)
        #expect(status == 200, "\(String(decoding: body, as: UTF8.self))")
        let created = try JSONDecoder().decode(BatchAnswer.self, from: body).createdItems
        #expect(created.count == 1 && created[0] > seed.lastItemId, "\(created) after \(seed.lastItemId)")
        let (galleryStatus, galleryBody) = try await post(port, "/api/galleries", #"{"name": "After"}"#)
        #expect(galleryStatus == 201 || galleryStatus == 200)
        #expect(try JSONDecoder().decode(GalleryInfo.self, from: galleryBody).id > list.map(\.id).max()!)
    }

    @Test func checkNamesAMovedItemAChangedHashAndAMissingRowOnEitherSideAndNeverPrintsSecrets() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: CrashRecoveryTests.binary.path), "build the gallery product first (swift build)")
        let seed = try await Self.seed()
        let url = try await Backend.makePostgresDatabase()
        #expect(try await Self.gallery(["migrate", "--data", seed.data.path, "--to", url, "--no-verify"]).status == 0)
        #expect(try await Self.gallery(["check", "--data", seed.data.path, "--against", url]).status == 0)
        let pg = try PostgresDatabase(url: url)
        defer { try? pg.close() }
        let section = try await pg.read { c in try c.value("SELECT sectionId FROM item WHERE trashed = 0 GROUP BY sectionId HAVING COUNT(*) > 3 ORDER BY sectionId LIMIT 1", as: Int64.self)! }
        let ids = try await pg.read { c in try c.values("SELECT id FROM item WHERE sectionId = ? AND trashed = 0 ORDER BY rank", [section], as: Int64.self) }

        // A moved item in PostgreSQL: the first one's rank between the third's and the fourth's
        // (a key made for that place: the seed's keys are random, so "third + a letter" could
        // land past the fourth, as it once did).
        let (original, third, fourth) = try await pg.read { c in
            (try c.value("SELECT rank FROM item WHERE id = ?", [ids[0]], as: String.self)!, try c.value("SELECT rank FROM item WHERE id = ?", [ids[2]], as: String.self)!,
             try c.value("SELECT rank FROM item WHERE id = ?", [ids[3]], as: String.self)!)
        }
        let moved = RankKey.between(third, fourth)
        try await pg.write { c in try c.execute("UPDATE item SET rank = ? WHERE id = ?", [moved, ids[0]]) }
        var check = try await Self.gallery(["check", "--data", seed.data.path, "--against", url])
        #expect(check.status == 1, "\(check.output)")
        #expect(check.output.contains("item id=\(ids[0]): rank is \"\(original)\" in SQLite, \"\(moved)\" in PostgreSQL"), "\(check.output)")
        #expect(check.output.contains("section \(section): items in rank order differ at position 1: [\(ids[0]), \(ids[1]), \(ids[2])"), "\(check.output)")
        #expect(check.output.contains("[\(ids[1]), \(ids[2]), \(ids[0])"), "\(check.output)")
        try await pg.write { c in try c.execute("UPDATE item SET rank = ? WHERE id = ?", [original, ids[0]]) }
        #expect(try await Self.gallery(["check", "--data", seed.data.path, "--against", url]).status == 0, "put back")

        // A changed file hash in SQLite.
        let sqlite = try Self.openSQLite(seed.data)
        let (item, hash) = try await sqlite.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT id, fileHash FROM item WHERE fileHash IS NOT NULL ORDER BY id LIMIT 1")!
            return (row["id"] as Int64, row["fileHash"] as String)
        }
        try await sqlite.write { db in try db.execute(sql: "UPDATE item SET fileHash = ? WHERE id = ?", arguments: [String(repeating: "0", count: 64), item]) }
        check = try await Self.gallery(["check", "--data", seed.data.path, "--against", url])
        #expect(check.status == 1)
        #expect(check.output.contains("item id=\(item): fileHash is \"\(String(repeating: "0", count: 64))\" in SQLite, \"\(hash)\" in PostgreSQL"), "\(check.output)")
        try await sqlite.write { db in try db.execute(sql: "UPDATE item SET fileHash = ? WHERE id = ?", arguments: [hash, item]) }

        // A missing row: alice's session gone from PostgreSQL; a share link's token hash changed in SQLite.
        let sessionHash = Secrets.digest(seed.aliceSession)
        try await pg.write { c in try c.execute("DELETE FROM session WHERE idHash = ?", [sessionHash]) }
        let linkHash = Secrets.digest(seed.linkToken)
        try await sqlite.write { db in try db.execute(sql: "UPDATE share_link SET tokenHash = ? WHERE tokenHash = ?", arguments: [Secrets.digest("another"), linkHash]) }
        check = try await Self.gallery(["check", "--data", seed.data.path, "--against", url])
        try sqlite.close()
        #expect(check.status == 1)
        #expect(check.output.contains("table session: 2 rows in SQLite, 1 in PostgreSQL"), "\(check.output)")
        #expect(check.output.contains("session idHash=(secret): only in SQLite"), "\(check.output)")
        #expect(check.output.contains("share_link id=1: tokenHash is (secret) in SQLite, (secret) in PostgreSQL"), "\(check.output)")
        for secret in [sessionHash, seed.aliceSession, linkHash, Secrets.digest("another"), seed.linkToken] {
            #expect(!check.output.contains(secret), "a secret printed")
        }
    }

    @Test func migrateRefusesANonEmptyTargetABadURLAndARunningServerAndReplaceEmptiesTheTarget() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: CrashRecoveryTests.binary.path), "build the gallery product first (swift build)")
        let seed = try await Self.seed()
        let url = try await Backend.makePostgresDatabase()
        #expect(try await Self.gallery(["migrate", "--data", seed.data.path, "--to", url]).status == 0)
        // A second copy into the same database: refused, nothing changed.
        let again = try await Self.gallery(["migrate", "--data", seed.data.path, "--to", url])
        #expect(again.status != 0)
        #expect(again.output.contains("is not empty (") && again.output.contains("gallery rows") && again.output.contains("account rows")
                && again.output.contains("--replace"), "\(again.output)")
        #expect(try await Self.gallery(["check", "--data", seed.data.path, "--against", url]).status == 0)
        // A gallery made on PostgreSQL, then --replace: the target is the SQLite copy again.
        let pg = try GalleryStore(folder: testFolder("replace"), databaseURL: url)
        _ = try await pg.createGallery(name: "Only in PostgreSQL")
        try pg.close()
        #expect(try await Self.gallery(["check", "--data", seed.data.path, "--against", url]).status == 1)
        let replaced = try await Self.gallery(["migrate", "--data", seed.data.path, "--to", url, "--replace"])
        #expect(replaced.status == 0, "\(replaced.output)")
        #expect(replaced.output.contains("--replace"))
        #expect(try await Self.gallery(["check", "--data", seed.data.path, "--against", url]).status == 0)

        for (bad, says) in [("mysql://somewhere/db", "is not postgres://"),
                            ("postgres://gallery@127.0.0.1:\(CrashRecoveryTests.freePort())/gallery", "cannot be reached"),
                            ("postgres://127.0.0.1:5432/", "names no database")] {
            let ran = try await Self.gallery(["migrate", "--data", seed.data.path, "--to", bad])
            #expect(ran.status != 0 && ran.output.contains(says), "\(bad): \(ran.output)")
            #expect(!ran.output.contains("Fatal error"), "\(ran.output)")
        }
        let missing = try await Self.gallery(["migrate", "--data", testFolder("none").path, "--to", url])
        #expect(missing.status != 0 && missing.output.contains("no gallery.sqlite"), "\(missing.output)")

        // A server on the data folder: refused before anything is read.
        let port = CrashRecoveryTests.freePort()
        let server = try CrashRecoveryTests.spawn(data: seed.data, port: port)
        try await CrashRecoveryTests.waitReady(port)
        let running = try await Self.gallery(["migrate", "--data", seed.data.path, "--to", try await Backend.makePostgresDatabase()])
        server.terminate()
        server.waitUntilExit()
        #expect(running.status != 0 && running.output.contains("is running on") && running.output.contains("stop it first"), "\(running.output)")
    }

    /// A table and a column a later migration adds (as v5 did: lease columns on
    /// `item` and tables of their own): refused by name while only SQLite has them, copied and
    /// compared without a change to the copier once PostgreSQL has them too.
    @Test func aTableOrColumnOnlySQLiteHasIsRefusedByNameAndCopiedOnceBothHaveIt() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: CrashRecoveryTests.binary.path), "build the gallery product first (swift build)")
        let seed = try await Self.seed()
        let sqlite = try Self.openSQLite(seed.data)
        try await sqlite.write { db in
            try db.execute(sql: """
                ALTER TABLE item ADD COLUMN laterNote TEXT;
                UPDATE item SET laterNote = 'instance-' || id WHERE id % 2 = 0;
                CREATE TABLE later_table (itemId INTEGER PRIMARY KEY REFERENCES item(id) ON DELETE CASCADE, owner TEXT NOT NULL, until REAL NOT NULL);
                INSERT INTO later_table (itemId, owner, until) SELECT id, 'instance-a', 1764000000.5 FROM item ORDER BY id LIMIT 3;
                """)
        }
        try sqlite.close()
        let url = try await Backend.makePostgresDatabase()
        let refused = try await Self.gallery(["migrate", "--data", seed.data.path, "--to", url])
        #expect(refused.status != 0)
        #expect(refused.output.contains("a table later_table that PostgreSQL's schema does not have"), "\(refused.output)")
        #expect(refused.output.contains("table item has a column laterNote in SQLite that PostgreSQL's schema does not have"), "\(refused.output)")
        #expect(refused.output.contains("nothing was written"), "\(refused.output)")
        let pg = try PostgresDatabase(url: url)
        defer { try? pg.close() }
        #expect(try await pg.read { c in try c.value("SELECT COUNT(*) FROM gallery", as: Int.self) } == 0)

        try await pg.write { c in
            try c.execute("ALTER TABLE item ADD COLUMN laterNote TEXT COLLATE \"C\"")
            try c.execute("CREATE TABLE later_table (itemId BIGINT PRIMARY KEY REFERENCES item(id) ON DELETE CASCADE, owner TEXT COLLATE \"C\" NOT NULL, until DOUBLE PRECISION NOT NULL)")
        }
        let copied = try await Self.gallery(["migrate", "--data", seed.data.path, "--to", url])
        #expect(copied.status == 0, "\(copied.output)")
        #expect(copied.output.contains("later_table: 3/3 rows copied"), "\(copied.output)")
        let order = copied.output.components(separatedBy: "\n").first { $0.hasPrefix("copying ") } ?? ""
        #expect(order.range(of: "item ")!.lowerBound < order.range(of: "later_table ")!.lowerBound, "parents first: \(order)")
        #expect(try await pg.read { c in try c.value("SELECT laterNote FROM item WHERE id = 2", as: String.self) } == "instance-2")
        #expect(try await Self.gallery(["check", "--data", seed.data.path, "--against", url]).status == 0)
        try await pg.write { c in try c.execute("UPDATE item SET laterNote = 'instance-b' WHERE id = 2") }
        let check = try await Self.gallery(["check", "--data", seed.data.path, "--against", url])
        #expect(check.status == 1)
        #expect(check.output.contains("item id=2: laterNote is \"instance-2\" in SQLite, \"instance-b\" in PostgreSQL"), "\(check.output)")
    }

    /// kill -9 while the items are being copied: the target holds no row after (one transaction).
    @Test func aKilledMigrateLeavesTheTargetEmpty() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: CrashRecoveryTests.binary.path), "build the gallery product first (swift build)")
        let data = testFolder("migrate-kill")
        try await seedOwner(folder: data)
        let store = try GalleryStore(folder: data)
        _ = try await store.importGallery(name: "Big", sections: [("All", (0..<40_000).map { NewItem(title: "i\($0)", fileHash: nil, state: .pending) })])
        try store.close()
        let url = try await Backend.makePostgresDatabase()
        let p = Process()
        p.executableURL = CrashRecoveryTests.binary
        p.arguments = ["migrate", "--data", data.path, "--to", url, "--batch-rows", "50"]
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        let output = Mutex("")
        pipe.fileHandleForReading.readabilityHandler = { h in
            let d = h.availableData
            output.withLock { $0 += String(decoding: d, as: UTF8.self) }
        }
        try p.run()
        // Killed once a tenth of the items are in (the transaction holds them), whatever the load.
        let clock = ContinuousClock(), deadline = clock.now + .seconds(120)
        while !output.withLock({ $0.contains("item: 4000/40000 rows") }) && p.isRunning && clock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(p.isRunning, "still copying when killed: \(output.withLock { $0 })")
        kill(p.processIdentifier, SIGKILL)
        await p.exited()
        pipe.fileHandleForReading.readabilityHandler = nil
        #expect(p.terminationReason == .uncaughtSignal)
        #expect(!output.withLock { $0 }.contains("item: 40000/40000"))
        let pg = try PostgresDatabase(url: url)
        let counts = try await pg.read { c in
            try StoreSchema.postgres(c).tables.map { ($0.name, try c.value("SELECT COUNT(*) FROM \($0.name)", as: Int.self)!) }
        }
        try pg.close()
        #expect(counts.count >= 13)
        #expect(counts.allSatisfy { $0.1 == 0 }, "rows left behind: \(counts.filter { $0.1 > 0 })")
        // And the copy can be made again.
        let again = try await Self.gallery(["migrate", "--data", data.path, "--to", url])
        #expect(again.status == 0, "\(again.output)")
    }

    /// `gallery backup --database`: pg_dump in one snapshot while a server writes, the images
    /// those rows name; restored with pg_restore into a new database it is complete and served.
    @Test func aPgDumpBackupWhileTheServerWritesRestoresCompleteAndServes() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: CrashRecoveryTests.binary.path), "build the gallery product first (swift build)")
        try #require(GalleryStore.findProgram("pg_restore") != nil, "PostgreSQL's client (scripts/setup.sh installs postgresql)")
        let data = testFolder("pgbackup")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: data.appendingPathComponent("server.log").path, contents: nil)
        let url = try await Backend.makePostgresDatabase()
        try await seedOwner(folder: data, database: url)
        let store = try GalleryStore(folder: data, databaseURL: url)
        let hashes = try (0..<4).map { k in try store.files.storeOriginal(Array("backup image \(k)".utf8)) }
        let (g, _) = try await store.importGallery(name: "Live", sections: [("One", hashes.map { NewItem(title: $0, fileHash: $0, width: 10, height: 10, state: .ready) })])
        try store.close()
        let port = CrashRecoveryTests.freePort()
        let server = try CrashRecoveryTests.spawn(data: data, port: port, database: url)
        defer { server.terminate(); server.waitUntilExit() }
        try await CrashRecoveryTests.waitReady(port)
        let seedIds: [Int64] = (try await CrashRecoveryTests.get(port, "/api/galleries/\(g.id)") as GallerySnapshotJSON).sections[0].items.map(\.id)

        // Batches of copies as fast as they go, during the backup.
        // A batch that gets no answer or a refusal is noted and the writer goes on (it stopped at
        // the first one before, and a full run under load then saw no write during the backup).
        let acknowledged = Mutex<Int64>(0)
        let refused = Mutex<[String]>([])
        let writer = Task {
            var k = 0
            while !Task.isCancelled {
                let ids = (0..<3).map { seedIds[($0 + k) % seedIds.count] }
                k += 1
                guard let (status, body) = try? await post(port, "/api/galleries/\(g.id)/batch",
                                                           #"{"operations": [{"op": "copy", "items": \#(ids), "to": {"after": \#(ids[0])}}]}"#) else {
                    refused.withLock { $0.append("no answer") }
                    try? await Task.sleep(for: .milliseconds(20))
                    continue
                }
                guard status == 200, let answer = try? JSONDecoder().decode(BatchAnswer.self, from: body) else {
                    refused.withLock { $0.append("\(status) \(String(decoding: body, as: UTF8.self))") }
                    continue
                }
                acknowledged.withLock { $0 = max($0, answer.version) }
            }
        }
        let clock = ContinuousClock()
        let until = clock.now + .seconds(30)
        while acknowledged.withLock({ $0 }) < 20 && clock.now < until { try await Task.sleep(for: .milliseconds(10)) }
        let before = acknowledged.withLock { $0 }
        let dest = testFolder("pgbackup-dest")
        let backup = try await Self.gallery(["backup", dest.path, "--data", data.path, "--database", url])
        let whenDone = acknowledged.withLock { $0 }
        writer.cancel()
        await writer.value
        // A batch committed before the dump's snapshot may be acknowledged only after the backup ended.
        let after = acknowledged.withLock { $0 }
        #expect(backup.status == 0, "\(backup.output)")
        #expect(backup.output.contains("pg_dump (PostgreSQL) 15") && backup.output.contains("server 15"), "\(backup.output)")
        #expect(whenDone > before, "the server wrote while the backup ran (\(before) → \(whenDone)); refused: \(refused.withLock { $0 })")
        #expect(!refused.withLock { $0 }.contains { $0.hasPrefix("5") }, "a batch answered 5xx: \(refused.withLock { $0 })")
        #expect(FileManager.default.fileExists(atPath: dest.appendingPathComponent("gallery.pgdump").path))

        // Restored into a new database: one consistent version, no half batch, served with its images.
        let restored = try PostgresDatabase.createDatabase(beside: try #require(ProcessInfo.processInfo.environment["GALLERY_TEST_POSTGRES"]),
                                                           named: "restored_" + UUID().uuidString.prefix(8).lowercased())
        let pgRestore = try #require(GalleryStore.findProgram("pg_restore"))
        let restore = try GalleryStore.runProgram(pgRestore, ["--no-owner", "--exit-on-error", "--dbname=\(try GalleryStore.libpq(restored).0)",
                                                              dest.appendingPathComponent("gallery.pgdump").path])
        #expect(restore.isEmpty || !restore.contains("error"))
        @Sendable func state(_ c: any SQLConnection) throws -> (version: Int64, unlogged: Int64, copies: Int64, items: Int64) {
            let version = try c.value("SELECT version FROM gallery WHERE id = ?", [g.id], as: Int64.self)!
            let logged = try c.value("SELECT COUNT(*) FROM operation WHERE galleryId = ?", [g.id], as: Int64.self)!
            return (version, version - logged,
                    try c.value("SELECT COUNT(*) FROM operation WHERE galleryId = ? AND payload LIKE '%\"copy\"%'", [g.id], as: Int64.self)!,
                    try c.value("SELECT COUNT(*) FROM item WHERE galleryId = ?", [g.id], as: Int64.self)!)
        }
        let copy = try PostgresDatabase(url: restored)
        let r = try await copy.read(state)
        try copy.close()
        let live = try PostgresDatabase(url: url)
        let l = try await live.read(state)
        try live.close()
        let version = r.version, items = r.items
        #expect(version >= before && version <= after, "the snapshot is from the backup's time: \(before) ≤ \(version) ≤ \(after)")
        #expect(r.unlogged == l.unlogged, "one log row per version, as in the live database")
        #expect(items == Int64(seedIds.count) + 3 * r.copies, "three items per copy batch logged: no half batch")
        let port2 = CrashRecoveryTests.freePort()
        _ = FileManager.default.createFile(atPath: dest.appendingPathComponent("server.log").path, contents: nil)
        let second = try CrashRecoveryTests.spawn(data: dest, port: port2, database: restored)
        defer { second.terminate(); second.waitUntilExit() }
        try await CrashRecoveryTests.waitReady(port2)
        let served: GallerySnapshotJSON = try await CrashRecoveryTests.get(port2, "/api/galleries/\(g.id)")
        #expect(served.version == version)
        #expect(served.sections.flatMap(\.items).count == Int(items))
        for hash in hashes {
            let (status, body) = try await Self.request(port2, "/api/images/\(hash)/original", headers: [("Authorization", testOwnerAuthorization)])
            #expect(status == 200 && ContentHash.hex(Array(body)) == hash)
        }

        // Quiet now: a second backup restored is the same database, row for row (gallery check).
        let dest2 = testFolder("pgbackup-dest2")
        #expect(try await Self.gallery(["backup", dest2.path, "--data", data.path, "--database", url]).status == 0)
        let restored2 = try PostgresDatabase.createDatabase(beside: ProcessInfo.processInfo.environment["GALLERY_TEST_POSTGRES"]!,
                                                            named: "restored_" + UUID().uuidString.prefix(8).lowercased())
        _ = try GalleryStore.runProgram(pgRestore, ["--no-owner", "--exit-on-error", "--dbname=\(try GalleryStore.libpq(restored2).0)",
                                                    dest2.appendingPathComponent("gallery.pgdump").path])
        let check = try await Self.gallery(["check", "--database", url, "--against", restored2])
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("the same:"), "\(check.output)")

        // Without pg_dump: one clear line.
        let noTool = try await Self.gallery(["backup", testFolder("pgbackup-none").path, "--data", data.path, "--database", url],
                                      environment: ["PATH": "/nonexistent"])
        #expect(noTool.status != 0 && noTool.output.contains("pg_dump is not installed"), "\(noTool.output)")
    }
    /// `gallery backup --database` with a `--data` that is not the instances' data folder (a typo,
    /// the default `gallery-data` in another directory) is refused before anything is written: it
    /// made that folder, dumped the rows, copied no image, called every image "purged while the
    /// copy ran" and exited 0 — a backup that looked complete. A file as DEST is refused in words.
    @Test func aPgDumpBackupFromAFolderWithoutTheImagesOrIntoAFileIsRefused() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: CrashRecoveryTests.binary.path), "build the gallery product first (swift build)")
        let data = testFolder("pgbackup-images")
        let url = try await Backend.makePostgresDatabase()
        let store = try GalleryStore(folder: data, databaseURL: url)
        let hashes = try (0..<2).map { k in try store.files.storeOriginal(Array("backup image \(k)".utf8)) }
        _ = try await store.importGallery(name: "Kept", sections: [("One", hashes.map { NewItem(title: $0, fileHash: $0, width: 10, height: 10, state: .ready) })])
        try store.close()

        let wrong = testFolder("pgbackup-not-the-data-folder")
        let dest = testFolder("pgbackup-images-dest")
        let refused = try await Self.gallery(["backup", dest.path, "--data", wrong.path, "--database", url])
        #expect(refused.status != 0, "\(refused.output)")
        #expect(refused.output.contains("no images folder"), "\(refused.output)")
        #expect(!FileManager.default.fileExists(atPath: wrong.path), "the wrong folder was made")
        #expect(!FileManager.default.fileExists(atPath: dest.path), "a backup was written")

        let file = testFolder("pgbackup-a-file")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: file.path, contents: Data("mine".utf8))
        let intoFile = try await Self.gallery(["backup", file.path, "--data", data.path, "--database", url])
        #expect(intoFile.status != 0 && intoFile.output.contains("is not a folder"), "\(intoFile.output)")
        #expect(try String(contentsOf: file, encoding: .utf8) == "mine")

        let ok = try await Self.gallery(["backup", dest.path, "--data", data.path, "--database", url])
        #expect(ok.status == 0 && ok.output.contains("copied 2 image files") && !ok.output.contains("purged"), "\(ok.output)")
        // The dump holds password, session and token hashes and TOTP secrets: for its owner only (it was 0644 in a 0755 folder).
        #expect(try FileManager.default.attributesOfItem(atPath: dest.appendingPathComponent("gallery.pgdump").path)[.posixPermissions] as? Int == 0o600)
        #expect(try FileManager.default.attributesOfItem(atPath: dest.path)[.posixPermissions] as? Int == 0o700)
    }
    /// A database that holds another application's rows (a table the gallery does not have) is
    /// refused, with or without --replace: --replace emptied every table of the database
    /// (`TRUNCATE <every table> … CASCADE`), so `--replace --no-verify` committed the copy with
    /// the other table's rows gone (and with the comparison, the copy was refused only by luck,
    /// after the TRUNCATE, because of the extra table).
    @Test func replaceNeverEmptiesATableThatIsNotTheGallerys() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: CrashRecoveryTests.binary.path), "build the gallery product first (swift build)")
        let data = testFolder("foreign-table")
        let sqlite = try GalleryStore(folder: data)
        _ = try await sqlite.createGallery(name: "Mine")
        try sqlite.close()
        let url = try await Backend.makePostgresDatabase()
        let pg = try PGConnection.open(url)
        try pg.runScript("CREATE TABLE invoices (id integer PRIMARY KEY, amount integer); INSERT INTO invoices VALUES (1, 100);")
        for extra in [[], ["--replace"], ["--replace", "--no-verify"]] {
            let ran = try await Self.gallery(["migrate", "--data", data.path, "--to", url] + extra)
            #expect(ran.status != 0, "\(extra): \(ran.output)")
            #expect(ran.output.contains("invoices"), "\(extra): \(ran.output)")
            #expect(try pg.value("SELECT COUNT(*) FROM invoices", as: Int.self) == 1, "\(extra) emptied another application's table")
        }
        // Refused before anything was written: not even the gallery's empty tables (the message says
        // "the PostgreSQL database holds what it held before"; the schema was made first).
        #expect(try pg.value("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema()", as: Int.self) == 1)
        pg.close()
        // A database of its own: copied.
        #expect(try await Self.gallery(["migrate", "--data", data.path, "--to", try await Backend.makePostgresDatabase()]).status == 0)
    }
}
