import Foundation
import GalleryCore
import Synchronization

/// The JSON text of long catch-ups (a `ChangesJSON` of many versions), made once and shared by
/// the requests that ask for the same one meanwhile (issue 15's limit: a window back after 10,000
/// versions of a 1M gallery gets 7.9 MB of stages). The windows of one person that lost the
/// network together come back at the same version at once: before, each stream wrote its own copy
/// of the text — ten at once held the server's two cooperative threads for most of a second and
/// the next request waited as long (BENCHMARKS.md, session 14).
///
/// A catch-up is the same text for the same gallery and versions (every change, a rename too, is a
/// version of its own), so it is keyed by them. A text is kept for `keep` after it was made (the
/// windows of one reconnect arrive within it), the last few at most; a short catch-up is not
/// shared (each request writes its own).
final class CatchUpBodies: Sendable {
    struct Key: Hashable, Sendable {
        var gallery: Int64
        var from: Int64
        var to: Int64
    }

    /// Catch-ups of fewer stages are written by each request itself.
    static let minimumStages = 64
    /// How many texts are kept at most, and for how long.
    static let capacity = 2
    static let keep: Duration = .seconds(10)

    private let entries = Mutex<[(key: Key, text: Task<[UInt8], any Error>)]>([])

    /// The JSON text of `changes` (`fastJSON`, or `JSONEncoder`'s when it has item data): made by
    /// the first caller, awaited by the others.
    func text(gallery: Int64, _ changes: ChangesJSON) async throws -> [UInt8] {
        guard changes.stages.count >= Self.minimumStages else { return try Self.encode(changes) }
        let key = Key(gallery: gallery, from: changes.fromVersion, to: changes.toVersion)
        let task = entries.withLock { entries -> Task<[UInt8], any Error> in
            if let found = entries.first(where: { $0.key == key }) { return found.text }
            let made = Task { try Self.encode(changes) }
            entries.append((key, made))
            if entries.count > Self.capacity { entries.removeFirst() }
            return made
        }
        Task { [weak self] in
            try? await Task.sleep(for: Self.keep)
            self?.entries.withLock { entries in entries.removeAll { $0.key == key && $0.text == task } }
        }
        return try await task.value
    }

    static func encode(_ changes: ChangesJSON) throws -> [UInt8] {
        try changes.fastJSON ?? Array(JSONIO.encoder.encode(changes))
    }
}
