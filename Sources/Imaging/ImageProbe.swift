import CVips

/// What the header of an image says, read without decoding its pixels.
public struct ImageInfo: Equatable, Sendable {
    public var width: Int
    public var height: Int
    /// libvips' loader class, e.g. "VipsForeignLoadJpegBuffer".
    public var format: String
    public var aspect: Double { height > 0 ? Double(width) / Double(height) : 1 }
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
        guard Vips.ready else { throw .libvipsUnavailable }
        var info: ImageInfo?
        var failure: ImagingError?
        bytes.withUnsafeBytes { raw in
            guard raw.count > 0, let loader = gallery_vips_find_loader(raw.baseAddress, raw.count) else {
                Vips.takeError()
                failure = .notAnImage
                return
            }
            var w: Int32 = 0, h: Int32 = 0
            if gallery_vips_probe(raw.baseAddress, raw.count, &w, &h) != 0 {
                failure = .undecodable(Vips.takeError())
                return
            }
            info = ImageInfo(width: Int(w), height: Int(h), format: String(cString: loader))
        }
        if let failure { throw failure }
        let result = info!
        if result.width <= 0 || result.height <= 0 { throw .undecodable("empty image") }
        if result.width * result.height > limits.maxPixels {
            throw .tooManyPixels(width: result.width, height: result.height, limit: limits.maxPixels)
        }
        return result
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
        let rc = image.withUnsafeBytes { gallery_vips_decode_rgb($0.baseAddress, $0.count, &out, &length, &w, &h) }
        if rc != 0 { throw .undecodable(Vips.takeError()) }
        width = Int(w); height = Int(h); bytes = Vips.take(out, length)
    }

    public subscript(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let i = (y * width + x) * 3
        return (bytes[i], bytes[i + 1], bytes[i + 2])
    }
}
