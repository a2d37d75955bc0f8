import CVips

/// What the header of an image says, read without decoding its pixels. Width and height are
/// as displayed: after the EXIF orientation (5-8 turn the picture a quarter, so they swap),
/// which is how thumbnails come out and how the grid must lay the cell out.
public struct ImageInfo: Equatable, Sendable {
    public var width: Int
    public var height: Int
    /// libvips' loader class, e.g. "VipsForeignLoadJpegBuffer".
    public var format: String
    /// The EXIF orientation, 1-8 (1: as stored; anything absent or out of range reads as 1).
    public var orientation: Int = 1
    public var aspect: Double { height > 0 ? Double(width) / Double(height) : 1 }

    public init(width: Int, height: Int, format: String, orientation: Int = 1) {
        self.width = width; self.height = height; self.format = format; self.orientation = orientation
    }

    /// From the stored dimensions and the orientation: displayed dimensions.
    init(stored width: Int, _ height: Int, format: String, orientation: Int) {
        let turned = orientation >= 5 && orientation <= 8
        self.init(width: turned ? height : width, height: turned ? width : height, format: format, orientation: orientation)
    }
}

/// Limits that protect the server from hostile images.
public struct ImageLimits: Sendable {
    /// Largest width × height accepted: a small file can declare a huge canvas (a decompression bomb).
    public var maxPixels: Int
    public init(maxPixels: Int = 100_000_000) { self.maxPixels = maxPixels }
}

public enum ImageProbe {
    /// Reads format and dimensions from the header only and applies the pixel limit.
    public static func probe(_ bytes: [UInt8], limits: ImageLimits = ImageLimits()) throws(ImagingError) -> ImageInfo {
        var result: Result<ImageInfo, ImagingError> = .failure(.notAnImage)
        bytes.withUnsafeBytes { raw in result = Result { () throws(ImagingError) in try probe(raw, limits: limits) } }
        return try result.get()
    }

    /// The same from bytes anywhere in memory (a mapped file).
    public static func probe(_ raw: UnsafeRawBufferPointer, limits: ImageLimits = ImageLimits()) throws(ImagingError) -> ImageInfo {
        guard Vips.ready else { throw .libvipsUnavailable }
        var found: UnsafePointer<CChar>?
        _ = Vips.run { found = raw.count > 0 ? gallery_vips_find_loader(raw.baseAddress, raw.count) : nil; return found == nil ? 1 : 0 }
        guard let loader = found else { throw .notAnImage }
        // Told by the loader's flags, not by libvips' error text (one buffer per process: under
        // concurrent uploads another image's failure could stand there).
        if gallery_vips_loader_blocked(loader) != 0 { throw .unsupportedFormat(Self.formatName(String(cString: loader))) }
        var w: Int32 = 0, h: Int32 = 0, o: Int32 = 1
        if let error = Vips.run({ gallery_vips_probe(raw.baseAddress, raw.count, &w, &h, &o) }) {
            throw error.contains("operation is blocked") ? .unsupportedFormat(Self.formatName(String(cString: loader))) : .undecodable(error)
        }
        let result = ImageInfo(stored: Int(w), Int(h), format: String(cString: loader), orientation: Int(o))
        if result.width <= 0 || result.height <= 0 { throw .undecodable("empty image") }
        if result.width * result.height > limits.maxPixels {
            throw .tooManyPixels(width: result.width, height: result.height, limit: limits.maxPixels)
        }
        return result
    }
}

extension ImageProbe {
    /// "VipsForeignLoadMagickBuffer" → "magick".
    static func formatName(_ loader: String) -> String {
        var name = Substring(loader)
        if name.hasPrefix("VipsForeignLoad") { name = name.dropFirst("VipsForeignLoad".count) }
        for suffix in ["Buffer", "Source", "File"] where name.hasSuffix(suffix) { name = name.dropLast(suffix.count) }
        return name.lowercased()
    }

    /// The displayed size of an image file, from its header only (re-probing stored originals).
    public static func probe(file path: String) throws(ImagingError) -> ImageInfo {
        guard Vips.ready else { throw .libvipsUnavailable }
        var w: Int32 = 0, h: Int32 = 0, o: Int32 = 1
        if let error = Vips.run({ gallery_vips_probe_file(path, &w, &h, &o) }) { throw .undecodable(error) }
        guard w > 0 && h > 0 else { throw .undecodable("empty image") }
        return ImageInfo(stored: Int(w), Int(h), format: "", orientation: Int(o))
    }
}

/// An image's pixels, 8-bit sRGB, 3 bytes a pixel row by row (checks of generated pictures).
public struct RGBPixels: Sendable {
    public var width: Int
    public var height: Int
    public var bytes: [UInt8]

    public init(decoding image: [UInt8]) throws(ImagingError) {
        guard Vips.ready else { throw .libvipsUnavailable }
        var out: UnsafeMutableRawPointer?
        var length = 0
        var w: Int32 = 0, h: Int32 = 0
        let error = image.withUnsafeBytes { raw in Vips.run { gallery_vips_decode_rgb(raw.baseAddress, raw.count, &out, &length, &w, &h) } }
        if let error { throw .undecodable(error) }
        width = Int(w); height = Int(h); bytes = Vips.take(out, length)
    }

    public subscript(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let i = (y * width + x) * 3
        return (bytes[i], bytes[i + 1], bytes[i + 2])
    }
}
