import Testing
import Imaging

@Test func sampleJPEGProbesAtItsSizeAndThumbnailsWithinTheEdge() throws {
    let jpeg = try SampleImages.jpeg(width: 640, height: 360, red: 200, green: 80, blue: 40, title: "Banana")
    let info = try ImageProbe.probe(jpeg)
    #expect(info.width == 640 && info.height == 360 && info.format.lowercased().contains("jpeg"))
    let thumb = try Thumbnailer.jpeg(from: jpeg, maxEdge: 100)
    let t = try ImageProbe.probe(thumb)
    #expect(t.width == 100 && t.height == 56)
    // Never enlarged past the original.
    let big = try ImageProbe.probe(try Thumbnailer.jpeg(from: jpeg, size: .detail))
    #expect(big.width == 640)
}

@Test func nonImageBytesAreRefusedAsNotAnImage() {
    #expect(throws: ImagingError.notAnImage) { try ImageProbe.probe(Array("<html>hello</html>".utf8)) }
    #expect(throws: ImagingError.notAnImage) { try ImageProbe.probe([]) }
}

@Test func aCanvasPastThePixelLimitIsRefusedFromItsHeader() throws {
    let png = try SampleImages.plainPNG(width: 4000, height: 3000)
    #expect(png.count < 200_000)
    #expect(throws: ImagingError.tooManyPixels(width: 4000, height: 3000, limit: 10_000_000)) {
        try ImageProbe.probe(png, limits: ImageLimits(maxPixels: 10_000_000))
    }
}

@Test func aTruncatedJPEGProbesButFailsToThumbnail() throws {
    let jpeg = try SampleImages.jpeg(width: 800, height: 600, red: 20, green: 120, blue: 220, title: "Cherry")
    let cut = Array(jpeg.prefix(jpeg.count / 2))
    #expect(try ImageProbe.probe(cut).width == 800)
    #expect(throws: ImagingError.self) { try Thumbnailer.jpeg(from: cut, maxEdge: 200) }
}

/// Counts, in the middle third of a picture, near-black pixels and sky-blue pixels.
func darkAndBlue(_ jpeg: [UInt8]) throws -> (dark: Int, blue: Int) {
    let px = try RGBPixels(decoding: jpeg)
    var dark = 0, blue = 0
    for y in stride(from: px.height / 3, to: px.height * 2 / 3, by: 2) {
        for x in stride(from: px.width / 5, to: px.width * 4 / 5, by: 2) {
            let p = px[x, y]
            if p.r < 60 && p.g < 60 && p.b < 60 { dark += 1 }
            if p.b > 180 && Int(p.b) - Int(p.r) > 60 { blue += 1 }
        }
    }
    return (dark, blue)
}

/// The sample gallery's 🥸 tile: the colour emoji (black glasses and moustache, blue lenses) on
/// the orange gradient, not a blank tile or a white silhouette.
@Test func theDisguiseTileShowsTheColourEmoji() throws {
    #expect(SampleImages.fontsCanDraw("🥸"), "an installed font has U+1F978 (fonts-noto-color-emoji, scripts/setup.sh)")
    let tile = try SampleImages.jpeg(width: 800, height: 800, red: 250, green: 150, blue: 70, title: "🥸", fallback: "Disguise")
    let (dark, blue) = try darkAndBlue(tile)
    #expect(dark > 1000, "glasses, eyebrows and moustache: \(dark)")
    #expect(blue > 200, "lenses: \(blue)")
    let untitled = try darkAndBlue(try SampleImages.jpeg(width: 800, height: 800, red: 250, green: 150, blue: 70, title: ""))
    #expect(untitled.dark == 0 && untitled.blue == 0, "the background alone has neither")
}

@Test func aTitleNoFontCanDrawFallsBackToItsText() throws {
    // A private-use character of plane 16: no font has it.
    #expect(!SampleImages.fontsCanDraw("\u{10FFFD}"))
    #expect(SampleImages.fontsCanDraw("Disguise"))
    let fallen = try SampleImages.jpeg(width: 400, height: 400, red: 250, green: 150, blue: 70, title: "\u{10FFFD}", fallback: "Disguise")
    let text = try SampleImages.jpeg(width: 400, height: 400, red: 250, green: 150, blue: 70, title: "Disguise")
    #expect(fallen == text)
    let untitled = try SampleImages.jpeg(width: 400, height: 400, red: 250, green: 150, blue: 70, title: "")
    #expect(fallen != untitled, "the fallback is drawn")
    // Markup characters in a title are text, not markup (unescaped, Pango would refuse it and draw nothing).
    let symbols = try SampleImages.jpeg(width: 300, height: 200, red: 10, green: 10, blue: 10, title: "a < b & c")
    #expect(symbols != (try SampleImages.jpeg(width: 300, height: 200, red: 10, green: 10, blue: 10, title: "")))
}
