import Testing
import Foundation
import GRDB
@testable import GalleryStore

/// The SQLite VFS that writes a transaction's write-ahead log frames in one write
/// (`CSQLiteWALBuffer`, issue 15.3): fewer writes, and the file holds after each commit exactly
/// what SQLite's own writes would have left there — what a process killed right after the commit
/// leaves behind, and what SQLite recovers from (checksums and commit frames).
@Suite struct WALBufferTests {
    struct Rollback: Error {}

    /// A WAL database in a new folder, opened as the store opens its own (the VFS registered);
    /// `cachePages`: the writer's page cache, small to make SQLite spill frames before a commit.
    func open(_ folder: URL, cachePages: Int? = nil, autocheckpoint: Int? = nil) throws -> DatabasePool {
        SQLiteDatabase.registerWALBuffer()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var config = Configuration()
        config.prepareDatabase { db in
            guard !db.configuration.readonly else { return }
            if let cachePages { try db.execute(sql: "PRAGMA cache_size = \(cachePages)") }
            if let autocheckpoint { try db.execute(sql: "PRAGMA wal_autocheckpoint = \(autocheckpoint)") }
        }
        return try DatabasePool(path: folder.appendingPathComponent("db.sqlite").path, configuration: config)
    }

    /// The database as a process killed now leaves it: its file and its log copied elsewhere
    /// (without the log's index), opened there — SQLite rebuilds the index from the log, keeping
    /// the frames up to the last commit frame whose checksums hold.
    func recovered(_ folder: URL) throws -> DatabaseQueue {
        let copy = storeTestRoot.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(at: folder.appendingPathComponent("db.sqlite" + suffix),
                                             to: copy.appendingPathComponent("db.sqlite" + suffix))
        }
        return try DatabaseQueue(path: copy.appendingPathComponent("db.sqlite").path)
    }

    func stats(_ pool: DatabasePool) throws -> (writesAsked: Int, writesMade: Int, commits: Int) {
        let stats = try pool.writeWithoutTransaction { db in SQLiteDatabase.walBufferStats(db) }
        return try #require(stats, "the log was not opened through the VFS")
    }

    @Test func aCommitsFramesReachTheFileInOneWriteAndSurviveAKill() throws {
        let folder = storeTestRoot.appendingPathComponent(UUID().uuidString)
        let pool = try open(folder)
        try pool.write { db in try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB)") }
        let before = try stats(pool)
        try pool.write { db in
            for _ in 0..<40 { try db.execute(sql: "INSERT INTO t (v) VALUES (randomblob(2000))") }
        }
        let after = try stats(pool)
        #expect(after.commits - before.commits == 1)
        // 20 pages of rows and the table's interior page: SQLite writes each frame's header and
        // its page apart, ~42 writes; through the VFS they reach the file in one (~87 KB).
        #expect(after.writesAsked - before.writesAsked >= 40, "\(before) → \(after)")
        #expect(after.writesMade - before.writesMade == 1, "\(before) → \(after)")
        // The commit is in the file when it returns: a copy taken now recovers every row.
        let copy = try recovered(folder)
        #expect(try copy.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 40)
        // A reader of the live database sees it too.
        #expect(try pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 40)
    }

    /// Transactions bigger than the writer's page cache: SQLite writes frames before the commit
    /// (spills), rolls a transaction back (its frames stay in the file, past the last commit, and
    /// the next transaction writes over them), writes a page again that it already wrote in the
    /// same transaction (in place) and rewrites the checksums of those frames at the commit.
    @Test func spillsRollbacksAndPagesWrittenTwiceLeaveTheLogAsSQLiteWroteIt() throws {
        let folder = storeTestRoot.appendingPathComponent(UUID().uuidString)
        let pool = try open(folder, cachePages: 8)
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, v BLOB)")
            for _ in 0..<400 { try db.execute(sql: "INSERT INTO t (n, v) VALUES (0, randomblob(1000))") }
        }
        do {
            try pool.write { db in
                try db.execute(sql: "UPDATE t SET n = n + 100, v = randomblob(1000)")
                throw Rollback()
            }
        } catch is Rollback {}
        #expect(try recovered(folder).read { db in try Int.fetchOne(db, sql: "SELECT SUM(n) FROM t") } == 0)
        let before = try stats(pool)
        try pool.write { db in
            for _ in 0..<3 { try db.execute(sql: "UPDATE t SET n = n + 1, v = randomblob(1000)") }
        }
        let after = try stats(pool)
        // Spilled frames, the rewrites and the commit: more than one write reached the file.
        #expect(after.writesMade - before.writesMade > 1, "\(before) → \(after)")
        for db in [try recovered(folder), nil] as [DatabaseQueue?] {
            let (sum, count, check) = try (db.map { try $0.read(Self.contents) } ?? pool.read(Self.contents))
            #expect(sum == 1_200)
            #expect(count == 400)
            #expect(check == "ok")
        }
    }

    static func contents(_ db: Database) throws -> (Int?, Int?, String?) {
        (try Int.fetchOne(db, sql: "SELECT SUM(n) FROM t"), try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t"),
         try String.fetchOne(db, sql: "PRAGMA integrity_check"))
    }

    /// The log starting over (a checkpoint every 20 pages): frames are written from its start
    /// again, over older ones; every commit is still recovered.
    @Test func theLogStartingOverKeepsEveryCommit() throws {
        let folder = storeTestRoot.appendingPathComponent(UUID().uuidString)
        let pool = try open(folder, autocheckpoint: 20)
        try pool.write { db in try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, v BLOB)") }
        for i in 0..<300 {
            try pool.write { db in try db.execute(sql: "INSERT INTO t (n, v) VALUES (?, randomblob(1500))", arguments: [i]) }
        }
        let walSize = try #require(try FileManager.default.attributesOfItem(
            atPath: folder.appendingPathComponent("db.sqlite-wal").path)[.size] as? Int)
        #expect(walSize < 100 * 4_200, "the log did not start over: \(walSize) bytes") // 300 rows: ~150 frames
        let copy = try recovered(folder)
        #expect(try copy.read { db in try Int.fetchOne(db, sql: "SELECT SUM(n) FROM t") } == 299 * 300 / 2)
        #expect(try copy.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") } == "ok")
    }
}
