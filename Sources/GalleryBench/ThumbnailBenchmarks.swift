import Foundation
import Imaging

/// Thumbnails per second for a batch of JPEGs: Imaging (libvips through CVips) beside Debian's
/// `vipsthumbnail` and ImageMagick's `convert -thumbnail`, same files, same run, grid size (400 px).
func runThumbnailBenchmarks(_ o: BenchOptions) throws {
    try requireTool("/usr/bin/vipsthumbnail", package: "libvips-tools")
    try requireTool("/usr/bin/convert", package: "imagemagick")
    print("")
    print("### Thumbnails, \(o.images) JPEGs, longest edge 400 px")
    let folder = temporaryFolder("thumbs")
    defer { try? FileManager.default.removeItem(at: folder) }
    let input = folder.appendingPathComponent("in"), out = folder.appendingPathComponent("out")
    try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
    var files: [URL] = []
    var bytes: [[UInt8]] = []
    var totalPixels = 0
    for i in 0..<o.images {
        let (w, h) = [(3000, 2000), (2000, 3000), (2400, 2400), (3600, 1600)][i % 4]
        let jpeg = try SampleImages.jpeg(width: w, height: h, red: Double(40 + i * 3 % 200), green: Double(200 - i * 5 % 150), blue: 120, title: "Photo \(i)", noise: 24)
        let url = input.appendingPathComponent(String(format: "img%03d.jpg", i))
        try Data(jpeg).write(to: url)
        files.append(url)
        bytes.append(jpeg)
        totalPixels += w * h
    }
    print("input: \(o.images) JPEGs with photographic grain (Gaussian, sigma 24), \(totalPixels / o.images / 1_000_000) megapixels each on average, \(bytes.map(\.count).reduce(0, +) >> 20) MiB")
    print("")
    print("| tool | seconds | thumbnails/s |")
    print("| --- | ---: | ---: |")
    func row(_ name: String, _ seconds: Double) {
        print("| \(name) | \(String(format: "%.2f", seconds)) | \(String(format: "%.1f", Double(o.images) / seconds)) |")
    }
    // Warm-up, then ours from files on disk (read + thumbnail + write), one after another.
    _ = try Thumbnailer.jpeg(from: bytes[0], maxEdge: 400)
    try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    var t0 = nowSeconds()
    for f in files {
        let b = [UInt8](try Data(contentsOf: f))
        try Data(try Thumbnailer.jpeg(from: b, maxEdge: 400)).write(to: out.appendingPathComponent(f.lastPathComponent))
    }
    row("Imaging.Thumbnailer (libvips in process, sequential)", nowSeconds() - t0)
    // vipsthumbnail: one process for the whole batch.
    try? FileManager.default.removeItem(at: out)
    try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    let (vipsTime, vipsOut) = try run("/usr/bin/vipsthumbnail", ["-s", "400x400", "-o", out.path + "/%s.jpg"] + files.map(\.path))
    if !vipsOut.isEmpty { print("vipsthumbnail said: \(vipsOut.prefix(200))") }
    row("vipsthumbnail -s 400x400 (one process, all files)", vipsTime)
    // ImageMagick: the command a shell script would run per file.
    t0 = nowSeconds()
    for f in files {
        let (_, said) = try run("/usr/bin/convert", [f.path, "-thumbnail", "400x400", out.appendingPathComponent("im-" + f.lastPathComponent).path])
        if !said.isEmpty { print("convert said: \(said.prefix(200))"); break }
    }
    row("convert -thumbnail 400x400 (ImageMagick 6, one process per file)", nowSeconds() - t0)
}
