import ArgumentParser
import Foundation
import GalleryServer
import GalleryStore
#if canImport(Glibc)
import Glibc
#endif

/// A refusal or failure said in one line (no usage text).
struct CommandFailure: Error, CustomStringConvertible { var description: String }

/// `gallery migrate --data DIR --to postgres://…`: the SQLite file's rows into PostgreSQL.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy a data folder's SQLite rows into an empty PostgreSQL database (ids kept; one transaction; the images stay in the data folder).",
        discussion: """
            Every table of the SQLite file is copied (the tables and columns come from the two schemas; a table or column PostgreSQL \
            lacks is refused by name), ids kept, identity sequences set past them, in one transaction: stopped half way, the target \
            is left as it was. The copy is compared with the source before the commit (as `gallery check` does) unless \
            --no-verify. Stop `gallery serve` on the data folder first. Afterwards serve with \
            `gallery serve --data DIR --database URL`: the images stay in DIR/images, shared by every instance.
            """)
    @Option(name: .long, help: "Data folder whose gallery.sqlite is copied (its images stay where they are).")
    var data: String = "gallery-data"
    @Option(name: .long, help: "postgres://user@host:port/database — an empty database (createdb NAME).")
    var to: String
    @Flag(name: .long, help: "Delete whatever the target holds first (in the same transaction as the copy).")
    var replace = false
    @Flag(name: .long, help: "Commit without comparing the copy with the source first.")
    var noVerify = false
    @Option(name: .long, help: "Rows per INSERT.") var batchRows: Int = 1_000

    func run() async throws {
        let folder = URL(fileURLWithPath: data)
        if let running = RunningServer.find(in: folder) {
            throw CommandFailure(description: """
                a gallery server (process \(running.pid), \(running.url)) is running on \(data): stop it first — \
                what it writes after the copy's snapshot would not reach PostgreSQL
                """)
        }
        guard (1...10_000).contains(batchRows) else { throw ValidationError("--batch-rows must be 1...10000") }
        let progress = MigrateProgress()
        let summary: PostgresCopy.Summary
        let (to, replace, verify, batchRows) = (to, replace, !noVerify, batchRows)
        do {
            summary = try await Task.detached {
                try PostgresCopy.run(dataFolder: folder, to: to, replace: replace, verify: verify, batchRows: batchRows,
                                     progress: progress.event)
            }.value
        } catch let e as StoreError {
            progress.end()
            throw CommandFailure(description: e.message + "\nnothing was committed: the PostgreSQL database holds what it held before")
        }
        progress.end()
        let display = (try? PostgresURL.display(to)) ?? to
        print("copied \(summary.tables.count) tables, \(summary.rows) rows from \(folder.appendingPathComponent("gallery.sqlite").path) "
              + "into \(display) in \(String(format: "%.1f", summary.copySeconds)) s"
              + (summary.emptiedTarget ? " (what the target held before was deleted: --replace)" : ""))
        if let c = summary.comparison {
            print("verified before the commit in \(String(format: "%.1f", summary.verifySeconds)) s: every row of every table, "
                  + "\(c.galleries.count) galleries' versions, the order of \(c.sectionsOrdered) sections and \(c.itemsOrdered) items")
        }
        print("""
            the images stay in \(folder.appendingPathComponent("images").path): every instance on this database uses that folder \
            (share it, e.g. over NFS). Serve with:
              gallery serve --data \(data) --database \(to.replacingPasswordInURL)
            the SQLite file was not changed; keep it until you trust the new database (`gallery check --data \(data) --against URL` compares them)
            """)
    }
}

/// `gallery check --data DIR --against postgres://…`: compares two databases of a store.
struct Check: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare a data folder's SQLite rows (or --database) with a PostgreSQL database: counts, every row, versions, order per section, hashes.",
        discussion: """
            Prints the row counts per table, each gallery's version on both sides, and what differs (a row only on one side, \
            a column's value, sections or items in a different order); secrets (password, session, token hashes; TOTP) are \
            compared and never printed. Exit status 0 only when the two are the same. Read only, each side in one snapshot.
            """)
    @OptionGroup var data: DataOptions
    @Option(name: .long, help: "postgres://… to compare with.") var against: String
    @Option(name: .long, help: "Print at most this many differences.") var limit: Int = 100

    func run() async throws {
        let left = data.database, against = against, limit = limit
        let folder = URL(fileURLWithPath: data.data)
        let report: StoreComparison
        do {
            report = try await Task.detached {
                if let left { return try StoreComparison.compare(postgres: left, against: against, limit: limit) }
                return try StoreComparison.compare(dataFolder: folder, against: against, limit: limit)
            }.value
        } catch let e as StoreError {
            throw CommandFailure(description: e.message)
        }
        let leftName = left.map { (try? PostgresURL.display($0)) ?? $0 } ?? folder.appendingPathComponent("gallery.sqlite").path
        print("comparing \(report.left) (\(leftName)) with \(report.right == "PostgreSQL" ? "PostgreSQL (\((try? PostgresURL.display(against)) ?? against))" : report.right)")
        let width = max(12, report.counts.map(\.table.count).max() ?? 0)
        func pad(_ s: String, _ n: Int, left: Bool = false) -> String {
            let fill = String(repeating: " ", count: max(0, n - s.count))
            return left ? fill + s : s + fill
        }
        let heads = (report.left.count <= 11 ? report.left : "left", report.right.count <= 11 ? report.right : "right")
        print(pad("table", width) + pad(heads.0, 12, left: true) + pad(heads.1, 12, left: true))
        for c in report.counts {
            print(pad(c.table, width) + pad(c.left.map(String.init) ?? "-", 12, left: true) + pad(c.right.map(String.init) ?? "-", 12, left: true)
                  + (c.left == c.right ? "" : "   differs"))
        }
        for g in report.galleries.prefix(50) {
            let versions = g.leftVersion == g.rightVersion ? "version \(g.leftVersion ?? 0) on both"
                : "version \(g.leftVersion.map(String.init) ?? "-") left, \(g.rightVersion.map(String.init) ?? "-") right"
            print("gallery \(g.id) \"\(g.name)\": \(versions)")
        }
        if report.galleries.count > 50 { print("… and \(report.galleries.count - 50) more galleries") }
        print("order compared: \(report.sectionsOrdered) sections, \(report.itemsOrdered) items")
        if report.isEqual {
            print("the same: \(report.rows) rows in \(report.counts.count) tables")
            return
        }
        print("DIFFERENT:")
        for line in report.differences { print("  " + line) }
        if report.moreDifferences > 0 { print("  … and \(report.moreDifferences) more differences") }
        throw ExitCode(1)
    }
}

enum PostgresURL {
    /// The URL without its password.
    static func display(_ url: String) throws -> String { url.replacingPasswordInURL }
}

extension String {
    /// A URL with its password (if any) shown as `***`.
    var replacingPasswordInURL: String {
        guard var c = URLComponents(string: self), c.password != nil else { return self }
        c.password = "***"
        return c.string ?? self
    }
}

/// What `gallery migrate` shows while it copies: on a terminal one line redrawn in place per
/// table (a bar, rows of the table, all rows, rate, time left), ended with the table's count;
/// otherwise (a pipe, a log) a plain line when a table starts and ends and every 10 % between.
final class MigrateProgress: @unchecked Sendable {
    let terminal = isatty(STDOUT_FILENO) == 1
    let start = Date()
    let lock = NSLock()
    var total = 0, before = 0, drawn = Date.distantPast, lastTenth = -1, open = false

    func event(_ e: PostgresCopy.Event) {
        lock.lock(); defer { lock.unlock() }
        switch e {
        case let .plan(tables):
            total = tables.reduce(0) { $0 + $1.rows }
            print("copying \(total) rows of \(tables.count) tables: " + tables.map { "\($0.table) \($0.rows)" }.joined(separator: ", "))
        case let .copied(table, done, of):
            if done == 0 { lastTenth = -1 }
            if terminal {
                let now = Date()
                if done == of || now.timeIntervalSince(drawn) > 0.1 {
                    drawn = now
                    draw(table, done, of)
                }
                if done == of {
                    print("")
                    open = false
                    before += of
                }
            } else {
                let tenth = of == 0 ? 10 : done * 10 / of
                if tenth != lastTenth || done == of {
                    lastTenth = tenth
                    print("\(table): \(done)/\(of) rows" + (done == of ? " copied" : ""))
                }
                if done == of { before += of }
            }
        case .verifying:
            if open { print(""); open = false }
            print("comparing the copy with the source before the commit…")
        }
        fflush(nil)
    }

    private func draw(_ table: String, _ done: Int, _ of: Int) {
        let fraction = of == 0 ? 1 : Double(done) / Double(of)
        let width = 24, filled = min(width, Int(fraction * Double(width)))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let all = before + done
        let elapsed = max(Date().timeIntervalSince(start), 0.001)
        var line = "\r\(table) [\(bar)] \(done)/\(of) rows  all \(all)/\(total)  \(Int(Double(all) / elapsed)) rows/s"
        if all > 0 && all < total {
            let left = Int(elapsed * Double(total - all) / Double(all))
            line += String(format: "  ETA %d:%02d", left / 60, left % 60)
        }
        FileHandle.standardOutput.write(Data((line + "\u{1B}[K").utf8))
        open = true
    }

    func end() {
        lock.lock(); defer { lock.unlock() }
        if open { print(""); open = false }
    }
}
