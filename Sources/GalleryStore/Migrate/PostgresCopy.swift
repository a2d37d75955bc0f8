import Foundation
import GRDB

/// `gallery migrate --to postgres://…`: every row of a data folder's SQLite file copied into
/// PostgreSQL, ids kept (links, sessions, tokens and URLs stay valid), in one transaction on the
/// target — a copy that stops half way (an error, a kill -9, a lost connection) leaves the target
/// as it was. The images folder is not copied: instances on either database use the data folder's.
///
/// The tables and columns come from the two schemas themselves (`StoreSchema`): every table the
/// SQLite file has must exist in PostgreSQL with every one of its columns, or nothing is copied
/// and the error names what is missing. The source is read in one SQLite read transaction (one
/// consistent snapshot, a WAL read: a writer meanwhile is not stopped, and not seen), a cursor
/// per table; rows go to PostgreSQL in multi-row INSERTs of `batchRows` (or fewer when large).
public enum PostgresCopy {
    public enum Event: Sendable {
        /// Tables in copy order with their row counts.
        case plan([(table: String, rows: Int)])
        /// `done` of `total` rows of `table` are in (sent after each batch).
        case copied(table: String, done: Int, total: Int)
        /// Copied; comparing the target with the source before the commit.
        case verifying
    }

    public struct Summary: Sendable {
        public var tables: [(table: String, rows: Int)] = []
        public var rows: Int { tables.reduce(0) { $0 + $1.rows } }
        /// Identity sequences set past the copied ids (`table.column` → next id).
        public var sequences: [(column: String, next: Int64)] = []
        public var copySeconds = 0.0
        public var verifySeconds = 0.0
        /// The comparison made inside the transaction, before the commit (nil without `verify`).
        public var comparison: StoreComparison?
        public var emptiedTarget = false
    }

    /// Copies `dataFolder/gallery.sqlite` into the PostgreSQL database `url`. The target must hold
    /// no rows unless `replace` (then it is emptied in the same transaction). With `verify`, the
    /// copy is compared with the source (`StoreComparison`) before the commit and rolled back when
    /// anything differs. The source is brought to this binary's schema first (what `gallery serve`
    /// would do), the target too (`PostgresMigrations`).
    public static func run(dataFolder: URL, to url: String, replace: Bool = false, verify: Bool = true,
                           batchRows: Int = 1_000, progress: (Event) -> Void = { _ in }) throws -> Summary {
        let path = dataFolder.appendingPathComponent("gallery.sqlite").path
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError.invalid("no data folder at \(dataFolder.path) (no gallery.sqlite)")
        }
        var config = Configuration()
        config.busyMode = .timeout(10)
        let pool = try DatabasePool(path: path, configuration: config)
        defer { try? pool.close() }
        try Migrations.migrator.migrate(pool)
        let pg = try PGConnection.open(url)
        defer { pg.close() }
        // Refusals before anything is written to the target (the schema's migrations included, so a
        // refused copy leaves the database exactly as it was).
        let sourceTables = try pool.read { db in try StoreSchema.sqlite(GRDBConnection(db)).tables.map(\.name) }
        let before = try StoreSchema.postgres(pg)
        // What the target holds already: refused unless replace.
        var held: [(String, Int)] = []
        for t in before.tables {
            let n = try pg.value("SELECT COUNT(*) FROM \"\(t.name.replacingOccurrences(of: "\"", with: "\"\""))\"", as: Int.self) ?? 0
            if n > 0 { held.append((t.name, n)) }
        }
        // Rows in a table the gallery does not have (another application's): refused even with
        // --replace, which empties only the gallery's own tables.
        let foreign = held.filter { !sourceTables.contains($0.0) }
        if !foreign.isEmpty {
            let named = foreign.map { "\($0.1) \($0.0) rows" }.joined(separator: ", ")
            throw StoreError.invalid("""
                PostgreSQL at \(pg.displayURL) holds rows in tables that are not the gallery's (\(named)): \
                migrate into a database of its own (createdb NAME); --replace empties only the gallery's tables
                """)
        }
        if !held.isEmpty && !replace {
            let named = held.map { "\($0.1) \($0.0) rows" }.joined(separator: ", ")
            throw StoreError.invalid("""
                PostgreSQL at \(pg.displayURL) is not empty (\(named)): migrate copies into an empty \
                database (create one: createdb NAME), or pass --replace to delete what is there, in the \
                same transaction as the copy
                """)
        }
        try PostgresMigrations.migrate(pg)

        return try pool.read { db in
            let sqlite = GRDBConnection(db)
            let source = try StoreSchema.sqlite(sqlite)
            let target = try StoreSchema.postgres(pg)
            try checkSchemas(source, target, url: pg.displayURL)
            let order = try source.copyOrder()
            var summary = Summary()
            for t in order {
                let rows = try StoreComparison.count(sqlite, t.name)
                summary.tables.append((t.name, rows))
            }
            progress(.plan(summary.tables))
            let started = Date()
            try pg.transaction {
                if !held.isEmpty {
                    // The gallery's tables only, all in one statement (their foreign keys point
                    // among them); no CASCADE: a table of another application that refers to
                    // them stops the copy instead of being emptied.
                    try pg.run("TRUNCATE \(order.map(\.name).joined(separator: ", ")) RESTART IDENTITY")
                    summary.emptiedTarget = true
                }
                for (t, planned) in zip(order, summary.tables) {
                    try copy(t, total: planned.rows, from: sqlite, to: pg, target: target.table(t.name)!, batchRows: batchRows, progress: progress)
                }
                summary.sequences = try setSequences(order, sqlite: sqlite, pg: pg, target: target)
                summary.copySeconds = -started.timeIntervalSinceNow
                if verify {
                    progress(.verifying)
                    let verifying = Date()
                    let comparison = try StoreComparison.compare(
                        StoreComparison.Side(name: "SQLite", connection: sqlite, schema: source),
                        StoreComparison.Side(name: "PostgreSQL", connection: pg, schema: try StoreSchema.postgres(pg)), limit: 20)
                    summary.verifySeconds = -verifying.timeIntervalSinceNow
                    summary.comparison = comparison
                    guard comparison.isEqual else {
                        throw StoreError.corrupt("the copy differs from the source, so it was rolled back:\n  "
                                                 + comparison.differences.joined(separator: "\n  "))
                    }
                }
            }
            return summary
        }
    }

    /// Every SQLite table must be in PostgreSQL with all its columns, both at the same migration step.
    static func checkSchemas(_ source: StoreSchema, _ target: StoreSchema, url: String) throws {
        var problems: [String] = []
        if source.migrations != target.migrations {
            let extra = source.migrations.filter { !target.migrations.contains($0) }
            let missing = target.migrations.filter { !source.migrations.contains($0) }
            problems.append("the two schemas are at different steps"
                            + (extra.isEmpty ? "" : " (only SQLite went through \(extra.joined(separator: "; ")))")
                            + (missing.isEmpty ? "" : " (only PostgreSQL went through \(missing.joined(separator: "; ")))"))
        }
        for t in source.tables {
            guard let p = target.table(t.name) else {
                problems.append("the SQLite file has a table \(t.name) that PostgreSQL's schema does not have")
                continue
            }
            for c in t.columns where p.column(c.name) == nil {
                problems.append("table \(t.name) has a column \(c.name) in SQLite that PostgreSQL's schema does not have")
            }
            for c in p.columns where t.column(c.name) == nil {
                problems.append("table \(t.name) has a column \(c.name) in PostgreSQL that the SQLite file does not have")
            }
        }
        guard problems.isEmpty else {
            throw StoreError.invalid("cannot copy into \(url), nothing was written: " + problems.joined(separator: "; ")
                                     + " — migrate with the gallery binary that wrote the data folder, or a newer one")
        }
    }

    /// The table's rows through a cursor, in multi-row INSERTs.
    static func copy(_ t: StoreSchema.Table, total: Int, from sqlite: GRDBConnection, to pg: PGConnection,
                     target: StoreSchema.Table, batchRows: Int, progress: (Event) -> Void) throws {
        let columns = t.columns.map(\.name)
        let types = columns.map { target.column($0)!.type }
        // PostgreSQL takes at most 65,535 parameters a statement.
        let perBatch = max(1, min(batchRows, 30_000 / max(1, columns.count)))
        let head = "INSERT INTO \(t.name) (\(columns.joined(separator: ", "))) VALUES "
        var statements: [Int: String] = [:]
        func statement(_ rows: Int) -> String {
            if let s = statements[rows] { return s }
            var s = head, n = 0
            s.reserveCapacity(head.utf8.count + rows * columns.count * 6)
            for r in 0..<rows {
                s += r == 0 ? "(" : ", ("
                for k in 0..<columns.count { n += 1; s += k == 0 ? "$\(n)" : ", $\(n)" }
                s += ")"
            }
            statements[rows] = s
            return s
        }
        var batch: SQLArguments = []
        batch.reserveCapacity(perBatch * columns.count)
        var rows = 0, bytes = 0, done = 0
        func flush() throws {
            guard rows > 0 else { return }
            _ = try pg.execute(statement(rows), batch)
            done += rows
            batch.removeAll(keepingCapacity: true)
            rows = 0
            bytes = 0
            progress(.copied(table: t.name, done: done, total: total))
        }
        progress(.copied(table: t.name, done: 0, total: total))
        let quoted = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        let cursor = try Row.fetchCursor(sqlite.db, sql: "SELECT \(quoted) FROM \"\(t.name)\"")
        while let row = try cursor.next() {
            for (k, value) in row.databaseValues.enumerated() {
                let v = try convert(GRDBConnection.value(value), to: types[k], table: t.name, column: columns[k])
                if case let .blob(d) = v { bytes += d.count } else if case let .text(s) = v { bytes += s.utf8.count }
                batch.append(v)
            }
            rows += 1
            // Checkpoint blobs of a big gallery are megabytes each: a batch stays under ~16 MB.
            if rows == perBatch || bytes > 16 << 20 { try flush() }
        }
        try flush()
        guard done == total else {
            throw StoreError.corrupt("table \(t.name): counted \(total) rows, copied \(done)")
        }
    }

    /// A SQLite value as the PostgreSQL column's type wants it (SQLite's columns take any type;
    /// a value that does not fit is an error naming it, not a silent change).
    static func convert(_ v: SQLValue, to type: String, table: String, column: String) throws -> SQLValue {
        func refuse() -> StoreError {
            StoreError.invalid("table \(table) column \(column): the SQLite value \(StoreComparison.show(v, column: column)) does not fit PostgreSQL's \(type)")
        }
        if case .null = v { return .null }
        switch type {
        case "bigint", "integer", "smallint":
            switch v {
            case .int: return v
            case let .double(d): guard let i = Int64(exactly: d) else { throw refuse() }; return .int(i)
            case let .text(s): guard let i = Int64(s) else { throw refuse() }; return .int(i)
            case .blob, .null: throw refuse()
            }
        case "double precision", "real", "numeric":
            switch v {
            case .double: return v
            case let .int(i): return .double(Double(i))
            case let .text(s): guard let d = Double(s) else { throw refuse() }; return .double(d)
            case .blob, .null: throw refuse()
            }
        case "text", "character varying", "character":
            switch v {
            case .text: return v
            case let .int(i): return .text(String(i))
            case let .double(d): return .text(String(d))
            case let .blob(b): guard let s = String(data: b, encoding: .utf8) else { throw refuse() }; return .text(s)
            case .null: return v
            }
        case "bytea":
            switch v {
            case .blob: return v
            case let .text(s): return .blob(Data(s.utf8))
            default: throw refuse()
            }
        default:
            throw StoreError.invalid("table \(table) column \(column): PostgreSQL's type \(type) is not one the copier knows (bigint, double precision, text, bytea)")
        }
    }

    /// Each identity column's sequence past the highest id copied — and past the highest id
    /// SQLite ever gave (AUTOINCREMENT's `sqlite_sequence`: ids of purged rows are not reused).
    static func setSequences(_ tables: [StoreSchema.Table], sqlite: GRDBConnection, pg: PGConnection,
                             target: StoreSchema) throws -> [(column: String, next: Int64)] {
        var given: [String: Int64] = [:]
        if try sqlite.exists("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'") {
            for row in try sqlite.fetchAll("SELECT name, seq FROM sqlite_sequence", [], cached: false) {
                given[(row["name"] as String).lowercased()] = row["seq"]
            }
        }
        var out: [(column: String, next: Int64)] = []
        for t in tables {
            guard let p = target.table(t.name) else { continue }
            for c in p.columns where c.identity {
                let highest = max(try pg.value("SELECT MAX(\(c.name)) FROM \(t.name)", as: Int64.self) ?? 0, given[t.name.lowercased()] ?? 0)
                guard highest > 0 else { continue }
                _ = try pg.execute("SELECT setval(pg_get_serial_sequence(?, ?), ?, true)", [t.name, c.name, highest])
                out.append(("\(t.name).\(c.name)", highest + 1))
            }
        }
        return out
    }
}
