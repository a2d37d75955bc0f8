import Foundation
import Logging
import GalleryServer
import GalleryStore
import ServiceLifecycle

struct BenchOptions {
    var items = 100_000
    var sections = 10
    var clients = 50
    var seconds = 20
    var moves = 2_000
    var images = 48
    var photos = 200
    /// Distinct image hashes in the snapshot benchmark's gallery (a library of copies has few, a camera roll one per item).
    var hashes = 300
    /// `move`: pairs of HTTP runs (WAL checkpoints on the writer, then in the background).
    var rounds = 1
    /// `move`: the catch-up checkpoint setting(s) to run the background-checkpoint half with, one
    /// run each, alternating (`--history-items 100000,12500`); empty: the shipped setting only.
    var historyItems: [Int] = []
    /// `limits`: how many items the big batch moves (spread over the gallery), one run each; empty: all of them.
    var batchItems: [Int] = []

    init(_ args: [String]) {
        func value(_ name: String) -> Int? {
            guard let i = args.firstIndex(of: name), i + 1 < args.count else { return nil }
            return Int(args[i + 1])
        }
        items = value("--items") ?? items
        sections = value("--sections") ?? sections
        clients = value("--clients") ?? clients
        seconds = value("--seconds") ?? seconds
        moves = value("--moves") ?? moves
        images = value("--images") ?? images
        photos = value("--photos") ?? photos
        hashes = value("--hashes") ?? hashes
        rounds = value("--rounds") ?? rounds
        if let i = args.firstIndex(of: "--history-items"), i + 1 < args.count {
            historyItems = args[i + 1].split(separator: ",").compactMap { Int($0) }
        }
        if let i = args.firstIndex(of: "--batch-items"), i + 1 < args.count {
            batchItems = args[i + 1].split(separator: ",").compactMap { Int($0) }
        }
    }
}

func nowSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.down)))]
}

func ms(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1000) }

func machineDescription() -> String {
    let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
        .split(separator: "\n").first { $0.hasPrefix("model name") }?
        .split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
    return "\(cpu), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory >> 30) GiB"
}

/// Runs a command, returns (seconds, stdout+stderr).
@discardableResult
func run(_ path: String, _ args: [String]) throws -> (Double, String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = args
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = pipe
    let t0 = nowSeconds()
    try p.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    let t = nowSeconds() - t0
    return (t, String(decoding: data, as: UTF8.self))
}

func temporaryFolder(_ name: String) -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-bench-\(name)-\(UUID().uuidString)")
    try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A real server on a loopback port over `folder` (no sample gallery, errors only in the log),
/// running until `stop` is called.
struct BenchServer {
    let server: GalleryServer
    let base: String
    let stop: () async -> Void

    static func start(folder: URL, portBase: Int, randomPort: Bool = true,
                      configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> BenchServer {
        let port = portBase + (randomPort ? Int.random(in: 0..<1000) : 0)
        var config = ServerConfiguration()
        config.port = port
        config.dataFolder = folder
        config.createSampleGallery = false
        configure(&config)
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let server = try await GalleryServer(configuration: config, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [server.application()], logger: logger))
        let task = Task { try await group.run() }
        try await Task.sleep(for: .seconds(1))
        return BenchServer(server: server, base: "http://127.0.0.1:\(port)") {
            await group.triggerGracefulShutdown()
            _ = try? await task.value
        }
    }
}

/// The benchmarks' gallery: `count` sections "S0"… of `per` ready items "s-i" each, all of one
/// image hash, widths varying so that layouts have work to do.
func benchSections(_ count: Int, per: Int) -> [(title: String, items: [NewItem])] {
    (0..<count).map { s in
        (title: "S\(s)", items: (0..<per).map { i in
            NewItem(title: "\(s)-\(i)", fileHash: String(repeating: "0", count: 64), width: 400 + i % 600, height: 300, state: .ready)
        })
    }
}
