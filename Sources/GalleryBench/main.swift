// gallery-bench: release-mode server benchmarks (BENCHMARKS.md, "## Server").
//   swift build -c release --product gallery-bench && .build/release/gallery-bench [move|backends|access|hash|thumbs|snapshot|catchup|limits|import|all]
//   move [--items N --sections S --clients C --seconds T --moves M --rounds R --batches-per-transaction 1,16
//     --wal-restart-frames 10000,100000]: R rounds of HTTP runs, one per setting: one transaction per batch (1, before
//     session 30), then group commit (the shipped 16); each once per write-ahead log bound given (100,000 shipped, session 31)
//   backends [--items N --sections S --clients C --seconds T --rounds R --postgres URL]: SQLite, PostgreSQL × 1 and
//     PostgreSQL × 2 instances (real `gallery serve` processes beside this binary): moves under wrk and the columnar read
//   fanout --database postgres://… --moves M: a move on one `gallery serve` reaching a live stream on a second one
//     on the same PostgreSQL database, beside a stream on the first (not in `all`: it needs PostgreSQL)
//   serve-moves --data DIR [--items N --sections S --port P --batches-per-transaction N --wal-restart-frames N --seed-only | --wrk-script FILE]: the move benchmark's gallery served for
//     profiling (scripts/profile-moves.sh: the server's CPU time per move over HTTP, PERF=1 a perf profile)
//   limits --restore [--restore-sizes 100000,1000000 --sections 100 --rounds R --postgres URL]: 1,000 items spread over
//     every section trashed and restored, the index seeks beside the code before session 15, a probe move's wait meanwhile
//   limits --section-ops [--items N --sections S --rounds R --postgres URL]: batches that create, move or delete a section and restores
//     (a section's undo), in place beside the way before session 18 (the snapshot copied, the whole gallery diffed)
//   history [--items N --sections S --versions V]: the operation log's rows and bytes on disk as V single moves go by
//   restart-catchup [--items N --sections S --versions V --windows W --baseline-windows B]: W windows catching up from
//     an old version right after a restart, the history checked in place once for all beside each its own O(n) replay
//     (--baseline-windows 0: without the baseline row)
//   open-moves --serve-line FILE --rate R [--clients C --seconds T --warmup W --trace OUT]: single moves at a fixed rate (open loop) to a
//     running serve-moves server (FILE: the line it printed), latency counted from when each move was due (scripts/ab-moves.sh RATE=R)
//   .build/release/gallery-bench seed --data DIR --like G --items N --sections S   (a big gallery for bench-page.py)
// Each figure is printed beside its baseline from the same run. `gallery-bench --help` lists the subcommands and options;
// an option no subcommand takes, a missing value or a bad number stops the run in one line (BenchOptions, Support.swift).
import Foundation

let which = CommandLine.arguments.dropFirst().first ?? "all"
if which == "--help" || which == "-h" { BenchOptions.help() }
guard BenchOptions.subcommands.contains(which) else {
    FileHandle.standardError.write(Data("gallery-bench: no subcommand \(which): one of \(BenchOptions.subcommands.joined(separator: ", "))\n".utf8))
    exit(2)
}
let options = BenchOptions(CommandLine.arguments)
// A benchmark that cannot go on says why in one line (a missing tool, no PostgreSQL, no `gallery`
// binary), not as an error raised at top level (a fatal error and a backtrace).
do {
    if which == "seed" {
        try await runSeed(options)
        exit(0)
    }
    if which == "serve-moves" {
        try await runServeMoves(options)
        exit(0)
    }
    if which == "open-moves" {
        try await runOpenLoopMoves(options)
        exit(0)
    }
    if which == "all" {
        // Every tool the parts shell out to, before the first part: the thumbnails come after
        // many minutes of the others.
        try requireTool("/usr/bin/wrk", package: "wrk")
        try requireTool("/usr/bin/vipsthumbnail", package: "libvips-tools")
        try requireTool("/usr/bin/convert", package: "imagemagick")
        try requireTool("/usr/bin/time", package: "time")
        let gallery = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("gallery")
        guard FileManager.default.isExecutableFile(atPath: gallery.path) else {
            throw BenchFailure("no gallery binary beside gallery-bench (\(gallery.path)): swift build -c release --product gallery")
        }
    }
    print("gallery-bench on \(machineDescription())")
    if which == "move" || which == "all" { try await runMoveBenchmarks(options) }
    if which == "backends" || which == "all" { try await runBackendBenchmarks(options) }
    if which == "access" || which == "all" { try await runAccessBenchmarks(options) }
    if which == "hash" || which == "all" { runHashBenchmarks(options) }
    if which == "thumbs" || which == "all" { try runThumbnailBenchmarks(options) }
    if which == "snapshot" || which == "all" { try await runSnapshotBenchmarks(options) }
    if which == "catchup" || which == "all" { try await runCatchUpBenchmarks(options) }
    if which == "limits" || which == "all" { try await runLimitsBenchmarks(options) }
    if which == "import" || which == "all" { try runImportBenchmarks(options) }
    if which == "fanout" { try await runFanoutBenchmark(options) }
    if which == "history" { try await runHistoryBenchmark(options) }
    if which == "restart-catchup" { try await runRestartCatchUpBenchmark(options) }
} catch {
    FileHandle.standardError.write(Data("gallery-bench \(which): \(error)\n".utf8))
    exit(1)
}
