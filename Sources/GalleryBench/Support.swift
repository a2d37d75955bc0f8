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
    /// `move`: rounds of HTTP runs (one transaction per batch, then group commit).
    var rounds = 1
    /// `move`: the batches a transaction may hold (`GalleryStore.batchesPerTransaction`), one run
    /// each, alternating; 1 is one transaction per batch (before session 30). `serve-moves`: the
    /// first, for the server it starts.
    var batchesPerTransaction: [Int] = [1, GalleryStore.batchesPerTransaction]
    /// `move`: the catch-up checkpoint setting(s) to run the background-checkpoint half with, one
    /// run each, alternating (`--history-items 100000,12500`); empty: the shipped setting only.
    var historyItems: [Int] = []
    /// `move`: where SQLite's write-ahead log starts over (`GalleryStore.walRestartFrames`), one
    /// run each, alternating (`--wal-restart-frames 10000,100000`: before and after session 31);
    /// empty: the shipped setting only. `serve-moves`: the first, for the server it starts.
    var walRestartFrames: [Int] = []
    /// `limits`: how many items the big batch moves (spread over the gallery), one run each; empty: all of them.
    var batchItems: [Int] = []

    static let subcommands = ["move", "backends", "access", "hash", "thumbs", "snapshot", "catchup", "limits", "import", "fanout", "history",
                              "restart-catchup", "all", "seed", "serve-moves", "open-moves"]
    /// Every option any subcommand reads (each reads its own; the others are accepted and unused):
    /// a whole number, whole numbers separated by commas, text, or a switch without a value.
    enum Kind { case number, numbers, text, flag }
    static let known: [String: Kind] = [
        "--items": .number, "--sections": .number, "--clients": .number, "--seconds": .number, "--moves": .number,
        "--images": .number, "--photos": .number, "--hashes": .number, "--rounds": .number, "--versions": .number,
        "--windows": .number, "--baseline-windows": .number, "--in-place-windows": .number, "--moving": .number,
        "--port": .number, "--like": .number, "--rate": .number, "--warmup": .number,
        "--history-items": .numbers, "--batches-per-transaction": .numbers, "--wal-restart-frames": .numbers, "--batch-items": .numbers, "--restore-sizes": .numbers,
        "--postgres": .text, "--database": .text, "--data": .text, "--name": .text, "--wrk-script": .text, "--serve-line": .text, "--trace": .text,
        "--restore": .flag, "--copy-baseline": .flag, "--http": .flag, "--flat-limit-baseline": .flag,
        "--diff-stages": .flag, "--scattered": .flag, "--whole-diff-baseline": .flag, "--seed-only": .flag,
        "--section-ops": .flag,
    ]
    /// The options given (the first of each, as before), their values as given.
    private var given: [String: String] = [:]

    /// Reads `args` (the program, the subcommand, then options). An option no subcommand takes, a
    /// missing value, a number that is not one, or a stray word stops the run in one line (exit 2);
    /// `--help` prints the subcommands and options.
    init(_ args: [String]) {
        func stop(_ message: String) -> Never {
            FileHandle.standardError.write(Data("gallery-bench: \(message)\n".utf8))
            exit(2)
        }
        var k = 2
        while k < args.count {
            let name = args[k]
            k += 1
            if name == "--help" || name == "-h" { Self.help() }
            guard let kind = Self.known[name] else {
                stop(name.hasPrefix("-") ? "no option \(name) (gallery-bench --help lists them)" : "\(name): a stray word (options are --option value; gallery-bench --help lists them)")
            }
            var value = ""
            if kind != .flag {
                guard k < args.count, !args[k].hasPrefix("--") else { stop("\(name) needs a value") }
                value = args[k]
                k += 1
                if kind == .number, Int(value) == nil { stop("\(name) takes a whole number, not \(value)") }
                if kind == .numbers, value.split(separator: ",", omittingEmptySubsequences: false).contains(where: { Int($0) == nil }) {
                    stop("\(name) takes whole numbers separated by commas, not \(value)")
                }
            }
            if given[name] == nil { given[name] = value }
        }
        items = number("--items") ?? items
        sections = number("--sections") ?? sections
        clients = number("--clients") ?? clients
        seconds = number("--seconds") ?? seconds
        moves = number("--moves") ?? moves
        images = number("--images") ?? images
        photos = number("--photos") ?? photos
        hashes = number("--hashes") ?? hashes
        rounds = number("--rounds") ?? rounds
        historyItems = numbers("--history-items") ?? historyItems
        batchesPerTransaction = numbers("--batches-per-transaction") ?? batchesPerTransaction
        if batchesPerTransaction.isEmpty || batchesPerTransaction.contains(where: { $0 < 1 }) {
            stop("--batches-per-transaction takes whole numbers from 1")
        }
        walRestartFrames = numbers("--wal-restart-frames") ?? walRestartFrames
        if walRestartFrames.contains(where: { $0 < 1_000 || $0 > Int(Int32.max / 2) }) {
            stop("--wal-restart-frames takes whole numbers from 1000 to \(Int32.max / 2)")
        }
        batchItems = numbers("--batch-items") ?? batchItems
    }

    static func help() -> Never {
        print("usage: gallery-bench [SUBCOMMAND] [OPTIONS] (what each subcommand does and reads: the head of Sources/GalleryBench/main.swift)")
        print("subcommands: " + subcommands.joined(separator: " ") + " (all: the default)")
        print("options: " + known.keys.sorted().map { name in
            switch known[name]! {
            case .flag: name
            case .number: "\(name) N"
            case .numbers: "\(name) N,N,…"
            case .text: "\(name) TEXT"
            }
        }.joined(separator: " "))
        exit(0)
    }

    /// Whether `name` was given (a switch, or an option with its value).
    func has(_ name: String) -> Bool { given[name] != nil }
    func text(_ name: String) -> String? { given[name] }
    func number(_ name: String) -> Int? { given[name].flatMap { Int($0) } }
    func numbers(_ name: String) -> [Int]? { given[name].map { $0.split(separator: ",").compactMap { Int($0) } } }
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
        LazyMetadataLogHandler.bootstrap() // as `gallery serve` logs
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
