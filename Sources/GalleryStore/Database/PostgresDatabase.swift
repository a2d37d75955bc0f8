import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// PostgreSQL through postgres-nio: `gallery serve --database postgres://user@host:port/db`.
///
/// One writer connection on a serial queue (a gallery's batches stay one at a time in this
/// process, as with SQLite; across processes the batch's `SELECT … FOR UPDATE` on the gallery's
/// row keeps versions serial) and a few reader connections, each read in a REPEATABLE READ
/// transaction (one consistent state, as SQLite's WAL snapshots). The queues' threads block on
/// postgres-nio's futures; the Swift concurrency pool never does. A connection that broke (the
/// server restarted) is opened again on its next use.
///
/// URL: `postgres://[user[:password]@]host[:port]/database`, or a socket folder with
/// `?host=/path/to/dir` (the port names the socket file). No TLS (`sslmode=require` is refused).
public final class PostgresDatabase: StoreDatabase {
    public var kind: String { "postgresql" }
    let configuration: PostgresConnection.Configuration
    /// What the errors show of the URL (no password).
    public let displayURL: String
    let writer: PGConnection
    let writerQueue = DispatchQueue(label: "gallery.postgres.writer")
    let readQueue = DispatchQueue(label: "gallery.postgres.readers", attributes: .concurrent)
    let readers = Mutex<[PGConnection]>([])
    /// At most this many reads at a time (each on its own connection).
    let readSlots: DispatchSemaphore
    static let maxReaders = 4

    public init(url: String) throws {
        (configuration, displayURL) = try Self.parse(url)
        readSlots = DispatchSemaphore(value: Self.maxReaders)
        writer = PGConnection(configuration: configuration, displayURL: displayURL)
        try writer.connectIfNeeded()
        try PostgresMigrations.migrate(writer)
    }

    static func parse(_ url: String) throws -> (PostgresConnection.Configuration, String) {
        guard let c = URLComponents(string: url), c.scheme == "postgres" || c.scheme == "postgresql" else {
            throw StoreError.invalid("database URL \(redacted(url)) is not postgres://user@host:port/database")
        }
        let query = Dictionary((c.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        if let mode = query["sslmode"], mode != "disable" && mode != "prefer" && mode != "allow" {
            throw StoreError.invalid("database URL: sslmode=\(mode) is not supported (no TLS; use a local or tunnelled connection)")
        }
        let user = c.user.flatMap { $0.removingPercentEncoding } ?? ProcessInfo.processInfo.environment["USER"] ?? "postgres"
        let password = c.password?.removingPercentEncoding
        let database = String(c.path.drop { $0 == "/" })
        guard !database.isEmpty else { throw StoreError.invalid("database URL \(redacted(url)) names no database (postgres://host/DATABASE)") }
        let port = c.port ?? 5432
        var config: PostgresConnection.Configuration
        var where_: String
        if let socketDir = query["host"], socketDir.hasPrefix("/") {
            config = .init(unixSocketPath: "\(socketDir)/.s.PGSQL.\(port)", username: user, password: password, database: database)
            where_ = "\(socketDir) port \(port)"
        } else {
            let host = c.host.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost"
            config = .init(host: host, port: port, username: user, password: password, database: database, tls: .disable)
            where_ = "\(host):\(port)"
        }
        config.options.connectTimeout = .seconds(10)
        return (config, "postgres://\(user)@\(where_)/\(database)")
    }

    /// `url` as an error may show it: a password between `//user:` and `@` is replaced by `***`,
    /// also in a URL that does not parse (a wrong scheme, a space), so it reaches no log.
    static func redacted(_ url: String) -> String {
        guard let scheme = url.range(of: "://"),
              let at = url[scheme.upperBound...].lastIndex(of: "@") else { return url }
        let credentials = url[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return url }
        return String(url[..<url.index(after: colon)]) + "***" + String(url[at...])
    }

    /// Creates an empty database `name` on the server `url` names (as the user it names, which
    /// needs CREATEDB); answers the URL of the new database. Tests make one per store.
    public static func createDatabase(beside url: String, named name: String) throws -> String {
        guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
            throw StoreError.invalid("database name \(name): letters, digits and _ only")
        }
        let (config, display) = try parse(url)
        let admin = PGConnection(configuration: config, displayURL: display)
        try admin.connectIfNeeded()
        defer { admin.close() }
        try admin.runScript("CREATE DATABASE \(name)")
        var parts = URLComponents(string: url)!
        parts.path = "/" + name
        return parts.string!
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            readQueue.async {
                continuation.resume(with: Result { try self.readNow(body) })
            }
        }
    }

    public func readNow<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        readSlots.wait()
        defer { readSlots.signal() }
        let c = readers.withLock { $0.popLast() } ?? PGConnection(configuration: configuration, displayURL: displayURL)
        defer { readers.withLock { $0.append(c) } }
        try c.connectIfNeeded()
        try c.run("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        do {
            let out = try body(c)
            try c.run("COMMIT")
            return out
        } catch {
            try? c.run("ROLLBACK")
            throw error
        }
    }

    @discardableResult public func write<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await writeWithoutTransaction { c in try c.transaction { try body(c) } }
    }

    @discardableResult public func writeWithoutTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            writerQueue.async {
                continuation.resume(with: Result {
                    try self.writer.connectIfNeeded()
                    return try body(self.writer)
                })
            }
        }
    }

    public func writeLater(_ body: @escaping @Sendable (any SQLConnection) -> Void) {
        writerQueue.async {
            // Not connected: the body's first statement says why (`connectError`).
            try? self.writer.connectIfNeeded()
            body(self.writer)
        }
    }

    public func close() throws {
        writerQueue.sync { writer.close() }
        for c in readers.withLock({ r -> [PGConnection] in defer { r = [] }; return r }) { c.close() }
    }
}

/// One PostgreSQL connection, used by one thread at a time (the writer's queue, or a reader
/// checked out of the pool).
final class PGConnection: SQLConnection, @unchecked Sendable {
    let configuration: PostgresConnection.Configuration
    let displayURL: String
    var connection: PostgresConnection?
    var totalChanges = 0
    var inTransaction = false
    static let logger = Logger(label: "gallery.postgres")
    static let nextID = Atomic<Int>(0)
    /// `?` placeholders turned into `$1, $2, …`, per statement text.
    static let translated = Mutex<[String: String]>([:])

    init(configuration: PostgresConnection.Configuration, displayURL: String) {
        self.configuration = configuration
        self.displayURL = displayURL
    }

    var dialect: SQLDialect { .postgres }

    /// Why the last connect failed (a statement without a connection says so: `writeLater`).
    var connectError: (any Error)?

    func connectIfNeeded() throws {
        if let connection, !connection.isClosed { return }
        connection = nil
        inTransaction = false
        do {
            connection = try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration,
                id: Self.nextID.add(1, ordering: .relaxed).newValue, logger: Self.logger).wait()
            connectError = nil
        } catch {
            // PostgreSQL answered and said no (a wrong password, no such role or database: SQLSTATE
            // classes 28 and 3D): that will not pass by itself, unlike a server that is down or
            // starting (no answer, 57P03), which is a 503 and is tried again.
            let refused = (error as? PSQLError)?.serverInfo?[.sqlState].map { $0.hasPrefix("28") || $0.hasPrefix("3D") } ?? false
            let answer = refused ? StoreError.database("PostgreSQL at \(displayURL) refused the connection: \(Self.describe(error))")
                : StoreError.unavailable("PostgreSQL at \(displayURL) cannot be reached: \(Self.describe(error))")
            connectError = answer
            throw answer
        }
    }

    func close() {
        if let connection, !connection.isClosed {
            // Waited for, except on an event loop's own thread (a store let go there).
            if MultiThreadedEventLoopGroup.currentEventLoop == nil { try? connection.close().wait() } else { let _: EventLoopFuture<Void> = connection.close() }
        }
        connection = nil
    }

    deinit { close() }

    /// What an error says, with the server's message when there is one (postgres-nio's own
    /// description hides it).
    static func describe(_ error: any Error) -> String {
        guard let e = error as? PSQLError else { return "\(error)" }
        if let info = e.serverInfo, let message = info[.message] {
            return [info[.sqlState].map { "\($0): " } ?? "", message, info[.detail].map { " (\($0))" } ?? ""].joined()
        }
        switch e.code {
        case .connectionError:
            return e.underlying.map { "\($0)" } ?? "no connection"
        case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown:
            return "the connection was lost (\(e.code))"
        default:
            return "\(e.code)" + (e.underlying.map { ": \($0)" } ?? "")
        }
    }

    /// `?` → `$n`, outside quoted strings.
    static func translate(_ sql: String) -> String {
        if let t = translated.withLock({ $0[sql] }) { return t }
        var out = "", n = 0, quoted = false
        out.reserveCapacity(sql.utf8.count + 16)
        for ch in sql {
            if ch == "'" { quoted.toggle() }
            if ch == "?" && !quoted { n += 1; out += "$\(n)" } else { out.append(ch) }
        }
        translated.withLock { if $0.count < 2_000 { $0[sql] = out } }
        return out
    }

    static func bindings(_ arguments: SQLArguments) -> PostgresBindings {
        var b = PostgresBindings(capacity: arguments.count)
        for v in arguments.values {
            switch v {
            case .null: b.appendNull()
            case let .int(i): b.append(i)
            case let .double(d): b.append(d)
            case let .text(s): b.append(s)
            case let .blob(d): b.append(ByteBuffer(bytes: d))
            }
        }
        return b
    }

    func query(_ sql: String, _ arguments: SQLArguments) throws -> PostgresQueryResult {
        guard let connection else { throw connectError ?? StoreError.unavailable("PostgreSQL at \(displayURL): not connected") }
        do {
            return try connection.query(PostgresQuery(unsafeSQL: Self.translate(sql), binds: Self.bindings(arguments)), logger: Self.logger).wait()
        } catch {
            if connection.isClosed {
                throw StoreError.unavailable("PostgreSQL at \(displayURL): \(Self.describe(error))")
            }
            // PostgreSQL's text cannot hold U+0000 (SQLite's can): a name or title with one is the
            // client's mistake (a 422), not the server's 500. The statement failed: nothing was written.
            if let e = error as? PSQLError, let state = e.serverInfo?[.sqlState], state == "22021" || state == "22P05" {
                throw StoreError.invalid("a text holds the character U+0000 (NUL), which the database cannot store: nothing was written")
            }
            // Its disk is full (disk_full): the statement's transaction is rolled back; a 507.
            if (error as? PSQLError)?.serverInfo?[.sqlState] == "53100" { throw StoreError.storageFull(Self.describe(error)) }
            throw StoreError.database(Self.describe(error))
        }
    }

    /// A statement without arguments or rows (BEGIN, COMMIT…).
    func run(_ sql: String) throws { _ = try query(sql, []) }

    /// Several statements separated by `;` (the migrations: no `;` inside their strings), one
    /// after the other (postgres-nio speaks only the extended protocol: one statement a message).
    func runScript(_ sql: String) throws {
        for statement in sql.split(separator: ";") where !statement.allSatisfy(\.isWhitespace) {
            try run(String(statement))
        }
    }

    func execute(_ sql: String, _ arguments: SQLArguments) throws -> Int {
        let n = try query(sql, arguments).metadata.rows ?? 0
        totalChanges += n
        return n
    }

    func fetchAll(_ sql: String, _ arguments: SQLArguments, cached: Bool) throws -> [SQLRow] {
        let result = try query(sql, arguments)
        guard let first = result.rows.first else { return [] }
        let head = first.makeRandomAccess()
        let names = (0..<head.count).map { head[$0].columnName }
        return try result.rows.map { row in
            let r = row.makeRandomAccess()
            return SQLRow(names: names, values: try (0..<r.count).map { try Self.value(r[$0]) })
        }
    }

    func forEach(_ sql: String, _ arguments: SQLArguments, _ body: (any SQLRowView) throws -> Void) throws {
        for row in try query(sql, arguments).rows {
            try body(PGRowView(row: row.makeRandomAccess()))
        }
    }

    func insert(_ sql: String, _ arguments: SQLArguments) throws -> Int64 {
        let result = try query(sql, arguments)
        totalChanges += result.metadata.rows ?? 0
        guard let row = result.rows.first, let id = try Int64(sqlValue: Self.value(row.makeRandomAccess()[0])) else {
            throw StoreError.corrupt("\(sql): no id returned")
        }
        return id
    }

    func transaction<T>(_ body: () throws -> T) throws -> T {
        try run("BEGIN")
        inTransaction = true
        defer { inTransaction = false }
        let out: T
        do { out = try body() } catch {
            try? run("ROLLBACK")
            throw error
        }
        try run("COMMIT")
        return out
    }

    /// `SAVEPOINT` … `RELEASE`, inside `transaction` only; on an error rolled back to (PostgreSQL
    /// then takes statements again) and released. If that fails, the transaction is rolled back.
    func savepoint<T>(_ body: () throws -> T) throws -> T {
        precondition(inTransaction, "a savepoint outside a transaction")
        try run("SAVEPOINT batch")
        do {
            let out = try body()
            try run("RELEASE SAVEPOINT batch")
            return out
        } catch {
            do {
                try run("ROLLBACK TO SAVEPOINT batch")
                try run("RELEASE SAVEPOINT batch")
            } catch {
                try? run("ROLLBACK")
                inTransaction = false
            }
            throw error
        }
    }

    static func value(_ cell: PostgresCell) throws -> SQLValue {
        guard cell.bytes != nil else { return .null }
        do {
            switch cell.dataType {
            case .bool: return .int(try cell.decode(Bool.self) ? 1 : 0)
            case .int2, .int4, .int8, .oid: return .int(try cell.decode(Int64.self))
            case .float4, .float8: return .double(try cell.decode(Double.self))
            case .bytea: return .blob(try cell.decode(Data.self))
            default: return .text(try cell.decode(String.self))
            }
        } catch {
            throw StoreError.corrupt("column \(cell.columnName) of type \(cell.dataType) does not decode: \(error)")
        }
    }
}

struct PGRowView: SQLRowView {
    let row: PostgresRandomAccessRow
    func value(_ column: Int) -> SQLValue { (try? PGConnection.value(row[column])) ?? .null }
    func int64(_ column: Int) -> Int64 { Int64(sqlValue: value(column)) ?? 0 }
    func double(_ column: Int) -> Double { Double(sqlValue: value(column)) ?? 0 }
    func text(_ column: Int) -> String? { String(sqlValue: value(column)) }
    func firstByte(_ column: Int) -> UInt8 { text(column)?.utf8.first ?? 0 }
}
