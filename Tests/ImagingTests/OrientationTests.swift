import Foundation
import Testing
import Imaging

/// EXIF orientation (issue 12): the displayed size is what the probe reports, thumbnails come
/// out upright. The fixture is a real JPEG drawn by libvips, 800×400, brightest at its top-left
/// corner, tagged by exiftool with each orientation.
@Suite struct OrientationTests {
    static func tagged(_ orientation: Int) throws -> [UInt8] {
        let jpeg = try SampleImages.jpeg(width: 800, height: 400, red: 250, green: 250, blue: 250, title: "")
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("orientation-\(orientation)-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(jpeg).write(to: url)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        p.arguments = ["-q", "-n", "-overwrite_original", "-Orientation=\(orientation)", url.path]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "exiftool (libimage-exiftool-perl, scripts/setup.sh) tags the file")
        return [UInt8](try Data(contentsOf: url))
    }

    /// Which corner of a picture is the brightest: "TL", "TR", "BR" or "BL".
    static func brightestCorner(_ jpeg: [UInt8]) throws -> String {
        let px = try RGBPixels(decoding: jpeg)
        func light(_ x: Int, _ y: Int) -> Int { let p = px[x, y]; return Int(p.r) + Int(p.g) + Int(p.b) }
        let i = 8
        let corners = ["TL": light(i, i), "TR": light(px.width - 1 - i, i), "BR": light(px.width - 1 - i, px.height - 1 - i), "BL": light(i, px.height - 1 - i)]
        return corners.max { $0.value < $1.value }!.key
    }

    @Test(arguments: 1...8) func theDisplayedSizeAndAnUprightThumbnail(orientation: Int) throws {
        let file = try Self.tagged(orientation)
        let info = try ImageProbe.probe(file)
        #expect(info.orientation == orientation)
        let turned = orientation >= 5
        #expect(info.width == (turned ? 400 : 800) && info.height == (turned ? 800 : 400), "orientation \(orientation): \(info)")
        let thumb = try Thumbnailer.jpeg(from: file, size: .grid)
        let t = try RGBPixels(decoding: thumb)
        #expect(t.width == (turned ? 200 : 400) && t.height == (turned ? 400 : 200))
        // The stored pixels are brightest at the top-left; each orientation puts that corner elsewhere on screen.
        let expected = ["TL", "TR", "BR", "BL", "TL", "TR", "BR", "BL"][orientation - 1]
        #expect(try Self.brightestCorner(thumb) == expected, "orientation \(orientation)")
        // The probe of a file on disk agrees (the re-probe of stored originals).
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("probe-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(file).write(to: url)
        let onDisk = try ImageProbe.probe(file: url.path)
        #expect(onDisk.width == info.width && onDisk.height == info.height)
    }

    @Test(arguments: [0, 9, 65535]) func anOrientationOutsideTheEightReadsAsStored(orientation: Int) throws {
        let file = try Self.tagged(orientation)
        let info = try ImageProbe.probe(file)
        #expect(info.orientation == 1 && info.width == 800 && info.height == 400)
        let t = try RGBPixels(decoding: try Thumbnailer.jpeg(from: file, size: .grid))
        #expect(t.width == 400 && t.height == 200)
    }
}
