import Foundation

/// What `backupPostgres` wrote besides the images.
public struct PostgresDumpInfo: Sendable {
    /// `DEST/gallery.pgdump` (pg_dump's custom format: `pg_restore` reads it).
    public var dump: URL
    public var dumpBytes: Int64
    /// "pg_dump (PostgreSQL) 15.18 …" and the server's version ("15.18 …").
    public var pgDumpVersion: String
    public var serverVersion: String
}

extension GalleryStore {
    /// `gallery backup DEST --database postgres://…`: the rows through `pg_dump` while the server
    /// runs, then the image folders those rows refer to. One snapshot for both: a REPEATABLE READ
    /// transaction exports its snapshot (`pg_export_snapshot`), pg_dump dumps exactly that
    /// (`--snapshot`), and the image hashes are read in the same transaction — so the images copied
    /// are those of the dumped rows, whatever is written meanwhile. Image files never change once
    /// written (content addresses), so copying them after the snapshot finds each one unless a
    /// purge removed it meanwhile (reported in `missing`).
    ///
    /// `url` is the store's database URL (the password, if it has one, reaches pg_dump through
    /// PGPASSWORD, not its command line). `pgDump`: the program (default: `pg_dump` on PATH).
    public func backupPostgres(url: String, to destination: URL, pgDump: String? = nil,
                               progress: ((Int, Int) -> Void)? = nil) throws -> (BackupSummary, PostgresDumpInfo) {
        guard database is PostgresDatabase else { throw StoreError.invalid("this store is on SQLite: use backup(to:)") }
        guard let program = pgDump ?? Self.findProgram("pg_dump") else {
            throw StoreError.invalid("""
                pg_dump is not installed: the PostgreSQL backup runs it. Install PostgreSQL's client with the \
                server's major version (Debian: apt-get install postgresql-client-15), or put it on PATH
                """)
        }
        try refuseDestinationInsideDataFolder(destination)
        let fm = FileManager.default
        let dump = destination.appendingPathComponent("gallery.pgdump")
        guard !fm.fileExists(atPath: dump.path), !fm.fileExists(atPath: destination.appendingPathComponent("gallery.sqlite").path) else {
            throw StoreError.invalid("\(destination.path) holds a backup already: back up into a new folder")
        }
        let dumpVersion = try Self.runProgram(program, ["--version"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let (libpqURL, password) = try Self.libpq(url)
        let pg = try PGConnection.open(url)
        defer { pg.close() }
        let serverVersion = try pg.value("SHOW server_version", as: String.self) ?? "?"
        let serverMajor = (try pg.value("SHOW server_version_num", as: String.self)).flatMap { Int($0) }.map { $0 / 10_000 } ?? 0
        let dumpMajor = Self.majorVersion(dumpVersion)
        // pg_dump reads servers up to its own major version (and refuses newer ones).
        guard dumpMajor >= serverMajor else {
            throw StoreError.invalid("""
                \(dumpVersion) cannot dump the PostgreSQL \(serverMajor) server at \(pg.displayURL): \
                install postgresql-client-\(serverMajor) (pg_dump's major version must be at least the server's)
                """)
        }
        try Self.makePrivateFolder(destination)
        var summary = BackupSummary()
        try pg.run("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        let hashes: [String]
        do {
            try Self.makePrivateFile(dump)
            guard let snapshot = try pg.value("SELECT pg_export_snapshot()", as: String.self) else {
                throw StoreError.database("pg_export_snapshot answered nothing")
            }
            summary.galleries = try pg.value("SELECT COUNT(*) FROM gallery", as: Int.self) ?? 0
            summary.items = try pg.value("SELECT COUNT(*) FROM item", as: Int.self) ?? 0
            hashes = try pg.values("SELECT DISTINCT fileHash FROM item WHERE fileHash IS NOT NULL ORDER BY fileHash", as: String.self)
            var environment = ProcessInfo.processInfo.environment
            if let password { environment["PGPASSWORD"] = password }
            // Custom format: compressed, and pg_restore can restore it into any database.
            _ = try Self.runProgram(program, ["--format=custom", "--no-owner", "--no-privileges", "--snapshot=\(snapshot)",
                                              "--file=\(dump.path)", "--dbname=\(libpqURL)"], environment: environment)
            try pg.run("COMMIT")
        } catch {
            try? pg.run("ROLLBACK")
            try? fm.removeItem(at: dump)
            throw error
        }
        try copyImages(hashes, into: destination, summary: &summary, progress: progress)
        let size = (try? fm.attributesOfItem(atPath: dump.path)[.size] as? Int).map { Int64($0) } ?? 0
        return (summary, PostgresDumpInfo(dump: dump, dumpBytes: size, pgDumpVersion: dumpVersion, serverVersion: serverVersion))
    }

    static func majorVersion(_ versionLine: String) -> Int {
        // "pg_dump (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"
        for word in versionLine.split(separator: " ") {
            if let major = word.split(separator: ".").first.flatMap({ Int($0) }) { return major }
        }
        return 0
    }

    /// The URL as libpq reads it (pg_dump's `--dbname`), without the password, and the password.
    static func libpq(_ url: String) throws -> (String, String?) {
        _ = try PostgresDatabase.parse(url) // the same checks and messages as the store's
        var c = URLComponents(string: url)!
        let password = c.password?.removingPercentEncoding
        c.password = nil
        c.scheme = "postgresql"
        if c.user == nil { c.user = ProcessInfo.processInfo.environment["USER"] ?? "postgres" }
        return (c.string!, password)
    }

    static func findProgram(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs a program; answers its standard output, or throws with its standard error.
    static func runProgram(_ program: String, _ arguments: [String], environment: [String: String]? = nil) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = arguments
        if let environment { p.environment = environment }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        do { try p.run() } catch { throw StoreError.invalid("\(program) does not run: \(error)") }
        // Read both pipes while it runs (a full pipe would stall it).
        let errData = ChildOutput()
        let errHandle = err.fileHandleForReading
        let reader = Thread { errData.set(errHandle.readDataToEndOfFile()) }
        reader.start()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let message = String(decoding: errData.wait(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard p.terminationReason == .exit && p.terminationStatus == 0 else {
            throw StoreError.database("\((program as NSString).lastPathComponent) failed (\(p.terminationStatus)): \(message)")
        }
        return String(decoding: output, as: UTF8.self)
    }
}

/// Standard error of a child process, read on a thread of its own.
private final class ChildOutput: @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    var data = Data()
    func set(_ d: Data) { data = d; done.signal() }
    func wait() -> Data { done.wait(); return data }
}
