import Foundation
import AsyncHTTPClient
import NIOCore
import GalleryCore
import GalleryServer
import GalleryStore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Issue 14 point 2: how long a move made on instance A takes to reach a live stream on
/// instance B — two real `gallery serve` processes (the release binary beside gallery-bench) on
/// one PostgreSQL database — beside the same move reaching a stream on A itself (the baseline,
/// same run). Single moves one after the other, paced (a latency figure, not a throughput one).
///
///   gallery-bench fanout --database postgres://user@host:port/db --moves 500
///
/// `--database` names a server and database the bench may create a database beside (as the
/// store tests do); GALLERY_TEST_POSTGRES is used when it is not given.
func runFanoutBenchmark(_ options: BenchOptions) async throws {
    let base = options.text("--database") ?? ProcessInfo.processInfo.environment["GALLERY_TEST_POSTGRES"]
    guard let base, base.hasPrefix("postgres") else {
        throw BenchFailure("needs a PostgreSQL server: --database postgres://… (or GALLERY_TEST_POSTGRES; scripts/pg-test-cluster.sh start makes one)")
    }
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("gallery")
    guard FileManager.default.isExecutableFile(atPath: binary.path) else {
        throw BenchFailure("no gallery binary beside gallery-bench (swift build -c release --product gallery)")
    }
    let database = try PostgresDatabase.createDatabase(beside: base, named: "bench_fanout_\(UInt32.random(in: 0 ... .max))")
    let folder = temporaryFolder("fanout")
    let token = "gat_bench_fanout"
    let (gallery, items, firstSection): (Int64, [Int64], Int64) = try await {
        let store = try GalleryStore(folder: folder, databaseURL: database)
        defer { try? store.close() }
        let owner = try await store.createAccount(name: "bench", passwordHash: try await Secrets.hashPassword("bench password"), admin: true, onlyIfFirst: true)
        _ = try await store.createToken(account: owner.id, name: "bench", scope: .write, tokenHash: Secrets.digest(token))
        let g = try await store.createGallery(name: "Fan-out", owner: owner.id)
        let section = try await store.snapshot(g.id).sections[0].id
        let made = (0..<200).map { NewItem(title: "\($0)", width: 400, height: 300, state: .ready) }
        _ = try await store.apply(gallery: g.id, [.insert(made, at: .end(section: section))], payload: "seed")
        return (g.id, try await store.snapshot(g.id).sections[0].items.map(\.id), section)
    }()

    var processes: [Process] = []
    var ports: [Int] = []
    defer { for p in processes where p.isRunning { p.terminate(); p.waitUntilExit() } }
    for k in 0..<2 {
        let port = 20_000 + Int.random(in: 0..<20_000)
        let p = Process()
        p.executableURL = binary
        p.arguments = ["serve", "--port", "\(port)", "--data", folder.path, "--no-sample", "--log-level", "error", "--database", database]
        p.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        processes.append(p)
        ports.append(port)
        _ = k
    }
    func request(_ port: Int, _ path: String) -> HTTPClientRequest {
        var r = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        r.headers.add(name: "Authorization", value: "Bearer \(token)")
        return r
    }
    for port in ports {
        var up = false
        for _ in 0..<400 where !up {
            if let r = try? await HTTPClient.shared.execute(request(port, "/api/galleries"), timeout: .seconds(2)), r.status == .ok { up = true } else {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        guard up else { print("fanout: gallery serve on \(port) did not start"); return }
    }
    let start = try await HTTPClient.shared.execute(request(ports[0], "/api/galleries/\(gallery)"), timeout: .seconds(10))
    let startVersion = try JSONDecoder().decode(GallerySnapshotJSON.self, from: Data(try await start.body.collect(upTo: 1 << 24).readableBytesView)).version

    // A live stream on each instance: when each version's event arrived.
    final class Arrivals: Sendable { let times = Mutex<[Int64: Double]>([:]) }
    let arrivals = [Arrivals(), Arrivals()]
    var readers: [Task<Void, Never>] = []
    for (k, port) in ports.enumerated() {
        let opened = Atomic<Bool>(false)
        let arrived = arrivals[k]
        readers.append(Task {
            do {
                var r = request(port, "/api/galleries/\(gallery)/events?since=\(startVersion)")
                r.headers.add(name: "Accept", value: "text/event-stream")
                let response = try await HTTPClient.shared.execute(r, timeout: .seconds(3_600))
                opened.store(true, ordering: .relaxed)
                var buffer = ""
                for try await chunk in response.body {
                    let now = nowSeconds()
                    buffer += String(buffer: chunk)
                    while let end = buffer.range(of: "\n\n") {
                        let block = buffer[..<end.lowerBound]
                        if block.hasPrefix("event: changes"), let idLine = block.split(separator: "\n").first(where: { $0.hasPrefix("id: ") }),
                           let v = Int64(idLine.dropFirst(4)) {
                            arrived.times.withLock { $0[v] = now }
                        }
                        buffer.removeSubrange(..<end.upperBound)
                    }
                }
            } catch {}
        })
        for _ in 0..<200 where !opened.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(10)) }
    }
    try await Task.sleep(for: .milliseconds(300))

    let moves = options.moves
    var sent: [Int64: Double] = [:], answered: [Int64: Double] = [:]
    var rng = SystemRandomNumberGenerator()
    print("fanout: \(moves) single moves posted to instance A one after the other (20 ms apart), a stream on A and one on B")
    for k in 0..<moves {
        let item = items[Int.random(in: 0..<items.count, using: &rng)]
        let body = #"{"operations": [{"op": "move", "items": [\#(item)], "to": {"section": \#(firstSection), "index": \#(Int.random(in: 0..<items.count, using: &rng))}}]}"#
        var r = request(ports[0], "/api/galleries/\(gallery)/batch")
        r.method = .POST
        r.headers.add(name: "Content-Type", value: "application/json")
        r.body = .bytes(ByteBuffer(string: body))
        let version = startVersion + Int64(k) + 1
        sent[version] = nowSeconds()
        let response = try await HTTPClient.shared.execute(r, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 24)
        answered[version] = nowSeconds()
        guard response.status == .ok else { print("fanout: move \(k) answered \(response.status)"); return }
        try await Task.sleep(for: .milliseconds(20))
    }
    let last = startVersion + Int64(moves)
    for _ in 0..<500 where arrivals[1].times.withLock({ $0[last] }) == nil || arrivals[0].times.withLock({ $0[last] }) == nil {
        try await Task.sleep(for: .milliseconds(10))
    }
    for t in readers { t.cancel() }

    func report(_ label: String, _ values: [Double], of total: Int) {
        let s = values.sorted()
        print("  \(label.padding(toLength: 46, withPad: " ", startingAt: 0)) n=\(s.count)/\(total)  p50 \(ms(percentile(s, 0.5)))  p90 \(ms(percentile(s, 0.9)))  p99 \(ms(percentile(s, 0.99)))  max \(ms(s.last ?? 0))")
    }
    let versions = Array(startVersion + 1 ... last)
    let onA = arrivals[0].times.withLock { a in versions.compactMap { v in a[v].map { $0 - sent[v]! } } }
    let onB = arrivals[1].times.withLock { a in versions.compactMap { v in a[v].map { $0 - sent[v]! } } }
    let afterAnswer = arrivals[1].times.withLock { a in versions.compactMap { v in a[v].map { $0 - answered[v]! } } }
    report("answer on A (sent → answer)", versions.map { answered[$0]! - sent[$0]! }, of: moves)
    report("baseline: stream on A (sent → event)", onA, of: moves)
    report("stream on B (sent → event)", onB, of: moves)
    report("stream on B after A's answer (answer → event)", afterAnswer, of: moves)
    let slow = onB.filter { $0 > 0.1 }.count
    print("  moves on B's stream later than 100 ms after they were sent: \(slow) of \(onB.count); missing on B: \(moves - onB.count)")
    try? FileManager.default.removeItem(at: folder)
}
