import Foundation
import Synchronization
import Testing
import Imaging

/// Formats people bring (issue 12): each made here by libvips from a real picture, then probed
/// and thumbnailed as an upload would be.
@Suite struct FormatsTests {
    static let picture: [UInt8] = try! SampleImages.jpeg(width: 640, height: 360, red: 40, green: 160, blue: 90, title: "")

    @Test(arguments: [(".png", "png"), (".webp", "webp"), (".gif", "gif"), (".tif", "tiff"),
                      (".heic", "heif"), (".avif", "heif"), (".jxl", "jxl"), (".jpg", "jpeg")])
    func eachFormatProbesAndThumbnails(suffix: String, loader: String) throws {
        let file = suffix == ".jxl" ? try Self.viaCLI(Self.picture, suffix) : try SampleImages.convert(Self.picture, to: suffix)
        let info = try ImageProbe.probe(file)
        #expect(info.width == 640 && info.height == 360, "\(suffix): \(info)")
        #expect(info.format.lowercased().contains(loader), "\(suffix): loader \(info.format)")
        let jpeg: [UInt8]
        do { jpeg = try Thumbnailer.jpeg(from: file, size: .grid) } catch { Issue.record("\(suffix) thumbnail: \(error)"); return }
        let thumb = try RGBPixels(decoding: jpeg)
        #expect(thumb.width == 400 && thumb.height == 225, "\(suffix)")
        // Still the picture: green, not grey or black.
        let p = thumb[300, 112]
        #expect(p.g > p.r && p.g > p.b, "\(suffix): \(p)")
    }

    /// libvips 8.14 saves JPEG XL to a file but not to memory ("bad seek"): the `vips` command
    /// (libvips-tools, scripts/setup.sh) writes that fixture.
    static func viaCLI(_ jpeg: [UInt8], _ suffix: String) throws -> [UInt8] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("formats-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.jpg"), output = dir.appendingPathComponent("out\(suffix)")
        try Data(jpeg).write(to: input)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/vips")
        p.arguments = ["copy", input.path, output.path]
        try p.run()
        p.waitUntilExit()
        return [UInt8](try Data(contentsOf: output))
    }

    @Test(arguments: [".png", ".webp"]) func transparencyLiesOnANeutralBackdrop(suffix: String) throws {
        let file = try SampleImages.convert(Self.picture, to: suffix, transparentLeft: true)
        let thumb = try RGBPixels(decoding: try Thumbnailer.jpeg(from: file, size: .grid))
        let left = thumb[50, 112], right = thumb[350, 112]
        for c in [left.r, left.g, left.b] { #expect(abs(Int(c) - 204) <= 6, "\(suffix): the transparent half is the grey backdrop, got \(left)") }
        #expect(right.g > right.r + 40, "\(suffix): the opaque half keeps its colour, got \(right)")
    }

    @Test func anAnimatedGIFShowsItsFirstFrame() throws {
        let gif = try SampleImages.animatedGIF(width: 300, height: 200)
        let info = try ImageProbe.probe(gif)
        #expect(info.width == 300 && info.height == 200, "one frame's size, not the strip's: \(info)")
        let thumb = try RGBPixels(decoding: try Thumbnailer.jpeg(from: gif, size: .grid))
        let p = thumb[thumb.width / 2, thumb.height / 2]
        #expect(thumb.height == 200 && p.r > 180 && p.b < 80, "the first (red) frame: \(p)")
    }

    /// A BMP (only ImageMagick's loader reads it) and a PDF: untrusted loaders are blocked.
    static let untrusted: [[UInt8]] = {
        var bmp: [UInt8] = Array("BM".utf8) + [UInt8](repeating: 0, count: 52)
        bmp[10] = 54; bmp[14] = 40; bmp[18] = 1; bmp[22] = 1; bmp[26] = 1; bmp[28] = 24
        let pdf = Array("%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n".utf8)
        return [bmp, pdf]
    }()

    @Test func formatsOnlyImageMagickOrPDFReadAreRefusedAsUnsupported() throws {
        for bytes in Self.untrusted {
            do {
                _ = try ImageProbe.probe(bytes)
                Issue.record("an untrusted loader read it")
            } catch {
                #expect(error.reason.hasPrefix("unsupported format (magick)") || error.reason.hasPrefix("unsupported format (pdf)"), "\(error.reason)")
            }
        }
    }

    /// libvips' error buffer is one per process: a failure read from it while another thread's
    /// failure cleared or filled it said "libvips failed" (seen in a parallel test run, session 18).
    /// A blocked loader is told by its flags, not by the error text, whatever else fails meanwhile.
    @Test func aBlockedFormatIsToldAsSuchWhileOtherImagesFailAtOnce() {
        let truncated = Array(Self.picture.prefix(Self.picture.count / 2))
        let reasons = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<150 {
                if (worker + round) % 2 == 0 {
                    let bytes = Self.untrusted[round % 2]
                    do throws(ImagingError) { _ = try ImageProbe.probe(bytes); reasons.withLock { $0.append("read") } } catch { reasons.withLock { $0.append(error.reason) } }
                } else {
                    _ = try? Thumbnailer.jpeg(from: truncated, size: .grid)
                    _ = try? ImageProbe.probe(Array("GIF89a".utf8) + [UInt8](repeating: 0xFF, count: 40))
                }
            }
        }
        let all = reasons.withLock { $0 }
        let wrong = all.filter { !$0.hasPrefix("unsupported format (magick)") && !$0.hasPrefix("unsupported format (pdf)") }
        #expect(all.count == 600 && wrong.isEmpty, "\(wrong.count) of \(all.count) told otherwise, e.g. \(wrong.prefix(3))")
    }

    /// The detail of "image could not be decoded: …" is the image's own while other images fail
    /// at once: libvips' error buffer is one per process, and a failure's text read from it could
    /// be another thread's (a truncated JPEG's "Premature end of input file" told for a broken
    /// PNG). Each image's reason alone first; then eight threads fail them all at once, mixed.
    @Test func eachFailureIsToldWithItsOwnDetailWhileOthersFailAtOnce() throws {
        let png = try SampleImages.convert(Self.picture, to: ".png"), webp = try SampleImages.convert(Self.picture, to: ".webp")
        let broken: [[UInt8]] = [
            Array(Self.picture.prefix(Self.picture.count / 2)),             // a JPEG cut in half
            Array(png.prefix(png.count / 2)),                               // a PNG cut in half
            Array(webp.prefix(webp.count / 2)),                             // a WebP cut in half
            Array(png.prefix(33)) + [UInt8](repeating: 0x41, count: 400),   // a PNG header, then nonsense
        ]
        @Sendable func reason(_ bytes: [UInt8]) -> String {
            do throws(ImagingError) { _ = try Thumbnailer.jpeg(from: bytes, size: .grid); return "read" } catch { return error.reason }
        }
        let alone = broken.map(reason)
        // The test can only fail if the images fail differently.
        try #require(Set(alone).count == broken.count && !alone.contains("read"), "\(alone)")
        let wrong = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<60 {
                let k = (worker + round) % broken.count
                let told = reason(broken[k])
                if told != alone[k] { wrong.withLock { $0.append("\(k): \(told)") } }
            }
        }
        let seen = wrong.withLock { $0 }
        #expect(seen.isEmpty, "\(seen.count) of 480 told another image's detail, e.g. \(seen.prefix(3)); alone: \(alone)")
    }
}
