/// Why an image was refused. `reason` is the text a failed item carries to the page.
public enum ImagingError: Error, Equatable, Sendable {
    case notAnImage
    case tooManyPixels(width: Int, height: Int, limit: Int)
    case undecodable(String)
    case libvipsUnavailable
    /// A format libvips knows but the server does not read from uploads (its loader is blocked as
    /// unsafe for untrusted files: ImageMagick's catch-all, PDF, scientific formats).
    case unsupportedFormat(String)

    public var reason: String {
        switch self {
        case .notAnImage: return "not an image (no known image format)"
        case let .tooManyPixels(w, h, limit): return "image too large: \(w)×\(h) pixels exceeds the limit of \(limit)"
        case let .undecodable(detail): return "image could not be decoded: \(detail)"
        case .libvipsUnavailable: return "libvips could not be initialised"
        case let .unsupportedFormat(name): return "unsupported format (\(name)): the gallery reads JPEG, PNG, WebP, GIF, HEIC/HEIF, AVIF, JPEG XL and TIFF"
        }
    }
}
