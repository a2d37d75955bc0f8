import CVips

/// Pictures drawn by libvips itself: the sample gallery on first start, and test fixtures.
public enum SampleImages {
    /// A JPEG with a colour gradient and `title` written across it in white; colour emoji keep
    /// their colours (libvips `text` with `rgba`, the system's colour emoji font). When the title
    /// draws nothing visible (no font has the glyph), `fallback` is written instead, so the
    /// picture is never blank.
    /// `noise` (a sigma in grey levels) adds photographic grain; 0 gives a smooth gradient.
    public static func jpeg(width: Int, height: Int, red: Double, green: Double, blue: Double, title: String,
                            fallback: String? = nil, noise: Double = 0) throws(ImagingError) -> [UInt8] {
        guard Vips.ready else { throw .libvipsUnavailable }
        var out: UnsafeMutableRawPointer?
        var length = 0
        // A character no installed font has would be drawn as a "missing glyph" box: use the fallback.
        let title = fallback != nil && !fontsCanDraw(title) ? fallback! : title
        let fallbackMarkup = fallback.map(markup) ?? ""
        let error = markup(title).withCString { text in
            fallbackMarkup.withCString { other in
                Vips.run { gallery_vips_sample_jpeg(Int32(width), Int32(height), red, green, blue, noise, text, other, &out, &length) }
            }
        }
        if let error { throw .undecodable(error) }
        return Vips.take(out, length)
    }

    /// Test fixtures: `image` re-saved by libvips as `suffix` (".webp", ".gif", ".tif", ".png",
    /// ".heic", ".avif", ".jxl"); `transparentLeft` makes the left half fully transparent first.
    public static func convert(_ image: [UInt8], to suffix: String, transparentLeft: Bool = false) throws(ImagingError) -> [UInt8] {
        guard Vips.ready else { throw .libvipsUnavailable }
        var out: UnsafeMutableRawPointer?
        var length = 0
        let error = image.withUnsafeBytes { raw in
            suffix.withCString { name in Vips.run { gallery_vips_convert(raw.baseAddress, raw.count, name, transparentLeft ? 1 : 0, &out, &length) } }
        }
        if let error { throw .undecodable(error) }
        return Vips.take(out, length)
    }

    /// Test fixture: a two-frame animated GIF, red then blue.
    public static func animatedGIF(width: Int, height: Int) throws(ImagingError) -> [UInt8] {
        guard Vips.ready else { throw .libvipsUnavailable }
        var out: UnsafeMutableRawPointer?
        var length = 0
        if let error = Vips.run({ gallery_vips_two_frame_gif(Int32(width), Int32(height), &out, &length) }) { throw .undecodable(error) }
        return Vips.take(out, length)
    }

    /// True when some installed font has a glyph for every character of `text` (fontconfig).
    public static func fontsCanDraw(_ text: String) -> Bool {
        text.withCString { gallery_fonts_cover($0) == 1 }
    }

    /// Plain text as Pango markup in white (`&`, `<`, `>` escaped).
    static func markup(_ text: String) -> String {
        guard !text.isEmpty else { return "" }
        var escaped = ""
        for c in text {
            switch c {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            default: escaped.append(c)
            }
        }
        return "<span foreground=\"white\">\(escaped)</span>"
    }

    /// A uniform PNG: compresses to a few kilobytes even at tens of megapixels.
    public static func plainPNG(width: Int, height: Int) throws(ImagingError) -> [UInt8] {
        guard Vips.ready else { throw .libvipsUnavailable }
        var out: UnsafeMutableRawPointer?
        var length = 0
        if let error = Vips.run({ gallery_vips_plain_png(Int32(width), Int32(height), &out, &length) }) { throw .undecodable(error) }
        return Vips.take(out, length)
    }
}
