import Foundation

/// The database behind a `GalleryStore`: SQLite through GRDB (`SQLiteDatabase`, the default) or
/// PostgreSQL through postgres-nio (`PostgresDatabase`). The store's domain logic — rank keys,
/// destinations, staged changes, the live snapshots, the catch-up window, checkpoints — is
/// written once, over this protocol and `SQLConnection` (docs/storage.md).
///
/// Synchronous by design: a batch's domain logic runs between SQL statements inside one
/// transaction on the one writer (a serial queue), and reads run on their own connections; the
/// PostgreSQL side blocks those queues' threads (never the Swift concurrency pool) on
/// postgres-nio's futures.
public protocol StoreDatabase: Sendable {
    /// "sqlite" or "postgresql" (logs, /readyz).
    var kind: String { get }
    /// A read-only transaction that sees one consistent state of the database.
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T
    /// The same, blocking the calling thread (never called on the concurrency pool's threads in
    /// a hot path: the catch-up check reads old checkpoints with it).
    func readNow<T>(_ body: (any SQLConnection) throws -> T) throws -> T
    /// A write transaction on the one writer: committed when `body` returns, rolled back when it throws.
    @discardableResult func write<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T
    /// The writer's turn without a transaction (nothing else writes meanwhile); `body` opens its
    /// own transaction with `SQLConnection.transaction`.
    @discardableResult func writeWithoutTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T
    /// The writer's turn without a transaction, without waiting for it: `body` runs on the writer
    /// after the turns already asked for (the queue of batches, `GalleryStore+Group.swift`).
    func writeLater(_ body: @escaping @Sendable (any SQLConnection) -> Void)
    /// Closes every connection; the store is not used after.
    func close() throws
}

/// The SQL a dialect spells differently. The store's statements are written once, in the common
/// subset of SQLite and PostgreSQL (`?` placeholders, `ON CONFLICT`, `IS DISTINCT FROM`,
/// `INSERT … RETURNING`); these few pieces are spliced in.
public struct SQLDialect: Sendable {
    /// Appended to the SELECT that reads a gallery's version at the start of a batch: PostgreSQL
    /// locks the gallery's row for the transaction (versions stay serial whoever writes), SQLite
    /// has one writer anyway.
    public var lockRow: String
    /// Appended to the SELECT that reads a gallery's version when its live state is loaded:
    /// PostgreSQL holds other instances' batches on that gallery until the load's transaction
    /// ends (the version and the rows read agree); nothing on SQLite.
    public var shareRow: String = ""
    /// Several instances may write this database: each committed version is announced
    /// (`NOTIFY`) and the live state follows the gallery's row (GalleryStore+Fanout.swift).
    public var fansOut = false
    /// Appended to the SELECT that picks pending items to claim (ingestion leases): PostgreSQL
    /// locks the rows it picks and skips those another instance's claim holds right now, so
    /// concurrent claimers never wait on each other nor take the same item; SQLite's one writer
    /// serialises claims anyway.
    public var skipLocked: String = ""
    /// The database's clock in seconds since 1970 (leases compare against one clock whichever
    /// instance wrote them: PostgreSQL's `clock_timestamp()`, not a transaction's start).
    public var now: String = "((julianday('now') - 2440587.5) * 86400.0)"

    /// Rows `(id, rank)` from one text argument, a JSON array of `[id, "rank"]` pairs: a batch that
    /// moves many items writes them in one statement (`UPDATE … FROM`), not one round trip each
    /// (on PostgreSQL 100,000 moved items took 13 s one by one).
    public var idRankPairs = "(SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS rank FROM json_each(?))"
    /// Ids from one text argument, a JSON array of integers, for `id IN …`.
    public var ids = "(SELECT value FROM json_each(?))"
    /// Batches queued for one gallery may share the writer's transaction, each in its own
    /// savepoint (`GalleryStore+Group.swift`): SQLite. Not PostgreSQL, where each batch follows the
    /// gallery's row under its lock against the versions in memory (other instances' batches).
    public var groupsBatches = false

    public static let sqlite = SQLDialect(lockRow: "", groupsBatches: true)
    public static let postgres = SQLDialect(lockRow: " FOR UPDATE", shareRow: " FOR SHARE", fansOut: true,
                                            skipLocked: " FOR UPDATE SKIP LOCKED",
                                            now: "EXTRACT(EPOCH FROM clock_timestamp())::DOUBLE PRECISION",
                                            idRankPairs: "(SELECT (e->>0)::BIGINT AS id, e->>1 AS rank FROM jsonb_array_elements(?::jsonb) AS e)",
                                            ids: "(SELECT jsonb_array_elements_text(?::jsonb)::BIGINT)")
}

/// One value in a row or an argument.
public enum SQLValue: Sendable, Equatable {
    case null
    case int(Int64)
    case double(Double)
    case text(String)
    case blob(Data)
}

/// What can be bound to a `?`.
public protocol SQLArgument: Sendable { var sqlValue: SQLValue { get } }
extension Int64: SQLArgument { public var sqlValue: SQLValue { .int(self) } }
extension Int: SQLArgument { public var sqlValue: SQLValue { .int(Int64(self)) } }
extension Double: SQLArgument { public var sqlValue: SQLValue { .double(self) } }
extension String: SQLArgument { public var sqlValue: SQLValue { .text(self) } }
/// Flags are integers 0 and 1 in both schemas.
extension Bool: SQLArgument { public var sqlValue: SQLValue { .int(self ? 1 : 0) } }
extension Data: SQLArgument { public var sqlValue: SQLValue { .blob(self) } }
extension SQLValue: SQLArgument { public var sqlValue: SQLValue { self } }

public typealias SQLArguments = [(any SQLArgument)?]

extension Array where Element == (any SQLArgument)? {
    var values: [SQLValue] { map { $0?.sqlValue ?? .null } }
}

/// What a column decodes to.
public protocol SQLColumn {
    init?(sqlValue: SQLValue)
}
extension Int64: SQLColumn {
    public init?(sqlValue v: SQLValue) {
        switch v {
        case let .int(i): self = i
        case let .double(d): self = Int64(d)
        default: return nil
        }
    }
}
extension Int: SQLColumn { public init?(sqlValue v: SQLValue) { guard let i = Int64(sqlValue: v) else { return nil }; self = Int(i) } }
extension Double: SQLColumn {
    public init?(sqlValue v: SQLValue) {
        switch v {
        case let .double(d): self = d
        case let .int(i): self = Double(i)
        default: return nil
        }
    }
}
extension String: SQLColumn { public init?(sqlValue v: SQLValue) { guard case let .text(s) = v else { return nil }; self = s } }
extension Bool: SQLColumn { public init?(sqlValue v: SQLValue) { guard let i = Int64(sqlValue: v) else { return nil }; self = i != 0 } }
extension Data: SQLColumn { public init?(sqlValue v: SQLValue) { guard case let .blob(d) = v else { return nil }; self = d } }
extension Optional: SQLColumn where Wrapped: SQLColumn {
    public init?(sqlValue v: SQLValue) {
        if case .null = v { self = .none; return }
        guard let w = Wrapped(sqlValue: v) else { return nil }
        self = .some(w)
    }
}

/// A row read by either backend. Columns are found by index or by name, case-insensitively
/// (PostgreSQL folds unquoted names to lower case).
public struct SQLRow: Sendable {
    public let names: [String]
    public let values: [SQLValue]

    public init(names: [String], values: [SQLValue]) {
        self.names = names
        self.values = values
    }

    public subscript<T: SQLColumn>(_ index: Int) -> T {
        guard let v = T(sqlValue: values[index]) else {
            preconditionFailure("column \(index) (\(names[index])) holds \(values[index]), not \(T.self)")
        }
        return v
    }

    public subscript<T: SQLColumn>(_ name: String) -> T {
        guard let index = index(of: name) else { preconditionFailure("no column \(name) in \(names)") }
        return self[index]
    }

    /// The column's index, nil when the row has no such column. The same spelling first; then
    /// ASCII letters compared without case (column names are ASCII identifiers). Foundation's
    /// `caseInsensitiveCompare` here was 60 % of the CPU of reading a 100k-item gallery (issue 15).
    public func index(of name: String) -> Int? {
        if let i = names.firstIndex(of: name) { return i }
        return names.firstIndex { SQLRow.asciiCaseInsensitiveEqual($0, name) }
    }

    static func asciiCaseInsensitiveEqual(_ a: String, _ b: String) -> Bool {
        var x = a.utf8.makeIterator(), y = b.utf8.makeIterator()
        while true {
            switch (x.next(), y.next()) {
            case (nil, nil): return true
            case let (p?, q?):
                if p == q { continue }
                let lp = p >= 65 && p <= 90 ? p | 0x20 : p, lq = q >= 65 && q <= 90 ? q | 0x20 : q
                if lp != lq { return false }
            default: return false
            }
        }
    }
}

/// A row of a cursor read, valid only inside the callback (the columnar read of 100k rows: no
/// `SQLRow` per row).
public protocol SQLRowView {
    func int64(_ column: Int) -> Int64
    func double(_ column: Int) -> Double
    /// nil for NULL.
    func text(_ column: Int) -> String?
    /// The first byte of a text column (0 for NULL or empty).
    func firstByte(_ column: Int) -> UInt8
}

/// One connection, inside a read, a write or the writer's turn.
public protocol SQLConnection: AnyObject {
    var dialect: SQLDialect { get }
    /// Runs one statement; answers the number of rows it changed.
    @discardableResult func execute(_ sql: String, _ arguments: SQLArguments) throws -> Int
    /// Every row of a query. `cached`: the statement is kept prepared (not for SQL made per call).
    func fetchAll(_ sql: String, _ arguments: SQLArguments, cached: Bool) throws -> [SQLRow]
    /// Each row of a query in turn, without making `SQLRow`s.
    func forEach(_ sql: String, _ arguments: SQLArguments, _ body: (any SQLRowView) throws -> Void) throws
    /// Runs an INSERT and answers the new row's `id`.
    func insert(_ sql: String, _ arguments: SQLArguments) throws -> Int64
    /// Rows changed by this connection so far (a batch's `rowsWritten`).
    var totalChanges: Int { get }
    /// `body` in a transaction: committed when it returns, rolled back when it throws.
    func transaction<T>(_ body: () throws -> T) throws -> T
    /// Inside `transaction`: `body` in a savepoint, its writes kept when it returns and undone
    /// when it throws (the transaction goes on). If the transaction itself ended meanwhile (an
    /// error the database answers by rolling everything back), `inTransaction` is false after.
    func savepoint<T>(_ body: () throws -> T) throws -> T
    /// Whether a transaction is open on this connection.
    var inTransaction: Bool { get }
}

extension SQLConnection {
    public func fetchAll(_ sql: String, _ arguments: SQLArguments = []) throws -> [SQLRow] {
        try fetchAll(sql, arguments, cached: true)
    }

    public func fetchOne(_ sql: String, _ arguments: SQLArguments = []) throws -> SQLRow? {
        try fetchAll(sql, arguments, cached: true).first
    }

    /// The first column of the first row; nil when there is no row or it is NULL.
    public func value<T: SQLColumn>(_ sql: String, _ arguments: SQLArguments = [], as: T.Type = T.self) throws -> T? {
        guard let row = try fetchOne(sql, arguments), let v = row.values.first else { return nil }
        if case .null = v { return nil }
        guard let t = T(sqlValue: v) else { throw StoreError.corrupt("\(sql): a \(v), not \(T.self)") }
        return t
    }

    /// The first column of every row.
    public func values<T: SQLColumn>(_ sql: String, _ arguments: SQLArguments = [], as: T.Type = T.self) throws -> [T] {
        try fetchAll(sql, arguments, cached: true).map { $0[0] }
    }

    public func exists(_ sql: String, _ arguments: SQLArguments = []) throws -> Bool {
        try value("SELECT EXISTS (\(sql))", arguments, as: Bool.self) ?? false
    }
}

extension SQLConnection {
    /// A statement without arguments.
    @discardableResult public func execute(_ sql: String) throws -> Int { try execute(sql, []) }
}
