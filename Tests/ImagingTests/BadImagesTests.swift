import Foundation
import Testing
import Imaging

/// Issue 12's bad input, each a real file made here: a clear reason, never a crash or a hang.
@Suite struct BadImagesTests {
    static let jpeg: [UInt8] = try! SampleImages.jpeg(width: 320, height: 240, red: 200, green: 60, blue: 60, title: "")

    /// A 64 KB EXIF block of garbage: the APP1 segment right after the JPEG's SOI.
    @Test func aJPEGWithAGarbageExifBlockStillShowsWithoutMetadata() throws {
        var rng = SystemRandomNumberGenerator()
        let garbage = (0..<65_000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let payload = Array("Exif\0\0".utf8) + garbage
        let length = payload.count + 2
        let app1: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        let file = Array(Self.jpeg[0..<2]) + app1 + Array(Self.jpeg[2...])
        let info = try ImageProbe.probe(file)
        #expect(info.width == 320 && info.height == 240 && info.orientation == 1)
        let thumb = try RGBPixels(decoding: try Thumbnailer.jpeg(from: file, size: .grid))
        #expect(thumb.width == 320)
        #expect(PhotoMetadata.read(file).captured == nil)
    }

    @Test func brokenAndTruncatedFilesGiveAReason() throws {
        let heic = try SampleImages.convert(Self.jpeg, to: ".heic")
        let avif = try SampleImages.convert(Self.jpeg, to: ".avif")
        var brokenBox = heic
        // The first box's size field (bytes 0-3) claims far more than the file holds.
        brokenBox[0] = 0x7F; brokenBox[1] = 0xFF; brokenBox[2] = 0xFF; brokenBox[3] = 0xFF
        let cases: [(String, [UInt8])] = [
            ("HEIC with a broken box", brokenBox),
            ("truncated AVIF", Array(avif.prefix(avif.count / 2))),
            ("zero bytes", []),
            ("text named .jpg", Array("<html><body>not a photo</body></html>".utf8)),
        ]
        for (label, bytes) in cases {
            var failed: ImagingError?
            do {
                _ = try ImageProbe.probe(bytes)
                _ = try Thumbnailer.jpeg(from: bytes, size: .grid)
            } catch {
                failed = error
            }
            let reason = try #require(failed, "\(label) was accepted").reason
            // A HEIC whose first box is broken no longer looks like HEIF: only ImageMagick would try it.
            #expect(["not an image", "image could not be decoded", "unsupported format"].contains { reason.hasPrefix($0) }, "\(label): \(reason)")
        }
    }
}
