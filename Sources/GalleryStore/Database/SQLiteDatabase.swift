import CSQLiteWALBuffer
import Foundation
import GRDB
import GRDBSQLite

/// SQLite in WAL mode through a GRDB `DatabasePool`: one writer (GRDB's serial writer queue),
/// concurrent readers on snapshots. The default backend: `gallery.sqlite` in the data folder.
public final class SQLiteDatabase: StoreDatabase {
    public let pool: DatabasePool
    public var kind: String { "sqlite" }

    /// Copies the write-ahead log back (off the writer by default: `WALCheckpointer`).
    let checkpointer: WALCheckpointer
    /// The writer connection's page cache, in KiB (`PRAGMA cache_size`).
    static let writerCacheKiB = 32 * 1024

    /// `walRestartFrames`: where the write-ahead log starts over (`WALCheckpointer`; nil: the
    /// default of new stores, `GalleryStore.walRestartFrames`).
    public init(path: String, checkpoints: WALCheckpoints = .background, walRestartFrames: Int32? = nil) throws {
        Self.registerWALBuffer()
        let checkpointer = WALCheckpointer(mode: checkpoints, path: path,
                                           restartFrames: walRestartFrames ?? WALCheckpointer.restartFramesOfNewStores)
        self.checkpointer = checkpointer
        var config = Configuration()
        config.prepareDatabase { db in
            // NORMAL is durable against a killed process in WAL mode (the OS keeps the log);
            // only a power cut can drop the newest commits.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            if !db.configuration.readonly {
                checkpointer.install(on: db)
                // The writer's page cache: 32 MB instead of SQLite's 2 MB. A move reads and
                // writes rows and index entries anywhere in the gallery; with 2 MB most of those
                // pages were read again from the file (pread) on every move under 50 clients
                // moving at 100k items (~24 MB of database; issue 15.3). Readers keep the default
                // (each reads few pages, or the whole gallery once).
                try db.execute(sql: "PRAGMA cache_size = -\(Self.writerCacheKiB)")
            }
        }
        config.busyMode = .timeout(10)
        pool = try DatabasePool(path: path, configuration: config)
        try Migrations.migrator.migrate(pool)
    }

    /// Makes the process's default SQLite VFS one that writes a transaction's write-ahead log
    /// frames in one write (`CSQLiteWALBuffer`: two writes a frame before, ~6.5 % of the server's
    /// CPU under 50 clients moving; issue 15.3). Once, before the first connection opens; every
    /// connection of the process uses it (only log files are written differently). Should it
    /// fail to register, SQLite's own VFS stays the default and nothing else changes.
    static func registerWALBuffer() {
        _ = walBufferRegistered
    }
    private static let walBufferRegistered: Int32 = gallery_wal_buffer_register()

    /// What the write-ahead log file of `db`'s connection did through the VFS: the writes SQLite
    /// made, those that reached the file, the commit frames. Nil when it has no log open or the
    /// log was not opened through the VFS.
    static func walBufferStats(_ db: Database) -> (writesAsked: Int, writesMade: Int, commits: Int)? {
        var file: UnsafeMutableRawPointer?
        guard sqlite3_file_control(db.sqliteConnection, "main", SQLITE_FCNTL_JOURNAL_POINTER, &file) == SQLITE_OK else { return nil }
        var stats = GalleryWALBufferStats()
        guard gallery_wal_buffer_file_stats(file, &stats) != 0 else { return nil }
        return (Int(stats.writesAsked), Int(stats.writesMade), Int(stats.commits))
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await pool.read { db in try body(GRDBConnection(db)) }
    }

    public func readNow<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try pool.read { db in try body(GRDBConnection(db)) }
    }

    @discardableResult public func write<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await pool.write { db in try body(GRDBConnection(db)) }
    }

    @discardableResult public func writeWithoutTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await pool.writeWithoutTransaction { db in try body(GRDBConnection(db)) }
    }

    public func writeLater(_ body: @escaping @Sendable (any SQLConnection) -> Void) {
        pool.asyncWriteWithoutTransaction { db in body(GRDBConnection(db)) }
    }

    public func close() throws { try pool.close() }
}

/// A GRDB `Database` as an `SQLConnection`: statements are GRDB's cached statements; the
/// cursor read steps SQLite's C API directly (100k rows through GRDB's `Row` cost ~10× the
/// JSON writing).
final class GRDBConnection: SQLConnection {
    let db: Database
    init(_ db: Database) { self.db = db }
    /// Inside `transaction`'s body: a statement after SQLite ended the transaction on its own
    /// (some disk-full and I/O errors roll it back) would run outside it, on its own, so it is
    /// refused instead (`SQLITE_ABORT`), as GRDB's own transactions do.
    private var inTransactionBody = false
    /// A savepoint's writes could not be undone (its rollback and the transaction's both failed):
    /// nothing more runs in this transaction, and it is not committed.
    private var mustNotCommit = false

    private func checkTransaction(_ sql: String) throws {
        if inTransactionBody, sqlite3_get_autocommit(db.sqliteConnection) != 0 || mustNotCommit {
            throw DatabaseError(resultCode: .SQLITE_ABORT, message: "the transaction was rolled back before its end", sql: sql)
        }
    }

    var dialect: SQLDialect { .sqlite }
    var totalChanges: Int { db.totalChangesCount }

    static func arguments(_ arguments: SQLArguments) -> StatementArguments {
        StatementArguments(arguments.values.map { v -> (any DatabaseValueConvertible)? in
            switch v {
            case .null: return nil
            case let .int(i): return i
            case let .double(d): return d
            case let .text(s): return s
            case let .blob(b): return b
            }
        })
    }

    static func value(_ v: DatabaseValue) -> SQLValue {
        switch v.storage {
        case .null: return .null
        case let .int64(i): return .int(i)
        case let .double(d): return .double(d)
        case let .string(s): return .text(s)
        case let .blob(b): return .blob(b)
        }
    }

    func execute(_ sql: String, _ arguments: SQLArguments) throws -> Int {
        try checkTransaction(sql)
        let statement = try db.cachedStatement(sql: sql)
        // Inside `transaction`, a row write (INSERT, UPDATE, DELETE: no schema change, no transaction
        // boundary) is bound and stepped through SQLite's C API, as reads are: GRDB's
        // `StatementArguments` and its bookkeeping per statement (for observers and a schema cache
        // this store does not use) were ~3 % of the server's CPU under 50 clients moving (session 27).
        // Anything else, and anything outside a transaction, goes through GRDB.
        if inTransactionBody, Self.isRowWrite(sql) {
            let handle = statement.sqliteStatement
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
            defer { sqlite3_reset(handle) }
            try Self.bind(arguments, to: handle, sql: sql)
            while true {
                let rc = sqlite3_step(handle)
                if rc == SQLITE_DONE { break }
                guard rc == SQLITE_ROW else { throw Self.stepError(rc, db, sql: sql) }
            }
            return Int(sqlite3_changes(db.sqliteConnection))
        }
        try statement.execute(arguments: Self.arguments(arguments))
        return db.changesCount
    }

    /// INSERT, UPDATE or DELETE (ASCII, any case, after leading spaces): a statement that changes
    /// rows only.
    static func isRowWrite(_ sql: String) -> Bool {
        let u = sql.utf8.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x09 }
        func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
        var word: UInt64 = 0, n = 0
        for b in u {
            guard isLetter(b) else { break }
            n += 1
            if n > 6 { return false }
            word = word << 8 | UInt64(b | 0x20)
        }
        guard n == 6 else { return false }
        return word == 0x696E_7365_7274 || word == 0x7570_6461_7465 || word == 0x6465_6C65_7465 // insert, update, delete
    }

    func fetchAll(_ sql: String, _ arguments: SQLArguments, cached: Bool) throws -> [SQLRow] {
        try checkTransaction(sql)
        let statement = cached ? try db.cachedStatement(sql: sql) : try db.makeStatement(sql: sql)
        let names = statement.columnNames
        let handle = statement.sqliteStatement
        // A statement that writes (`… RETURNING`) goes through GRDB, which follows every write;
        // so does one that returns no columns (BEGIN, COMMIT, SAVEPOINT, ATTACH count as read-only
        // for SQLite, and GRDB tracks transactions).
        let columns = sqlite3_column_count(handle)
        guard sqlite3_stmt_readonly(handle) != 0, columns > 0 else {
            return try Self.rowsThroughGRDB(statement, arguments)
        }
        // A read is bound and stepped through SQLite's C API, as `forEach` does: through GRDB's
        // `Row` and `StatementArguments` the few reads of a single move were ~8 % of the
        // server's CPU under 50 clients moving (session 22).
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        defer { sqlite3_reset(handle) }
        try Self.bind(arguments, to: handle, sql: sql)
        var rows: [SQLRow] = []
        while true {
            let rc = sqlite3_step(handle)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw Self.stepError(rc, db, sql: sql) }
            var values: [SQLValue] = []
            values.reserveCapacity(Int(columns))
            for c in 0..<columns { values.append(Self.column(handle, c)) }
            rows.append(SQLRow(names: names, values: values))
        }
        return rows
    }

    static func rowsThroughGRDB(_ statement: Statement, _ arguments: SQLArguments) throws -> [SQLRow] {
        let names = statement.columnNames
        return try Row.fetchAll(statement, arguments: Self.arguments(arguments)).map { row in
            SQLRow(names: names, values: row.databaseValues.map(Self.value))
        }
    }

    /// Interrupts the statement running on this connection (SQLite allows it from any thread), for tests.
    func interruptForTests() { sqlite3_interrupt(db.sqliteConnection) }

    /// The rows as GRDB reads them, for tests to compare with `fetchAll`'s own reading.
    func fetchAllThroughGRDB(_ sql: String, _ arguments: SQLArguments) throws -> [SQLRow] {
        try Self.rowsThroughGRDB(db.makeStatement(sql: sql), arguments)
    }

    /// A failed step as GRDB reports it: interrupted (GRDB interrupts the statement of a
    /// cancelled task) as `CancellationError`, anything else as a `DatabaseError`.
    static func stepError(_ rc: Int32, _ db: Database, sql: String) -> any Error {
        if rc == SQLITE_INTERRUPT { return CancellationError() }
        return DatabaseError(resultCode: ResultCode(rawValue: rc), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
    }

    /// SQLite's own copy of each value (`SQLITE_TRANSIENT`).
    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    static func bind(_ arguments: SQLArguments, to handle: SQLiteStatement, sql: String) throws {
        let count = Int(sqlite3_bind_parameter_count(handle))
        guard count == arguments.count else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "wrong number of statement arguments: \(arguments.count), not \(count)", sql: sql)
        }
        for (i, argument) in arguments.enumerated() {
            let index = Int32(i + 1)
            let rc: Int32
            switch argument?.sqlValue ?? .null {
            case .null: rc = sqlite3_bind_null(handle, index)
            case let .int(v): rc = sqlite3_bind_int64(handle, index, v)
            case let .double(v): rc = sqlite3_bind_double(handle, index, v)
            case let .text(v): rc = sqlite3_bind_text(handle, index, v, Int32(v.utf8.count), transient) // every byte, a U+0000 too
            case let .blob(v): rc = v.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), transient) }
            }
            guard rc == SQLITE_OK else {
                throw DatabaseError(resultCode: ResultCode(rawValue: rc), message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))), sql: sql)
            }
        }
    }

    static func column(_ handle: SQLiteStatement, _ c: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, c) {
        case SQLITE_INTEGER: return .int(sqlite3_column_int64(handle, c))
        case SQLITE_FLOAT: return .double(sqlite3_column_double(handle, c))
        case SQLITE_TEXT: // its whole length (GRDB's `String(cString:)` stops at a NUL, which only text made in SQL can hold)
            guard let p = sqlite3_column_text(handle, c) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(handle, c))), as: UTF8.self))
        case SQLITE_BLOB:
            let n = Int(sqlite3_column_bytes(handle, c))
            guard n > 0, let p = sqlite3_column_blob(handle, c) else { return .blob(Data()) }
            return .blob(Data(bytes: p, count: n))
        default: return .null
        }
    }

    func insert(_ sql: String, _ arguments: SQLArguments) throws -> Int64 {
        try checkTransaction(sql)
        // `… RETURNING id` (SQLite ≥ 3.35): the same statement on both backends.
        guard let id = try Int64.fetchOne(db.cachedStatement(sql: sql), arguments: Self.arguments(arguments)) else {
            throw StoreError.corrupt("\(sql): no id returned")
        }
        return id
    }

    /// `BEGIN IMMEDIATE` … `COMMIT` as GRDB's `inTransaction` runs them on a writer, but through
    /// two cached statements: GRDB's own parses and prepares both anew for every transaction
    /// (5–8 % less CPU per move under 50 clients, session 27). On an error the transaction is
    /// rolled back (GRDB's `rollback`, a no-op when SQLite rolled it back already) and the error
    /// thrown. A transaction SQLite ended on its own (after a disk-full or I/O error that the body
    /// did not pass on) is not committed as if whole: `SQLITE_ABORT`, as GRDB answers it, for the
    /// commit and for any statement of the body after it.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
        let outer = inTransactionBody
        inTransactionBody = true
        defer { inTransactionBody = outer; mustNotCommit = false }
        do {
            let out = try body()
            try checkTransaction("COMMIT TRANSACTION")
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return out
        } catch {
            if sqlite3_get_autocommit(db.sqliteConnection) == 0 { try? db.rollback() }
            throw error
        }
    }

    var inTransaction: Bool { sqlite3_get_autocommit(db.sqliteConnection) == 0 && !mustNotCommit }

    /// `SAVEPOINT` … `RELEASE` through cached statements, inside a transaction only. On an error
    /// the savepoint is rolled back and released and the error thrown; if SQLite ended the whole
    /// transaction already, the error is thrown with no transaction open; if the rollback to the
    /// savepoint fails, the transaction is rolled back (or, failing that, refuses every statement
    /// and its commit: nothing half-undone is ever committed) and the rollback's error is thrown.
    func savepoint<T>(_ body: () throws -> T) throws -> T {
        precondition(inTransaction, "a savepoint outside a transaction")
        try checkTransaction("SAVEPOINT batch")
        try db.cachedStatement(sql: "SAVEPOINT batch").execute()
        do {
            let out = try body()
            try checkTransaction("RELEASE SAVEPOINT batch")
            try db.cachedStatement(sql: "RELEASE SAVEPOINT batch").execute()
            return out
        } catch {
            if inTransaction {
                do {
                    try db.cachedStatement(sql: "ROLLBACK TO SAVEPOINT batch").execute()
                    try db.cachedStatement(sql: "RELEASE SAVEPOINT batch").execute()
                } catch let undo {
                    // The transaction is over (or must not commit): every batch in it fails with
                    // why, not with this batch's own refusal.
                    try? db.rollback()
                    if sqlite3_get_autocommit(db.sqliteConnection) == 0 { mustNotCommit = true }
                    throw undo
                }
            }
            throw error
        }
    }

    func forEach(_ sql: String, _ arguments: SQLArguments, _ body: (any SQLRowView) throws -> Void) throws {
        try checkTransaction(sql)
        let statement = try db.cachedStatement(sql: sql)
        try statement.setArguments(Self.arguments(arguments))
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        defer { sqlite3_reset(handle) }
        let view = SQLiteRowView(statement: handle)
        while true {
            let rc = sqlite3_step(handle)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw Self.stepError(rc, db, sql: sql) }
            try body(view)
        }
    }
}

struct SQLiteRowView: SQLRowView {
    let statement: SQLiteStatement
    func int64(_ column: Int) -> Int64 { sqlite3_column_int64(statement, Int32(column)) }
    func double(_ column: Int) -> Double { sqlite3_column_double(statement, Int32(column)) }
    func text(_ column: Int) -> String? {
        guard let p = sqlite3_column_text(statement, Int32(column)) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(statement, Int32(column)))), as: UTF8.self)
    }
    func firstByte(_ column: Int) -> UInt8 { sqlite3_column_text(statement, Int32(column))?.pointee ?? 0 }
}
