import CVips

/// libvips is initialised once per process, before the first call.
enum Vips {
    static let ready: Bool = gallery_vips_init() == 0

    /// The libvips error buffer as text, then cleared (it is per-process, so read it right after a failure).
    @discardableResult static func takeError() -> String {
        let text = gallery_vips_error().map { String(cString: $0) } ?? ""
        gallery_vips_error_clear()
        let line = text.split(separator: "\n").first.map(String.init) ?? ""
        return line.isEmpty ? "libvips failed" : line
    }

    /// Copies a g_malloc'ed buffer into a Swift array and frees it.
    static func take(_ pointer: UnsafeMutableRawPointer?, _ count: Int) -> [UInt8] {
        guard let pointer else { return [] }
        defer { gallery_g_free(pointer) }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
