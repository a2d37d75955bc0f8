import CVips

/// libvips is initialised once per process, before the first call.
enum Vips {
    static let ready: Bool = gallery_vips_init() == 0
}

/// Process-wide libvips settings.
public enum ImagingSettings {
    /// Threads libvips uses inside one image operation. Where several images are worked on at
    /// once (ingestion's workers, at least one per core), one thread each does the same work with
    /// less hand-over between threads: measured 10 % faster for a folder import on 2 cores.
    public static func threadsPerImage(_ n: Int) {
        guard Vips.ready else { return }
        gallery_vips_set_concurrency(Int32(max(1, n)))
    }
}

extension Vips {
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
