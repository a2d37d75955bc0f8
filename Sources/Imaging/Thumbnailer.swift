import CVips

/// The two thumbnail sizes the page uses: the grid tile and the detail view.
public enum ThumbnailSize: String, CaseIterable, Sendable {
    case grid
    case detail

    /// Longest edge in pixels; never enlarged past the original.
    public var maxEdge: Int {
        switch self {
        case .grid: return 400
        case .detail: return 1600
        }
    }
}

public enum Thumbnailer {
    /// A JPEG thumbnail fitting `maxEdge` × `maxEdge`. Decodes the whole image (shrink-on-load where the
    /// format allows), so truncated or corrupt files fail here even when their header probed fine.
    public static func jpeg(from bytes: [UInt8], maxEdge: Int, quality: Int = 82) throws(ImagingError) -> [UInt8] {
        var result: Result<[UInt8], ImagingError> = .success([])
        bytes.withUnsafeBytes { raw in result = Result { () throws(ImagingError) in try jpeg(from: raw, maxEdge: maxEdge, quality: quality) } }
        return try result.get()
    }

    /// The same from bytes anywhere in memory (a mapped file: no copy of a large original).
    public static func jpeg(from raw: UnsafeRawBufferPointer, maxEdge: Int, quality: Int = 82) throws(ImagingError) -> [UInt8] {
        guard Vips.ready else { throw .libvipsUnavailable }
        var out: UnsafeMutableRawPointer?
        var length = 0
        if let error = Vips.run({ gallery_vips_thumbnail_jpeg(raw.baseAddress, raw.count, Int32(maxEdge), Int32(maxEdge), Int32(quality), &out, &length) }) {
            throw .undecodable(error)
        }
        return Vips.take(out, length)
    }

    public static func jpeg(from raw: UnsafeRawBufferPointer, size: ThumbnailSize) throws(ImagingError) -> [UInt8] {
        try jpeg(from: raw, maxEdge: size.maxEdge)
    }

    public static func jpeg(from bytes: [UInt8], size: ThumbnailSize) throws(ImagingError) -> [UInt8] {
        try jpeg(from: bytes, maxEdge: size.maxEdge)
    }
}
