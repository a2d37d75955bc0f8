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
