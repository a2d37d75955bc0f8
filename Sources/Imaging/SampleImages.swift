import CVips

/// Pictures drawn by libvips itself: the sample gallery on first start, and test fixtures.
public enum SampleImages {
    /// A JPEG with a colour gradient and `title` written across it.
    /// `noise` (a sigma in grey levels) adds photographic grain; 0 gives a smooth gradient.
    public static func jpeg(width: Int, height: Int, red: Double, green: Double, blue: Double, title: String, noise: Double = 0) throws(ImagingError) -> [UInt8] {
        guard Vips.ready else { throw .libvipsUnavailable }
        var out: UnsafeMutableRawPointer?
        var length = 0
        let rc = title.withCString { text in
            gallery_vips_sample_jpeg(Int32(width), Int32(height), red, green, blue, noise, text, &out, &length)
        }
        if rc != 0 { throw .undecodable(Vips.takeError()) }
        return Vips.take(out, length)
    }

    /// A uniform PNG: compresses to a few kilobytes even at tens of megapixels.
    public static func plainPNG(width: Int, height: Int) throws(ImagingError) -> [UInt8] {
        guard Vips.ready else { throw .libvipsUnavailable }
        var out: UnsafeMutableRawPointer?
        var length = 0
        if gallery_vips_plain_png(Int32(width), Int32(height), &out, &length) != 0 { throw .undecodable(Vips.takeError()) }
        return Vips.take(out, length)
    }
}
