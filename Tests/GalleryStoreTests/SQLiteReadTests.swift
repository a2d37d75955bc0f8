import Foundation
import Testing
import GRDB
import GRDBSQLite
@testable import GalleryStore

/// Reads on SQLite are bound and stepped through SQLite's C API (session 22): every kind of value
/// comes back as GRDB reads it, arguments of every kind bind, a wrong count is an error, and a
/// statement that writes (`… RETURNING`) still goes through GRDB.
@Suite struct SQLiteReadTests {
    func withDatabase(_ body: @escaping @Sendable (GRDBConnection) throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-read-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try SQLiteDatabase(path: folder.appendingPathComponent("t.sqlite").path)
        try await database.writeWithoutTransaction { c in try body(c as! GRDBConnection) }
        try database.close()
    }

    /// The writer keeps 32 MB of pages (a move's random rows and index entries stay cached,
    /// issue 15.3); the readers keep SQLite's default 2 MB each.
    @Test func theWriterHasTheLargerPageCache() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try SQLiteDatabase(path: folder.appendingPathComponent("t.sqlite").path)
        defer { try? database.close() }
        let writer = try await database.writeWithoutTransaction { c in try c.value("PRAGMA cache_size", [], as: Int64.self) }
        let reader = try await database.read { c in try c.value("PRAGMA cache_size", [], as: Int64.self) }
        #expect(writer == -32768)
        #expect(reader == -2000)
    }

    @Test func everyKindOfValueReadsAsGRDBReadsIt() async throws {
        try await withDatabase { c in
            _ = try c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, i INTEGER, d REAL, s TEXT, b BLOB, n TEXT)", [])
            let rows: [SQLArguments] = [
                [1, Int64.max, 0.5, "plain", Data([0, 1, 255]), nil],
                [2, Int64.min, -1e300, "", Data(), "ünïcödé 🙂"],
                [3, 0, Double.greatestFiniteMagnitude, "a\u{00A0}b", Data(repeating: 7, count: 5000), "x"],
            ]
            for r in rows { _ = try c.execute("INSERT INTO t (id, i, d, s, b, n) VALUES (?, ?, ?, ?, ?, ?)", r) }
            let sql = "SELECT id, i, d, s, b, n, i + 1 AS computed FROM t WHERE id >= ? AND s != ? ORDER BY id"
            let args: SQLArguments = [1, "nothing"]
            let direct = try c.fetchAll(sql, args, cached: true)
            #expect(direct.count == 3)
            #expect(direct.map(\.values) == (try c.fetchAllThroughGRDB(sql, args)).map(\.values))
            #expect(direct[0].names == ["id", "i", "d", "s", "b", "n", "computed"])
            #expect(direct[1].values[4] == .blob(Data()))
            #expect(direct[0].values[5] == .null)
            // The cached statement read again with other arguments: the earlier ones are gone.
            #expect(try c.fetchAll(sql, [3, "a\u{00A0}b"], cached: true).isEmpty)
            #expect(try c.fetchAll(sql, [2, ""], cached: true).map { $0["id"] as Int64 } == [3])
            #expect(try c.value("SELECT n FROM t WHERE id = ?", [2], as: String.self) == "ünïcödé 🙂")
            #expect(try c.value("SELECT s FROM t WHERE b = ?", [Data([0, 1, 255])], as: String.self) == "plain")
            #expect(try c.value("SELECT id FROM t WHERE d = ?", [-1e300], as: Int64.self) == 2)
            #expect(try c.value("SELECT count(*) FROM t WHERE n IS ?", [nil], as: Int64.self) == 1)
        }
    }

    /// `transaction` runs BEGIN and COMMIT through cached statements (session 27): a body that ends
    /// commits its writes, one that throws leaves nothing, and a statement after SQLite ended the
    /// transaction is refused (SQLITE_ABORT), not run on its own outside it.
    @Test func aTransactionCommitsWholeOrNotAtAll() async throws {
        try await withDatabase { c in
            _ = try c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)", [])
            struct Refused: Error {}
            for round in 0..<3 { // the cached statements again, after a commit and after a rollback
                let id = Int64(round * 10)
                #expect(try c.transaction { try c.execute("INSERT INTO t (id) VALUES (?)", [id]) } == 1)
                #expect(throws: Refused.self) {
                    try c.transaction {
                        _ = try c.execute("INSERT INTO t (id) VALUES (?)", [id + 1])
                        throw Refused()
                    }
                }
                #expect(throws: DatabaseError.self) {
                    try c.transaction {
                        _ = try c.execute("INSERT INTO t (id) VALUES (?)", [id + 2])
                        _ = try c.execute("ROLLBACK", []) // as SQLite does after some errors
                        _ = try c.execute("INSERT INTO t (id) VALUES (?)", [id + 3])
                    }
                }
                // A failing statement inside: nothing of the transaction stays.
                #expect(throws: DatabaseError.self) {
                    try c.transaction {
                        _ = try c.execute("INSERT INTO t (id) VALUES (?)", [id + 4])
                        _ = try c.execute("INSERT INTO t (id) VALUES (?)", [id]) // the primary key again
                    }
                }
                #expect(sqlite3_get_autocommit(c.db.sqliteConnection) != 0)
            }
            // Only the committed rows: the statement after the body's own ROLLBACK was refused, not
            // run outside the transaction.
            #expect(try c.fetchAll("SELECT id FROM t ORDER BY id", [], cached: false).map { $0["id"] as Int64 } == [0, 10, 20])
        }
    }

    /// Inside a transaction, INSERT, UPDATE and DELETE are bound and stepped through SQLite's C API
    /// (session 27): each writes and counts its rows as through GRDB, with every kind of argument;
    /// anything else still goes through GRDB.
    @Test func rowWritesInATransactionWriteAndCountAsThroughGRDB() async throws {
        #expect(GRDBConnection.isRowWrite("INSERT INTO t VALUES (1)"))
        #expect(GRDBConnection.isRowWrite("  update t SET a = 1"))
        #expect(GRDBConnection.isRowWrite("\n\tDelete FROM t"))
        #expect(!GRDBConnection.isRowWrite("INSERTED"))
        #expect(!GRDBConnection.isRowWrite("CREATE TABLE u (id)"))
        #expect(!GRDBConnection.isRowWrite("WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x"))
        #expect(!GRDBConnection.isRowWrite("REPLACE INTO t VALUES (1)"))
        #expect(!GRDBConnection.isRowWrite("upd"))
        #expect(!GRDBConnection.isRowWrite(""))
        try await withDatabase { c in
            _ = try c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, i INTEGER, d REAL, s TEXT, b BLOB)", [])
            let counts = try c.transaction {
                [try c.execute("INSERT INTO t (id, i, d, s, b) VALUES (?, ?, ?, ?, ?)", [1, Int64.min, -0.5, "ünï", Data([0, 255])]),
                 try c.execute("INSERT INTO t (id, i, d, s, b) VALUES (?, ?, ?, ?, ?)", [2, nil, nil, "", Data()]),
                 try c.execute("INSERT INTO t (id, i, d, s, b) VALUES (?, ?, ?, ?, ?)", [3, 7, 1e300, "x", nil]),
                 try c.execute("UPDATE t SET i = ? WHERE id >= ?", [42, 2]),
                 try c.execute("UPDATE t SET i = ? WHERE id = ?", [1, 99]),
                 try c.execute("DELETE FROM t WHERE id = ?", [3])]
            }
            #expect(counts == [1, 1, 1, 2, 0, 1])
            let rows = try c.fetchAllThroughGRDB("SELECT id, i, d, s, b FROM t ORDER BY id", [])
            #expect(rows.map(\.values) == [[.int(1), .int(Int64.min), .double(-0.5), .text("ünï"), .blob(Data([0, 255]))],
                                             [.int(2), .int(42), .null, .text(""), .blob(Data())]])
            // A wrong number of arguments is refused before the statement runs, and the transaction with it.
            #expect(throws: (any Error).self) { try c.transaction { _ = try c.execute("DELETE FROM t WHERE id = ?", []) } }
            #expect(try c.fetchAll("SELECT count(*) AS n FROM t", [], cached: false).first?["n"] as Int64? == 2)
        }
    }

    @Test func aWrongNumberOfArgumentsIsAnError() async throws {
        try await withDatabase { c in
            _ = try c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)", [])
            #expect(throws: (any Error).self) { try c.fetchAll("SELECT id FROM t WHERE id = ?", [], cached: true) }
            #expect(throws: (any Error).self) { try c.fetchAll("SELECT id FROM t WHERE id = ?", [1, 2], cached: true) }
            #expect(try c.fetchAll("SELECT id FROM t WHERE id = ?", [1], cached: true).isEmpty) // the statement still works
        }
    }

    /// GRDB interrupts the statement of a cancelled task; an interrupted read is a cancellation, as through GRDB.
    @Test func anInterruptedReadIsACancellation() async throws {
        try await withDatabase { c in
            struct Unchecked: @unchecked Sendable { let c: GRDBConnection }
            let box = Unchecked(c: c)
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { box.c.interruptForTests() }
            let endless = "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < ?) SELECT count(*) FROM n"
            #expect(throws: CancellationError.self) { try c.fetchAll(endless, [Int64.max], cached: true) }
            let again = try c.value(endless, [3], as: Int64.self)
            #expect(again == 3) // the statement reads again afterwards
        }
    }

    @Test func aStatementThatWritesStillWrites() async throws {
        try await withDatabase { c in
            _ = try c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)", [])
            _ = try c.execute("INSERT INTO t (id, v) VALUES (1, 'a'), (2, 'b')", [])
            let before = c.totalChanges
            let rows = try c.fetchAll("UPDATE t SET v = ? WHERE id = ? RETURNING id, v", ["z", 2], cached: true)
            #expect(rows.map(\.values) == [[.int(2), .text("z")]])
            #expect(c.totalChanges == before + 1)
            #expect(try c.value("SELECT v FROM t WHERE id = 2", [], as: String.self) == "z")
            // Statements without columns that SQLite counts as read-only (a savepoint) go through GRDB too.
            #expect(try c.fetchAll("SAVEPOINT s", [], cached: false).isEmpty)
            _ = try c.execute("UPDATE t SET v = 'y' WHERE id = 1", [])
            #expect(try c.fetchAll("ROLLBACK TO SAVEPOINT s", [], cached: false).isEmpty)
            #expect(try c.fetchAll("RELEASE SAVEPOINT s", [], cached: false).isEmpty)
            #expect(try c.value("SELECT v FROM t WHERE id = 1", [], as: String.self) == "a")
        }
    }
}
