import Foundation
import GalleryCore
import GalleryStore
import GalleryServer
import AsyncHTTPClient
import NIOCore

/// Issue 14's figures: the same 100k gallery on SQLite (one `gallery serve`), on PostgreSQL with
/// one instance and on PostgreSQL with two instances over one database and one data folder —
/// single moves from 50 wrk clients (throughput, p50/p90/p99) and the columnar read of the whole
/// gallery, in one run. The servers are real `gallery serve` processes (the release binary beside
/// this one); with two instances wrk's two threads each keep their connections to one instance.
///
/// PostgreSQL: `--postgres URL` (a role that may CREATE DATABASE), else `GALLERY_BENCH_POSTGRES`,
/// else a private cluster started by `scripts/pg-test-cluster.sh` with PostgreSQL's durable
/// defaults (`PG_DURABLE=1`: fsync and synchronous_commit on, as a service would run it).
func runBackendBenchmarks(_ o: BenchOptions) async throws {
    try requireTool("/usr/bin/wrk", package: "wrk")
    let gallery = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("gallery")
    guard FileManager.default.isExecutableFile(atPath: gallery.path) else {
        throw BenchFailure("no gallery binary beside gallery-bench (\(gallery.path)): swift build -c release --product gallery")
    }
    var cluster: String?
    var server = o.text("--postgres") ?? ProcessInfo.processInfo.environment["GALLERY_BENCH_POSTGRES"]
    if server == nil {
        // system(3), not Process: the cluster's server outlives the script, and Foundation's
        // waitUntilExit was seen never to return after it.
        guard FileManager.default.isExecutableFile(atPath: "scripts/pg-test-cluster.sh") else {
            throw BenchFailure("no PostgreSQL to run against: give --postgres URL, or run from the repository's root (scripts/pg-test-cluster.sh starts a cluster)")
        }
        let file = temporaryFolder("pg").appendingPathComponent("cluster.sh")
        guard system("PG_DURABLE=1 scripts/pg-test-cluster.sh start > '\(file.path)'") == 0,
              let out = try? String(contentsOf: file, encoding: .utf8) else {
            throw BenchFailure("could not start a PostgreSQL cluster (scripts/pg-test-cluster.sh, from the repository's root)")
        }
        for line in out.split(separator: "\n") {
            if line.hasPrefix("export GALLERY_PG_DIR=") { cluster = String(line.dropFirst("export GALLERY_PG_DIR=".count)) }
            if line.hasPrefix("export GALLERY_TEST_POSTGRES=") { server = String(line.dropFirst("export GALLERY_TEST_POSTGRES=".count)) }
        }
        guard server != nil else { throw BenchFailure("could not start a PostgreSQL cluster: \(out)") }
        print("a private PostgreSQL cluster with durable settings (fsync, synchronous_commit on): \(server!)")
    }
    defer { if let cluster { _ = system("scripts/pg-test-cluster.sh stop '\(cluster)'") } }

    print("")
    print("### Backends: SQLite, PostgreSQL × 1, PostgreSQL × 2 (\(o.items) items in \(o.sections) sections, \(o.clients) clients)")
    let sqliteFolder = temporaryFolder("backend-sqlite"), pgFolder = temporaryFolder("backend-pg")
    defer { for f in [sqliteFolder, pgFolder] { try? FileManager.default.removeItem(at: f) } }
    let pgURL = try PostgresDatabase.createDatabase(beside: server!, named: "bench_\(UInt32.random(in: 0...UInt32.max))")

    struct Seeded { var gallery: Int64; var sections: [Int64]; var first: Int64 }
    func seed(_ store: GalleryStore) async throws -> Seeded {
        let per = o.items / o.sections
        let sections = benchSections(o.sections, per: per)
        let t0 = nowSeconds()
        let (g, items) = try await store.importGallery(name: "Bench", sections: sections)
        let owner = try await store.createAccount(name: "bench", passwordHash: try await Secrets.hashPassword("bench password"),
                                                  admin: true, onlyIfFirst: true)
        _ = try await store.createToken(account: owner.id, name: "bench", scope: .write, tokenHash: Secrets.digest("gat_bench_token"))
        let columns = try await store.columns(g.id)
        print("seeded \(g.itemCount) items on \(store.database.kind) in \(String(format: "%.1f", nowSeconds() - t0)) s")
        return Seeded(gallery: g.id, sections: columns.sections.map(\.id), first: items.map(\.id).min()!)
    }

    // The columnar read of the whole gallery (the page's first load when nothing is cached), in process.
    var seeded: [String: Seeded] = [:]
    var readRows: [String] = []
    for (name, folder, url) in [("SQLite", sqliteFolder, nil as String?), ("PostgreSQL", pgFolder, pgURL)] {
        let store = try GalleryStore(folder: folder, databaseURL: url)
        let s = try await seed(store)
        seeded[name] = s
        var times: [Double] = []
        for k in 0..<6 {
            let t = nowSeconds()
            let c = try await store.columns(s.gallery)
            if k > 0 { times.append(nowSeconds() - t) }
            precondition(c.ids.count == o.items / o.sections * o.sections)
        }
        times.sort()
        readRows.append("| \(name) | \(ms(percentile(times, 0.5))) | \(ms(times.first!)) – \(ms(times.last!)) |")
        try store.close()
    }
    print("")
    print("Columnar read of the whole gallery in process (`GalleryStore.columns`, 5 after a warm-up):")
    print("")
    print("| backend | median | range |")
    print("| --- | ---: | ---: |")
    for r in readRows { print(r) }

    func freePort() -> Int { 19_000 + Int.random(in: 0..<5_000) }
    func spawn(_ folder: URL, _ database: String?, _ port: Int) throws -> Process {
        let p = Process()
        p.executableURL = gallery
        p.arguments = ["serve", "--port", "\(port)", "--data", folder.path, "--no-sample", "--log-level", "error"]
            + (database.map { ["--database", $0] } ?? [])
        let log = FileHandle(forWritingAtPath: "/dev/null")
        p.standardOutput = log
        p.standardError = log
        try p.run()
        return p
    }
    func get(_ port: Int, _ path: String) async throws -> (UInt, ByteBuffer) {
        var r = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        r.headers.add(name: "Authorization", value: "Bearer gat_bench_token")
        let response = try await HTTPClient.shared.execute(r, timeout: .seconds(60))
        return (response.status.code, try await response.body.collect(upTo: 256 << 20))
    }
    func waitReady(_ port: Int) async throws {
        for _ in 0..<600 {
            if let (status, _) = try? await get(port, "/readyz"), status == 200 { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw BenchFailure("gallery serve on \(port) did not become ready")
    }
    func version(_ port: Int, _ gallery: Int64) async throws -> Int64 {
        let (_, body) = try await get(port, "/api/galleries")
        let list = try JSONDecoder().decode([GalleryInfo].self, from: Data(body.readableBytesView))
        return list.first { $0.id == gallery }?.version ?? -1
    }
    func order(_ port: Int, _ gallery: Int64) async throws -> Data {
        let (status, body) = try await get(port, "/api/galleries/\(gallery)/columns?format=binary")
        guard status == 200 else { throw BenchFailure("columns: \(status)") }
        return Data(body.readableBytesView)
    }

    print("")
    print("Moves over HTTP, bearer token, wrk -t2 -c\(o.clients) -d\(o.seconds)s (two instances: each wrk thread keeps its connections to one):")
    print("")
    print("| round | backend | instances | moves/s | p50 / p90 / p99 / max | non-200 | versions committed | first columns read after start |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for round in 1...o.rounds {
        for (name, instances) in [("SQLite", 1), ("PostgreSQL", 1), ("PostgreSQL", 2)] {
            let s = seeded[name]!
            let folder = name == "SQLite" ? sqliteFolder : pgFolder
            let ports = (0..<instances).map { _ in freePort() }
            let processes = try ports.map { try spawn(folder, name == "SQLite" ? nil : pgURL, $0) }
            defer { for p in processes { p.terminate(); p.waitUntilExit() } }
            for p in ports { try await waitReady(p) }
            let t = nowSeconds()
            _ = try await order(ports[0], s.gallery)
            let firstRead = nowSeconds() - t
            let before = try await version(ports[0], s.gallery)
            let out = try wrkMoves(ports: ports, gallery: s.gallery, first: s.first, sections: s.sections, o: o)
            let after = try await version(ports[0], s.gallery)
            if instances > 1 {
                // Every instance must end at the same version and the same order (LISTEN/NOTIFY fan-out).
                var orders: [Data] = []
                for p in ports {
                    for _ in 0..<100 where try await version(p, s.gallery) != after { try await Task.sleep(for: .milliseconds(20)) }
                    orders.append(try await order(p, s.gallery))
                }
                if Set(orders).count != 1 { print("**the instances disagree on the final order**") }
            }
            print("| \(round) | \(name) | \(instances) | \(out.rps) | \(out.latency) | \(out.non200) | \(after - before) | \(ms(firstRead)) |")
        }
    }
}

/// wrk posting random single moves; with several ports wrk's threads are spread over them.
func wrkMoves(ports: [Int], gallery: Int64, first: Int64, sections: [Int64], o: BenchOptions) throws
    -> (rps: String, latency: String, non200: String) {
    let folder = temporaryFolder("wrk")
    defer { try? FileManager.default.removeItem(at: folder) }
    let script = folder.appendingPathComponent("moves.lua")
    try movesScript(headers: ["Authorization": "Bearer gat_bench_token"], ports: ports, first: first,
                    count: o.items / o.sections * o.sections, sections: sections, per: o.items / o.sections, gallery: gallery)
        .write(to: script, atomically: true, encoding: .utf8)
    let (_, out) = try run("/usr/bin/wrk", ["-t\(max(2, ports.count))", "-c\(o.clients)", "-d\(o.seconds)s", "--latency", "-s", script.path,
                                            "http://127.0.0.1:\(ports[0])/api/galleries/\(gallery)/batch"])
    guard let line = out.split(separator: "\n").first(where: { $0.hasPrefix("p50=") }) else { throw BenchFailure("wrk: \(out)") }
    var fields: [String: String] = [:]
    for f in line.split(separator: " ") { let kv = f.split(separator: "="); fields[String(kv[0])] = String(kv[1]) }
    let rps = out.split(separator: "\n").first { $0.hasPrefix("Requests/sec") }?.split(separator: ":").last?
        .trimmingCharacters(in: .whitespaces) ?? "?"
    let rate = Double(rps).map { String(format: "%.0f", $0) } ?? rps
    return (rate, "\(fields["p50"]!) / \(fields["p90"]!) / \(fields["p99"]!) / \(fields["max"]!) ms", fields["non200"]!)
}
