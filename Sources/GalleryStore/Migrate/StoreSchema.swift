import Foundation

/// The tables of a store's database as the database itself describes them (SQLite's
/// `sqlite_master` and `PRAGMA table_info`, PostgreSQL's `information_schema`), not a list
/// written by hand: `gallery migrate` and `gallery check` work on whatever tables and columns
/// the migrations made, so a table or column added later is copied and compared, or refused
/// with its name, never skipped.
struct StoreSchema: Sendable {
    struct Column: Sendable {
        /// As the schema spells it (SQLite: `galleryId`; PostgreSQL folds it to `galleryid`).
        let name: String
        /// SQLite's declared type, or PostgreSQL's `data_type` (`bigint`, `text`, `bytea`…).
        let type: String
        /// PostgreSQL: an identity column (its sequence is set past the copied ids).
        let identity: Bool
    }

    struct Table: Sendable {
        let name: String
        var columns: [Column]
        /// The primary key's columns in key order (every column when the table has none).
        var primaryKey: [String]
        /// Tables this one refers to (foreign keys): copied before it.
        var parents: [String]

        func column(_ name: String) -> Column? {
            columns.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
        }
    }

    /// In the order the database made them.
    var tables: [Table]
    /// The named migration steps the database went through.
    var migrations: [String]

    func table(_ name: String) -> Table? {
        tables.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// Tables the store does not own: SQLite's own, GRDB's migration log, PostgreSQL's migration log.
    static func isBookkeeping(_ name: String) -> Bool {
        name.lowercased().hasPrefix("sqlite_") || name == "grdb_migrations" || name == "schema_migration"
    }

    /// The schema of a SQLite database (`c` a GRDB connection).
    static func sqlite(_ c: any SQLConnection) throws -> StoreSchema {
        let names: [String] = try c.values("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")
        var tables: [Table] = []
        for name in names where !isBookkeeping(name) {
            let quoted = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            let info = try c.fetchAll("PRAGMA table_info(\(quoted))", [], cached: false)
            let columns = info.map { Column(name: $0["name"], type: ($0["type"] as String).lowercased(), identity: false) }
            let key = info.filter { ($0["pk"] as Int) > 0 }.sorted { ($0["pk"] as Int) < ($1["pk"] as Int) }.map { $0["name"] as String }
            let parents = try c.fetchAll("PRAGMA foreign_key_list(\(quoted))", [], cached: false).map { $0["table"] as String }
            tables.append(Table(name: name, columns: columns, primaryKey: key.isEmpty ? columns.map(\.name) : key,
                                parents: Array(Set(parents.filter { $0 != name })).sorted()))
        }
        let migrations: [String] = (try? c.values("SELECT identifier FROM grdb_migrations ORDER BY rowid")) ?? []
        return StoreSchema(tables: tables, migrations: migrations)
    }

    /// The schema of a PostgreSQL database (its current schema, `public` unless the URL's user says otherwise).
    static func postgres(_ c: any SQLConnection) throws -> StoreSchema {
        let names: [String] = try c.values("""
            SELECT table_name::text FROM information_schema.tables
            WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name
            """)
        var columns: [String: [Column]] = [:]
        for row in try c.fetchAll("""
            SELECT table_name::text AS t, column_name::text AS c, data_type::text AS d, is_identity::text AS i
            FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position
            """, [], cached: false) {
            columns[row["t"], default: []].append(Column(name: row["c"], type: row["d"], identity: (row["i"] as String) == "YES"))
        }
        var keys: [String: [String]] = [:]
        for row in try c.fetchAll("""
            SELECT tc.table_name::text AS t, kcu.column_name::text AS c
            FROM information_schema.table_constraints tc
            JOIN information_schema.key_column_usage kcu
              ON kcu.constraint_name = tc.constraint_name AND kcu.table_schema = tc.table_schema AND kcu.table_name = tc.table_name
            WHERE tc.constraint_type = 'PRIMARY KEY' AND tc.table_schema = current_schema()
            ORDER BY tc.table_name, kcu.ordinal_position
            """, [], cached: false) {
            keys[row["t"], default: []].append(row["c"])
        }
        var parents: [String: Set<String>] = [:]
        for row in try c.fetchAll("""
            SELECT c.conrelid::regclass::text AS t, c.confrelid::regclass::text AS p
            FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
            WHERE c.contype = 'f' AND n.nspname = current_schema()
            """, [], cached: false) where (row["t"] as String) != (row["p"] as String) {
            parents[row["t"], default: []].insert(row["p"])
        }
        let tables = names.filter { !isBookkeeping($0) }.map { name in
            let cols = columns[name] ?? []
            return Table(name: name, columns: cols, primaryKey: keys[name] ?? cols.map(\.name), parents: (parents[name] ?? []).sorted())
        }
        var migrations: [String] = []
        if names.contains("schema_migration") {
            migrations = try c.values("SELECT name::text FROM schema_migration ORDER BY appliedAt, name")
        }
        return StoreSchema(tables: tables, migrations: migrations)
    }

    /// Parents before children (foreign keys), otherwise in the order the database made them.
    func copyOrder() throws -> [Table] {
        var done = Set<String>(), out: [Table] = []
        var left = tables
        while !left.isEmpty {
            guard let next = left.firstIndex(where: { t in
                t.parents.allSatisfy { p in done.contains(p.lowercased()) || table(p) == nil }
            }) else {
                throw StoreError.invalid("the tables \(left.map(\.name).joined(separator: ", ")) refer to each other in a cycle: no order to copy them in")
            }
            let t = left.remove(at: next)
            done.insert(t.name.lowercased())
            out.append(t)
        }
        return out
    }
}
