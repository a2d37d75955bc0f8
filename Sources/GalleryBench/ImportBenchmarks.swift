import Foundation
import Imaging

/// `gallery import FOLDER` (issue 12), the release binary beside this one, on photos made in the
/// run: photos/s on every core against `vipsthumbnail` in one process on the same files, and the
/// import's peak RSS (GNU time's %M) at 200 and at 2,000 files.
func runImportBenchmarks(_ o: BenchOptions) throws {
    try requireTool("/usr/bin/vipsthumbnail", package: "libvips-tools")
    try requireTool("/usr/bin/time", package: "time")
    let gallery = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("gallery").path
    guard FileManager.default.isExecutableFile(atPath: gallery) else {
        print("import: \(gallery) is missing: swift build -c release --product gallery"); return
    }
    let root = temporaryFolder("import")
    // GALLERY_BENCH_KEEP=1 leaves the photos and data folders behind (printed) to look into.
    let keep = ProcessInfo.processInfo.environment["GALLERY_BENCH_KEEP"] != nil
    defer { if keep { print("kept \(root.path)") } else { try? FileManager.default.removeItem(at: root) } }

    /// `count` distinct JPEGs of `width`×`height` with photographic grain.
    func makePhotos(_ count: Int, width: Int, height: Int, in name: String) throws -> (URL, [String], Int) {
        let folder = root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var paths: [String] = [], bytes = 0
        for i in 0..<count {
            let jpeg = try SampleImages.jpeg(width: width, height: height, red: Double(30 + i * 7 % 200), green: Double(220 - i * 3 % 180),
                                             blue: Double(60 + i % 150), title: "Photo \(i)", noise: 24)
            let url = folder.appendingPathComponent(String(format: "IMG_%04d.jpg", i))
            try Data(jpeg).write(to: url)
            paths.append(url.path)
            bytes += jpeg.count
        }
        return (folder, paths, bytes)
    }
    /// Runs the import under GNU time: (seconds, peak RSS in MiB).
    func timedImport(_ folder: URL, data: String) throws -> (Double, Int) {
        let (seconds, said) = try run("/usr/bin/time", ["-f", "peak-rss-kb %M", gallery, "import", folder.path, "--data", data])
        guard let line = said.split(separator: "\n").last(where: { $0.hasPrefix("peak-rss-kb ") }), let kb = Int(line.dropFirst(12)),
              said.contains("failed 0") else {
            throw BenchFailure("gallery import failed: \(said.suffix(400))")
        }
        return (seconds, kb >> 10)
    }

    print("")
    print("### Folder import (issue 12): `gallery import FOLDER` on \(ProcessInfo.processInfo.activeProcessorCount) cores")
    let (photos, paths, bytes) = try makePhotos(o.photos, width: 4000, height: 3000, in: "photos")
    print("input: \(o.photos) JPEGs of 4000×3000 (12 MP) with photographic grain (Gaussian, sigma 24), \(bytes >> 20) MiB")
    print("")
    print("| what | seconds | photos/s |")
    print("| --- | ---: | ---: |")
    let out = root.appendingPathComponent("vips-out")
    try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    func vipsthumbnail(_ files: [String], _ tag: String) -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/vipsthumbnail")
        p.arguments = ["-s", "400x400", "-o", out.path + "/%s-\(tag).jpg"] + files
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        return p
    }
    /// vipsthumbnail on all files in one process, or on the two halves in two processes at once
    /// (what two cores give this very work: the ceiling for any two-core importer here).
    func timedVips(processes: Int) throws -> Double {
        let half = paths.count / 2
        let runs = processes == 1 ? [vipsthumbnail(paths, "one")]
            : [vipsthumbnail(Array(paths[..<half]), "a"), vipsthumbnail(Array(paths[half...]), "b")]
        let t0 = nowSeconds()
        for p in runs { try p.run() }
        for p in runs { p.waitUntilExit() }
        guard runs.allSatisfy({ $0.terminationStatus == 0 }) else { throw BenchFailure("vipsthumbnail failed") }
        return nowSeconds() - t0
    }
    func row(_ name: String, _ seconds: Double) {
        print("| \(name) | \(String(format: "%.2f", seconds)) | \(String(format: "%.1f", Double(o.photos) / seconds)) |")
    }
    // Two rounds, alternating, on a machine whose speed drifts.
    var ratios: [(ours: Double, ceiling: Double)] = []
    var rss = 0
    for round in 1...2 {
        let one = try timedVips(processes: 1)
        let two = try timedVips(processes: 2)
        let (ours, peak) = try timedImport(photos, data: root.appendingPathComponent("data-12mp-\(round)").path)
        rss = max(rss, peak)
        row("round \(round): vipsthumbnail -s 400x400, one process, all files (one 400 px thumbnail each)", one)
        row("round \(round): vipsthumbnail, two processes at once on the two halves (the two-core ceiling)", two)
        row("round \(round): gallery import (hash + copy, probe, EXIF, 400 px grid thumbnail, SQLite; detail made on first view)", ours)
        ratios.append((one / ours, one / two))
    }
    print("")
    for (k, r) in ratios.enumerated() {
        print(String(format: "round %d: gallery import ÷ vipsthumbnail: %.2f×; two vipsthumbnails ÷ one: %.2f× (the import reaches %.0f %% of that)",
                     k + 1, r.ours, r.ceiling, 100 * r.ours / r.ceiling))
    }
    print("peak RSS of the import: \(rss) MiB")

    print("")
    print("Peak RSS of the import by number of files (640×480 JPEGs with grain):")
    print("")
    print("| files | seconds | peak RSS |")
    print("| ---: | ---: | ---: |")
    for count in [200, 2_000] {
        let (folder, _, _) = try makePhotos(count, width: 640, height: 480, in: "small-\(count)")
        let (seconds, rss) = try timedImport(folder, data: root.appendingPathComponent("data-\(count)").path)
        print("| \(count) | \(String(format: "%.1f", seconds)) | \(rss) MiB |")
    }
}
