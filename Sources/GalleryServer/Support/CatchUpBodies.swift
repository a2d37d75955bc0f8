import Foundation
import GalleryCore
import NIOCore
import Synchronization

/// The JSON text of long catch-ups (a `ChangesJSON` of many versions), made once and shared by
/// the requests that ask for the same one meanwhile (issue 15's limit: a window back after 10,000
/// versions of a 1M gallery gets 7.9 MB of stages). The windows of one person that lost the
/// network together come back at the same version at once: before, each stream wrote its own copy
/// of the text — ten at once held the server's two cooperative threads for most of a second and
/// the next request waited as long (BENCHMARKS.md, session 14).
///
/// A catch-up is the same text for the same gallery and versions (every change, a rename too, is a
/// version of its own), so it is keyed by them. The text is kept as the live stream's whole
/// `changes` event (`Body.event`), and every stream writes that same buffer: NIO sends one storage
/// to every socket, nothing is copied per window (session 15: ten windows each copied 40 events of
/// ~200 KB). A text is kept for `keep` after it was made (the windows of one reconnect arrive
/// within it), the newest up to `capacityBytes` in all (32 MB) — the 40 parts of a 10,000-version catch-up
/// at 1M items are 8 MB, and a window a few parts behind the others still finds its part (the two
/// kept before were too few for ten windows writing 40 parts each: a window that fell behind had
/// its parts made again); a short catch-up is not shared (each request writes its own).
final class CatchUpBodies: Sendable {
    struct Key: Hashable, Sendable {
        var gallery: Int64
        var from: Int64
        var to: Int64
    }

    /// A catch-up's `changes` event as the live stream sends it (`event: changes`, its `id`, the
    /// text as `data`), and where its JSON text lies in it.
    struct Body: Sendable {
        let event: ByteBuffer
        let text: Range<Int>

        /// The JSON text alone: a view of the same storage.
        var json: ByteBuffer { event.getSlice(at: event.readerIndex + text.lowerBound, length: text.count)! }

        init(_ changes: ChangesJSON, text: [UInt8]) {
            let head = "event: changes\nid: \(changes.toVersion)\ndata: "
            var out = ByteBuffer()
            out.reserveCapacity(head.utf8.count + text.count + 2)
            out.writeString(head)
            let start = out.writerIndex
            out.writeBytes(text)
            self.text = start ..< out.writerIndex
            out.writeString("\n\n")
            event = out
        }
    }

    /// Catch-ups of fewer stages are written by each request itself.
    static let minimumStages = 64
    /// The bytes of the texts kept at most (the newest; a text being made counts once made), and for how long.
    let capacityBytes: Int
    let keep: Duration

    init(capacityBytes: Int = 32 << 20, keep: Duration = .seconds(10)) { self.capacityBytes = capacityBytes; self.keep = keep }

    private struct Entry {
        var key: Key
        var body: Task<Body, any Error>
        var bytes = 0
    }
    private let entries = Mutex<[Entry]>([])

    /// How many texts were made (not found): a test's check that ten windows share them.
    let made = Atomic<Int>(0)
    /// The bytes of the texts kept now.
    var keptBytes: Int { entries.withLock { $0.reduce(0) { $0 + $1.bytes } } }

    /// The `changes` event of `changes` (`fastJSON`, or `JSONEncoder`'s when it has item data):
    /// made by the first caller, awaited by the others, the same buffer for all.
    func body(gallery: Int64, _ changes: ChangesJSON) async throws -> Body {
        guard changes.stages.count >= Self.minimumStages else {
            made.add(1, ordering: .relaxed)
            return Body(changes, text: try Self.encode(changes))
        }
        let key = Key(gallery: gallery, from: changes.fromVersion, to: changes.toVersion)
        let (task, isNew) = entries.withLock { entries -> (Task<Body, any Error>, Bool) in
            if let found = entries.first(where: { $0.key == key }) { return (found.body, false) }
            let made = Task { Body(changes, text: try Self.encode(changes)) }
            entries.append(Entry(key: key, body: made))
            return (made, true)
        }
        guard isNew else { return try await task.value }
        made.add(1, ordering: .relaxed)
        Task { [weak self, keep] in
            try? await Task.sleep(for: keep)
            self?.entries.withLock { entries in entries.removeAll { $0.key == key && $0.body == task } }
        }
        let body = try await task.value
        entries.withLock { entries in
            guard let at = entries.firstIndex(where: { $0.key == key && $0.body == task }) else { return }
            entries[at].bytes = body.event.readableBytes
            // The oldest go first, never the one just made.
            var total = entries.reduce(0) { $0 + $1.bytes }
            while total > capacityBytes, entries.count > 1, entries[0].body != task {
                total -= entries[0].bytes
                entries.removeFirst()
            }
        }
        return body
    }

    static func encode(_ changes: ChangesJSON) throws -> [UInt8] {
        try changes.fastJSON ?? Array(JSONIO.encoder.encode(changes))
    }
}
