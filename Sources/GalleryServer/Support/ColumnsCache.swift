import Hummingbird
import Synchronization

/// The latest columnar snapshot body of the few most recently loaded galleries, keyed by the
/// gallery's version and name: a page load at an unchanged version costs one row read.
final class ColumnsCache: Sendable {
    private struct Entry { var version: Int64; var name: String; var body: ByteBuffer; var used: UInt64 }
    private let entries = Mutex<[Int64: Entry]>([:])
    private let clock = Atomic<UInt64>(0)
    let capacity: Int

    init(capacity: Int = 4) { self.capacity = capacity }

    func body(gallery: Int64, version: Int64, name: String) -> ByteBuffer? {
        let now = clock.add(1, ordering: .relaxed).newValue
        return entries.withLock { e in
            guard var entry = e[gallery], entry.version == version, entry.name == name else { return nil }
            entry.used = now
            e[gallery] = entry
            return entry.body
        }
    }

    func store(gallery: Int64, version: Int64, name: String, body: ByteBuffer) {
        let now = clock.add(1, ordering: .relaxed).newValue
        entries.withLock { e in
            e[gallery] = Entry(version: version, name: name, body: body, used: now)
            while e.count > capacity, let oldest = e.min(by: { $0.value.used < $1.value.used })?.key { e[oldest] = nil }
        }
    }

    /// A validator for the body at this version and name (FNV-1a of the name: stable across restarts).
    static func etag(gallery: Int64, version: Int64, name: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in name.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return "\"g\(gallery)-v\(version)-\(String(h, radix: 36))\""
    }
}
