import Foundation
import GRDB
import Logging
import GalleryCore
import GalleryStore
import GalleryServer
import Hummingbird
import ServiceLifecycle
import AsyncHTTPClient
import NIOCore

/// Moving one item in a 100k-item gallery: rows written and latency, in process and over HTTP
/// under 50 concurrent clients (wrk), beside integer positions that renumber the section.
func runMoveBenchmarks(_ o: BenchOptions) async throws {
    try requireTool("/usr/bin/wrk", package: "wrk") // before the seeding and the in-process part, not after them
    print("")
    print("### Move one item, \(o.items) items in \(o.sections) sections")
    let folder = temporaryFolder("move")
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = try GalleryStore(folder: folder)
    let per = o.items / o.sections
    let t0 = nowSeconds()
    let sections = benchSections(o.sections, per: per)
    let (gallery, _) = try await store.importGallery(name: "Bench", sections: sections)
    print("seeded \(gallery.itemCount) items in \(String(format: "%.1f", nowSeconds() - t0)) s")

    // In process: the store alone (one write transaction per move, diff for the answer).
    var rng = SystemRandomNumberGenerator()
    let snapshot = try await store.snapshot(gallery.id)
    let sectionIds = snapshot.sections.map(\.id)
    let itemIds = snapshot.sections.flatMap { $0.items.map(\.id) }
    var latencies: [Double] = []
    var rows: [Int] = []
    _ = try await store.apply(gallery: gallery.id, [.move(items: [itemIds[0]], to: .index(section: sectionIds[1], index: 5))])
    for _ in 0..<o.moves {
        let id = itemIds.randomElement(using: &rng)!
        let s = sectionIds.randomElement(using: &rng)!
        let index = Int.random(in: 0..<(per / 2), using: &rng)
        let t = nowSeconds()
        let r = try await store.apply(gallery: gallery.id, [.move(items: [id], to: .index(section: s, index: index))])
        latencies.append(nowSeconds() - t)
        rows.append(r.rowsWritten)
    }
    latencies.sort()
    let storeRow = ("GalleryStore.apply, rank keys (in process, sequential)", Double(rows.reduce(0, +)) / Double(rows.count),
                    percentile(latencies, 0.5), percentile(latencies, 0.99))

    // Baseline: integer positions, the move renumbers the items between (what a plain `position` column needs).
    try await store.pool.write { db in
        try db.execute(sql: """
            CREATE TABLE naive_item (id INTEGER PRIMARY KEY, sectionId INTEGER NOT NULL, position INTEGER NOT NULL);
            CREATE INDEX naive_by_position ON naive_item(sectionId, position);
            INSERT INTO naive_item (id, sectionId, position)
                SELECT id, sectionId, ROW_NUMBER() OVER (PARTITION BY sectionId ORDER BY rank, id) - 1 FROM item;
            """)
    }
    var naiveLatencies: [Double] = []
    var naiveRows: [Int] = []
    for _ in 0..<min(o.moves, 500) {
        let id = itemIds.randomElement(using: &rng)!
        let s = sectionIds.randomElement(using: &rng)!
        let index = Int.random(in: 0..<(per / 2), using: &rng)
        let t = nowSeconds()
        let written = try await store.pool.write { db -> Int in
            let before = db.totalChangesCount
            let row = try Row.fetchOne(db, sql: "SELECT sectionId, position FROM naive_item WHERE id = ?", arguments: [id])!
            let (from, pos): (Int64, Int) = (row[0], row[1])
            try db.execute(sql: "UPDATE naive_item SET position = position - 1 WHERE sectionId = ? AND position > ?", arguments: [from, pos])
            try db.execute(sql: "UPDATE naive_item SET position = position + 1 WHERE sectionId = ? AND position >= ?", arguments: [s, index])
            try db.execute(sql: "UPDATE naive_item SET sectionId = ?, position = ? WHERE id = ?", arguments: [s, index, id])
            return db.totalChangesCount - before
        }
        naiveLatencies.append(nowSeconds() - t)
        naiveRows.append(written)
    }
    naiveLatencies.sort()
    print("")
    print("| approach | rows written per move (mean) | p50 | p99 |")
    print("| --- | ---: | ---: | ---: |")
    print("| \(storeRow.0) | \(String(format: "%.1f", storeRow.1)) | \(ms(storeRow.2)) | \(ms(storeRow.3)) |")
    print("| baseline: integer positions renumbered (in process, sequential) | \(String(format: "%.0f", Double(naiveRows.reduce(0, +)) / Double(naiveRows.count))) | \(ms(percentile(naiveLatencies, 0.5))) | \(ms(percentile(naiveLatencies, 0.99))) |")

    // Over HTTP: the real server, wrk with 50 connections posting random single-item moves,
    // signed in (B8): an owner's session cookie with the page's Origin, and a bearer token.
    let password = "bench password"
    let owner = try await store.createAccount(name: "bench", passwordHash: try await Secrets.hashPassword(password), admin: true, onlyIfFirst: true)
    _ = try await store.createToken(account: owner.id, name: "bench", scope: .write, tokenHash: Secrets.digest("gat_bench_token"))
    // Same run, alternating (issue 15.3): one transaction per batch, then group commit (batches
    // queued behind the writer share one, `--batches-per-transaction 1,16`); `--rounds` rounds.
    // With --history-items, each runs once per catch-up checkpoint setting.
    // With --wal-restart-frames, each once per bound of the write-ahead log.
    let shipped = GalleryStore.historyItemsPerInterval, shippedGroup = GalleryStore.batchesPerTransaction
    let shippedFrames = GalleryStore.walRestartFrames
    var runs: [(group: Int, historyItems: Int, frames: Int32)] = []
    for group in o.batchesPerTransaction {
        for items in o.historyItems.isEmpty ? [shipped] : o.historyItems {
            runs += (o.walRestartFrames.isEmpty ? [shippedFrames] : o.walRestartFrames.map { Int32($0) }).map { (group, items, $0) }
        }
    }
    for round in 1...o.rounds {
        for (group, historyItems, frames) in runs {
            GalleryStore.setHistoryItemsPerInterval(historyItems)
            GalleryStore.batchesPerTransaction = group
            GalleryStore.walRestartFrames = frames
            let running = try await BenchServer.start(folder: folder, portBase: 18_000) { _ in }
            let server = running.server, base = running.base
            let login = try await benchLogins(base: base, password: password)
            let interval = GalleryStore.historyCheckpointInterval(itemCount: o.items)
            print("")
            print("round \(round), \(group == 1 ? "one transaction per batch (before session 30)" : "up to \(group) queued batches per transaction"), "
                  + "a catch-up checkpoint every \(interval) versions (--history-items \(historyItems)), "
                  + "the write-ahead log starting over past \(frames) frames:")
            for (label, headers) in [("session cookie + Origin", ["Cookie": login.cookie, "Origin": base]),
                                     ("bearer token", ["Authorization": "Bearer gat_bench_token"])] {
                try wrkMoves(label: label, headers: headers, o: o, folder: folder, base: base, gallery: gallery.id, itemIds: itemIds,
                             sectionIds: sectionIds, per: per, store: store)
            }
            let c = server.store.walCheckpointStats
            for (side, x) in [("on the writer", c.onWriter), ("in the background", c.background)] where x.count > 0 {
                print("WAL checkpoints \(side): \(x.count), \(String(format: "%.1f", x.seconds * 1000)) ms in all, longest \(String(format: "%.2f", x.longest * 1000)) ms, at most \(x.mostFrames) frames in one")
            }
            if c.restarts > 0 || c.longestLog > 0 { print("the write-ahead log started over \(c.restarts) times (longest \(c.longestLog) frames)") }
            if c.databaseSyncs.count > 0 {
                print("database file synced by the background near the bound: \(c.databaseSyncs.count) times, \(String(format: "%.1f", c.databaseSyncs.seconds * 1000)) ms in all, longest \(String(format: "%.2f", c.databaseSyncs.longest * 1000)) ms")
            }
            let h = server.store.historyCheckpointStats
            print("catch-up checkpoints written by batches: \(h.count), \(String(format: "%.1f", h.seconds * 1000)) ms in all, "
                  + "longest \(String(format: "%.2f", h.longest * 1000)) ms, \(h.bytes / 1_000_000) MB")
            let g = server.store.batchGroupStats
            if g.transactions > 0 {
                print("transactions of several batches: \(g.transactions), holding \(g.batches) batches "
                      + "(\(String(format: "%.1f", Double(g.batches) / Double(g.transactions))) each, at most \(g.largest))")
            }
            await running.stop()
        }
    }
    GalleryStore.setHistoryItemsPerInterval(shipped)
    GalleryStore.batchesPerTransaction = shippedGroup
    GalleryStore.walRestartFrames = shippedFrames
    // Every committed move wrote 1 item row + the version + the log row.
    let rowsCheck = try await store.pool.read { db in
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM operation WHERE galleryId = ?", arguments: [gallery.id])!
    }
    print("operation log rows: \(rowsCheck) (one per version inside the catch-up window; older ones are compacted away)")
}

func wrkMoves(label: String, headers: [String: String], o: BenchOptions, folder: URL, base: String, gallery: Int64, itemIds: [Int64],
              sectionIds: [Int64], per: Int, store: GalleryStore) throws {
    let script = folder.appendingPathComponent("move.lua")
    try movesScript(headers: headers, first: itemIds.min()!, count: itemIds.count, sections: sectionIds, per: per, gallery: gallery)
        .write(to: script, atomically: true, encoding: .utf8)
    let versionBefore = try store.pool.read { db in try Int64.fetchOne(db, sql: "SELECT version FROM gallery WHERE id = ?", arguments: [gallery])! }
    let (_, out) = try run("/usr/bin/wrk", ["-t2", "-c\(o.clients)", "-d\(o.seconds)s", "--latency", "-s", script.path, "\(base)/api/galleries/\(gallery)/batch"])
    let versionAfter = try store.pool.read { db in try Int64.fetchOne(db, sql: "SELECT version FROM gallery WHERE id = ?", arguments: [gallery])! }
    let summary = out.split(separator: "\n").first { $0.hasPrefix("p50=") } ?? "?"
    let rps = out.split(separator: "\n").first { $0.hasPrefix("Requests/sec") } ?? "?"
    print("")
    print("HTTP, \(label), wrk -t2 -c\(o.clients) -d\(o.seconds)s: \(summary) (ms); \(rps.trimmingCharacters(in: .whitespaces)); versions committed: \(versionAfter - versionBefore)")
}

/// wrk's Lua script posting random single moves (a random item to a random section, in its first
/// half), printing one line `p50=… p90=… p99=… p99.9=… max=… requests=… non200=…` (ms). With `ports`, wrk's
/// threads are spread over those servers on loopback (one address per thread), else wrk's URL.
func movesScript(headers: [String: String], ports: [Int] = [], first: Int64, count: Int, sections: [Int64], per: Int, gallery: Int64) -> String {
    let spread = ports.isEmpty ? "" : """
        local ports, n = {\(ports.map(String.init).joined(separator: ","))}, 0
        setup = function(thread)
          n = n + 1
          thread.addr = wrk.lookup("127.0.0.1", tostring(ports[(n - 1) % #ports + 1]))[1]
        end
        """
    return """
        math.randomseed(42)
        wrk.method = "POST"
        wrk.headers["Content-Type"] = "application/json"
        \(headers.sorted { $0.key < $1.key }.map { "wrk.headers[\"\($0.key)\"] = \"\($0.value)\"" }.joined(separator: "\n"))
        \(spread)
        local first, count, sections = \(first), \(count), {\(sections.map(String.init).joined(separator: ","))}
        request = function()
          local id = first + math.random(0, count - 1)
          local s = sections[math.random(1, #sections)]
          local body = string.format('{"operations":[{"op":"move","items":[%d],"to":{"section":%d,"index":%d}}]}', id, s, math.random(0, \(per / 2)))
          return wrk.format(nil, "/api/galleries/\(gallery)/batch", nil, body)
        end
        done = function(summary, latency, requests)
          io.write(string.format("p50=%.3f p90=%.3f p99=%.3f p99.9=%.3f max=%.3f requests=%d non200=%d\\n",
            latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
            latency:percentile(99.9) / 1000, latency.max / 1000,
            summary.requests, summary.errors.status))
        end
        """
}

/// Sign-in costs what bcrypt's cost factor says, and hashing runs off the event loop: cheap
/// requests answered during a burst of sign-ins take about what they take when idle.
func benchLogins(base: String, password: String) async throws -> (cookie: String, median: Double) {
    let client = HTTPClient.shared
    func login() async throws -> (Double, String) {
        var r = HTTPClientRequest(url: base + "/api/login")
        r.method = .POST
        r.headers.add(name: "Content-Type", value: "application/json")
        r.headers.add(name: "Origin", value: base)
        r.body = .bytes(ByteBuffer(string: #"{"name": "bench", "password": "\#(password)"}"#))
        let t = nowSeconds()
        let response = try await client.execute(r, timeout: .seconds(60))
        _ = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok, let cookie = response.headers.first(name: "Set-Cookie")?.split(separator: ";").first else {
            throw BenchFailure("sign-in failed: \(response.status)")
        }
        return (nowSeconds() - t, String(cookie))
    }
    func cheap() async throws -> Double {
        let t = nowSeconds()
        let response = try await client.execute(HTTPClientRequest(url: base + "/api/session"), timeout: .seconds(60))
        _ = try await response.body.collect(upTo: 1 << 20)
        return nowSeconds() - t
    }
    var hashes: [Double] = []
    for _ in 0..<5 {
        let t = nowSeconds()
        _ = try await Secrets.verifyPassword(password, hash: try await Secrets.hashPassword(password))
        hashes.append((nowSeconds() - t) / 2)
    }
    var logins: [Double] = []
    var cookie = ""
    for _ in 0..<5 { let (t, c) = try await login(); logins.append(t); cookie = c }
    var idle: [Double] = []
    for _ in 0..<200 { idle.append(try await cheap()) }
    // 16 sign-ins at once (8 per core) while one client keeps asking GET /api/session.
    let burst = Task { try await withThrowingTaskGroup(of: Void.self) { g in
        for _ in 0..<16 { g.addTask { _ = try await login() } }
        try await g.waitForAll()
    } }
    var busy: [Double] = []
    let t0 = nowSeconds()
    while busy.count < 200 || nowSeconds() - t0 < 1 { busy.append(try await cheap()) }
    try await burst.value
    hashes.sort(); logins.sort(); idle.sort(); busy.sort()
    print("")
    print("### Sign-in (bcrypt cost \(Secrets.bcryptCost))")
    print("")
    print("| | median | p99 / max |")
    print("| --- | ---: | ---: |")
    print("| bcrypt hash or verify, in process | \(ms(percentile(hashes, 0.5))) | \(ms(hashes.last!)) |")
    print("| POST /api/login (sequential) | \(ms(percentile(logins, 0.5))) | \(ms(logins.last!)) |")
    print("| GET /api/session, idle | \(ms(percentile(idle, 0.5))) | \(ms(percentile(idle, 0.99))) |")
    print("| GET /api/session during 16 concurrent sign-ins (\(busy.count) requests) | \(ms(percentile(busy, 0.5))) | \(ms(percentile(busy, 0.99))) |")
    return (cookie, percentile(logins, 0.5))
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// A benchmark that needs a tool says so in one line instead of a crash.
func requireTool(_ path: String, package: String) throws {
    guard FileManager.default.isExecutableFile(atPath: path) else {
        FileHandle.standardError.write(Data("gallery-bench: \(path) is missing: install it with `scripts/setup.sh --bench` (Debian package \(package))\n".utf8))
        exit(2)
    }
}
