import Foundation
import GRDB

/// What `gallery check --against` found comparing two databases of a store (SQLite and
/// PostgreSQL after `gallery migrate`, or two PostgreSQL databases after a restore): row counts
/// per table, every row of every table by primary key (each gallery's version, rank keys, states,
/// file hashes, accounts, sessions, tokens, links — secrets compared by their stored hashes and
/// never printed), and the order of sections per gallery and of items per section as each
/// database sorts them (`ORDER BY rank`: the "C" collation must sort like SQLite's BINARY).
public struct StoreComparison: Sendable {
    public struct TableCount: Sendable {
        public let table: String
        /// nil: the table is not in that database.
        public let left: Int?
        public let right: Int?
    }
    public struct GalleryLine: Sendable {
        public let id: Int64
        public let name: String
        public let leftVersion: Int64?
        public let rightVersion: Int64?
    }

    public let left: String
    public let right: String
    public internal(set) var counts: [TableCount] = []
    public internal(set) var galleries: [GalleryLine] = []
    /// Sections and items whose order was compared.
    public internal(set) var sectionsOrdered = 0
    public internal(set) var itemsOrdered = 0
    /// What differs, one line each, the first `limit`; `moreDifferences` counts the rest.
    public internal(set) var differences: [String] = []
    public internal(set) var moreDifferences = 0
    let limit: Int

    public var isEqual: Bool { differences.isEmpty && moreDifferences == 0 }
    public var rows: Int { counts.reduce(0) { $0 + ($1.left ?? 0) } }

    init(left: String, right: String, limit: Int) {
        self.left = left
        self.right = right
        self.limit = limit
    }

    mutating func differ(_ line: String) {
        if differences.count < limit { differences.append(line) } else { moreDifferences += 1 }
    }

    /// Compares SQLite in `dataFolder` with the PostgreSQL database `url` (read only, each in one
    /// consistent snapshot; neither is migrated).
    public static func compare(dataFolder: URL, against url: String, limit: Int = 100) throws -> StoreComparison {
        let path = dataFolder.appendingPathComponent("gallery.sqlite").path
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError.invalid("no data folder at \(dataFolder.path) (no gallery.sqlite)")
        }
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(10)
        let pool = try DatabasePool(path: path, configuration: config)
        defer { try? pool.close() }
        let pg = try PGConnection.open(url)
        defer { pg.close() }
        return try pool.read { db in
            let sqlite = GRDBConnection(db)
            return try pg.readOnlySnapshot {
                try compare(Side(name: "SQLite", connection: sqlite, schema: try StoreSchema.sqlite(sqlite)),
                            Side(name: "PostgreSQL", connection: pg, schema: try StoreSchema.postgres(pg)), limit: limit)
            }
        }
    }

    /// Compares two PostgreSQL databases (a restored backup with its original).
    public static func compare(postgres left: String, against right: String, limit: Int = 100) throws -> StoreComparison {
        let a = try PGConnection.open(left)
        defer { a.close() }
        let b = try PGConnection.open(right)
        defer { b.close() }
        return try a.readOnlySnapshot {
            try b.readOnlySnapshot {
                try compare(Side(name: a.displayURL, connection: a, schema: try StoreSchema.postgres(a)),
                            Side(name: b.displayURL, connection: b, schema: try StoreSchema.postgres(b)), limit: limit)
            }
        }
    }

    struct Side {
        let name: String
        let connection: any SQLConnection
        let schema: StoreSchema
    }

    static func compare(_ l: Side, _ r: Side, limit: Int) throws -> StoreComparison {
        var out = StoreComparison(left: l.name, right: r.name, limit: limit)
        if !l.schema.migrations.isEmpty, !r.schema.migrations.isEmpty, l.schema.migrations != r.schema.migrations {
            out.differ("schema: \(l.name) went through the migrations [\(l.schema.migrations.joined(separator: "; "))], "
                       + "\(r.name) through [\(r.schema.migrations.joined(separator: "; "))]")
        }
        // Counts, for every table either side has.
        var names = l.schema.tables.map(\.name)
        for t in r.schema.tables where l.schema.table(t.name) == nil { names.append(t.name) }
        for name in names {
            let a = try l.schema.table(name).map { try count(l.connection, $0.name) }
            let b = try r.schema.table(name).map { try count(r.connection, $0.name) }
            out.counts.append(TableCount(table: name, left: a, right: b))
            switch (a, b) {
            case let (a?, nil): out.differ("table \(name): only in \(l.name) (\(a) rows)")
            case let (nil, b?): out.differ("table \(name): only in \(r.name) (\(b) rows)")
            case let (a?, b?) where a != b: out.differ("table \(name): \(a) rows in \(l.name), \(b) in \(r.name)")
            default: break
            }
        }
        // Every row, by primary key.
        for lt in l.schema.tables {
            guard let rt = r.schema.table(lt.name) else { continue }
            for c in lt.columns where rt.column(c.name) == nil { out.differ("table \(lt.name): column \(c.name) only in \(l.name)") }
            for c in rt.columns where lt.column(c.name) == nil { out.differ("table \(lt.name): column \(c.name) only in \(r.name)") }
            try compareRows(lt, columns: lt.columns.map(\.name).filter { rt.column($0) != nil }, l, r, &out)
        }
        try compareOrder(l, r, &out)
        return out
    }

    static func count(_ c: any SQLConnection, _ table: String) throws -> Int {
        try c.value("SELECT COUNT(*) FROM \(table)", as: Int.self) ?? 0
    }

    /// Column names that hold secrets (hashes of passwords, session ids, tokens, recovery codes;
    /// TOTP secrets): compared, never printed.
    static func isSecret(_ column: String) -> Bool {
        let c = column.lowercased()
        return c.contains("password") || c.contains("totp") || c == "tokenhash" || c == "codehash" || c == "idhash"
    }

    static func show(_ v: SQLValue, column: String) -> String {
        if isSecret(column) { return "(secret)" }
        switch v {
        case .null: return "NULL"
        case let .int(i): return "\(i)"
        case let .double(d): return "\(d)"
        case let .text(s): return s.count > 100 ? "\"\(s.prefix(97))…\"" : "\"\(s)\""
        case let .blob(b): return "\(b.count) bytes"
        }
    }

    static func same(_ a: SQLValue, _ b: SQLValue) -> Bool {
        switch (a, b) {
        case let (.int(i), .double(d)), let (.double(d), .int(i)): return Double(i) == d
        default: return a == b
        }
    }

    /// Keys in the order both databases sort them: numbers numerically, text bytewise (SQLite's
    /// BINARY, PostgreSQL's "C"), NULL first.
    static func order(_ a: SQLValue, _ b: SQLValue) -> Int {
        func rank(_ v: SQLValue) -> Int {
            switch v { case .null: 0; case .int, .double: 1; case .text: 2; case .blob: 3 }
        }
        if rank(a) != rank(b) { return rank(a) < rank(b) ? -1 : 1 }
        switch (a, b) {
        case let (.int(x), .int(y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.int, .double), (.double, .int), (.double, .double):
            let x = Double(sqlValue: a)!, y = Double(sqlValue: b)!
            return x == y ? 0 : (x < y ? -1 : 1)
        case let (.text(x), .text(y)):
            return x == y ? 0 : (Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8)) ? -1 : 1)
        case let (.blob(x), .blob(y)):
            return x == y ? 0 : (Array(x).lexicographicallyPrecedes(Array(y)) ? -1 : 1)
        default: return 0
        }
    }

    static func order(_ a: [SQLValue], _ b: [SQLValue]) -> Int {
        for (x, y) in zip(a, b) { let o = order(x, y); if o != 0 { return o } }
        return 0
    }

    static func compareRows(_ t: StoreSchema.Table, columns: [String], _ l: Side, _ r: Side, _ out: inout StoreComparison) throws {
        let key = t.primaryKey.filter { k in columns.contains { $0.caseInsensitiveCompare(k) == .orderedSame } }
        guard !key.isEmpty else { return }
        let a = try PagedRows(l.connection, table: t.name, columns: columns, key: key)
        let b = try PagedRows(r.connection, table: t.name, columns: columns, key: key)
        var x = try a.next(), y = try b.next()
        func describe(_ row: SQLRow) -> String {
            "\(t.name) " + zip(key, a.keyIndexes).map { "\($0)=\(show(row.values[$1], column: $0))" }.joined(separator: " ")
        }
        while x != nil || y != nil {
            if out.moreDifferences > 10_000 { return } // enough said; the counts tell the rest
            let o: Int
            switch (x, y) {
            case let (x?, y?): o = order(a.key(x), b.key(y))
            case (_?, nil): o = -1
            default: o = 1
            }
            if o < 0 {
                out.differ("\(describe(x!)): only in \(l.name)")
                x = try a.next()
            } else if o > 0 {
                out.differ("\(describe(y!)): only in \(r.name)")
                y = try b.next()
            } else {
                for (k, column) in columns.enumerated() where !same(x!.values[k], y!.values[k]) {
                    out.differ("\(describe(x!)): \(column) is \(show(x!.values[k], column: column)) in \(l.name), "
                               + "\(show(y!.values[k], column: column)) in \(r.name)")
                }
                x = try a.next()
                y = try b.next()
            }
        }
    }

    /// Each gallery's sections and each section's items in the order the database sorts them.
    static func compareOrder(_ l: Side, _ r: Side, _ out: inout StoreComparison) throws {
        func has(_ s: StoreSchema, _ t: String, _ cols: [String]) -> Bool {
            guard let table = s.table(t) else { return false }
            return cols.allSatisfy { table.column($0) != nil }
        }
        for side in [l, r] {
            guard has(side.schema, "gallery", ["id", "name", "version"]), has(side.schema, "section", ["id", "galleryId", "rank", "deleted"]),
                  has(side.schema, "item", ["id", "sectionId", "rank", "trashed"]) else { return }
        }
        let lg = try l.connection.fetchAll("SELECT id, name, version FROM gallery ORDER BY id", [], cached: false)
        let rg = Dictionary(try r.connection.fetchAll("SELECT id, version FROM gallery ORDER BY id", [], cached: false)
            .map { ($0["id"] as Int64, $0["version"] as Int64) }, uniquingKeysWith: { a, _ in a })
        for g in lg {
            let id: Int64 = g["id"]
            out.galleries.append(GalleryLine(id: id, name: g["name"], leftVersion: g["version"], rightVersion: rg[id]))
        }
        let sectionSQL = "SELECT galleryId, id FROM section WHERE deleted = 0 ORDER BY galleryId, rank, id"
        let ls = try l.connection.fetchAll(sectionSQL, [], cached: false).map { ($0["galleryId"] as Int64, $0["id"] as Int64) }
        let rs = try r.connection.fetchAll(sectionSQL, [], cached: false).map { ($0["galleryId"] as Int64, $0["id"] as Int64) }
        var galleryOf: [Int64: Int64] = [:]
        for (g, s) in ls + rs { galleryOf[s] = g }
        let lSections = Dictionary(grouping: ls, by: { $0.0 }).mapValues { $0.map { $0.1 } }
        let rSections = Dictionary(grouping: rs, by: { $0.0 }).mapValues { $0.map { $0.1 } }
        for g in Set(lSections.keys).union(rSections.keys).sorted() {
            let a = lSections[g] ?? [], b = rSections[g] ?? []
            if a != b { out.differ("gallery \(g): sections in rank order \(list(a)) in \(l.name), \(list(b)) in \(r.name)") }
        }
        out.sectionsOrdered = ls.count
        // Items per section, a section at a time, as the store reads them (`sectionId = ? AND
        // trashed = 0 ORDER BY rank, id`, through item_by_section): one section's ids in memory.
        func ids(_ c: any SQLConnection, _ section: Int64) throws -> [Int64] {
            var out: [Int64] = []
            try c.forEach("SELECT id FROM item WHERE sectionId = ? AND trashed = 0 ORDER BY rank, id", [section]) { out.append($0.int64(0)) }
            return out
        }
        for section in Set(ls.map(\.1)).union(rs.map(\.1)).sorted() {
            let a = try ids(l.connection, section), b = try ids(r.connection, section)
            out.itemsOrdered += a.count
            guard a != b else { continue }
            let at = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
            let place = galleryOf[section].map { "gallery \($0) section \(section)" } ?? "section \(section)"
            out.differ("\(place): items in rank order differ at position \(at + 1): "
                       + "\(list(Array(a[at...].prefix(4)))) in \(l.name) (\(a.count) items), "
                       + "\(list(Array(b[at...].prefix(4)))) in \(r.name) (\(b.count) items)")
        }
    }

    static func list(_ ids: [Int64]) -> String { "[" + ids.map(String.init).joined(separator: ", ") + "]" }
}

/// The rows of one table in primary-key order, a page at a time (keyset: `WHERE (key) > (last)`),
/// so a million rows are never in memory at once and each page is one round trip.
final class PagedRows {
    let connection: any SQLConnection
    let keyIndexes: [Int]
    let first: String, next_: String
    var buffer: [SQLRow] = []
    var position = 0
    var last: [SQLValue]?
    var exhausted = false
    let page: Int

    init(_ c: any SQLConnection, table: String, columns: [String], key: [String], filter: String? = nil, page: Int = 2_000) throws {
        connection = c
        self.page = page
        keyIndexes = key.map { k in columns.firstIndex { $0.caseInsensitiveCompare(k) == .orderedSame }! }
        let select = "SELECT \(columns.joined(separator: ", ")) FROM \(table)"
        let orderBy = " ORDER BY \(key.joined(separator: ", ")) LIMIT \(page)"
        let after = key.count == 1 ? "\(key[0]) > ?" : "(\(key.joined(separator: ", "))) > (\(key.map { _ in "?" }.joined(separator: ", ")))"
        first = select + (filter.map { " WHERE \($0)" } ?? "") + orderBy
        next_ = select + " WHERE " + (filter.map { "\($0) AND " } ?? "") + after + orderBy
    }

    func key(_ row: SQLRow) -> [SQLValue] { keyIndexes.map { row.values[$0] } }

    func next() throws -> SQLRow? {
        if position == buffer.count {
            guard !exhausted else { return nil }
            buffer = try last.map { try connection.fetchAll(next_, $0.map { $0 as (any SQLArgument)? }, cached: true) }
                ?? connection.fetchAll(first, [], cached: true)
            position = 0
            if buffer.count < page { exhausted = true }
            guard let tail = buffer.last else { return nil }
            last = key(tail)
        }
        defer { position += 1 }
        return buffer[position]
    }
}

extension PGConnection {
    /// A connection to `url`, without migrating anything.
    static func open(_ url: String) throws -> PGConnection {
        let (config, display) = try PostgresDatabase.parse(url)
        let c = PGConnection(configuration: config, displayURL: display)
        try c.connectIfNeeded()
        return c
    }

    /// `body` in a REPEATABLE READ read-only transaction: one consistent state.
    func readOnlySnapshot<T>(_ body: () throws -> T) throws -> T {
        try run("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        do {
            let out = try body()
            try run("COMMIT")
            return out
        } catch {
            try? run("ROLLBACK")
            throw error
        }
    }
}
