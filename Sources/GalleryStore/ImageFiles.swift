import Foundation

/// Content-addressed image files: `images/ab/<sha256>/original`, `grid.jpg`, `detail.jpg`.
/// Files are written to a temporary name and renamed, so a crash never leaves a partial file
/// under its final name.
public struct ImageFiles: Sendable {
    public let root: URL

    public init(root: URL) throws {
        self.root = root
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        removeStaleTemporaries()
    }

    /// Temporary files a killed process left behind (an upload cut off mid-file). Only those older
    /// than a day: another process (`gallery import`) may be writing to the same folder right now.
    func removeStaleTemporaries(olderThan age: TimeInterval = 86_400) {
        let tmp = root.appendingPathComponent("tmp")
        let limit = Date().addingTimeInterval(-age)
        for url in (try? FileManager.default.contentsOfDirectory(at: tmp, includingPropertiesForKeys: [.contentModificationDateKey])) ?? [] {
            if let date = try? url.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate, date < limit {
                try? FileManager.default.removeItem(at: url)
            }
        }
    }

    public static func isHash(_ s: String) -> Bool {
        s.utf8.count == 64 && s.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    public func folder(_ hash: String) -> URL {
        root.appendingPathComponent(String(hash.prefix(2))).appendingPathComponent(hash)
    }

    public func url(_ hash: String, _ name: String) -> URL { folder(hash).appendingPathComponent(name) }

    public func exists(_ hash: String, _ name: String) -> Bool { FileManager.default.fileExists(atPath: url(hash, name).path) }

    /// Stores bytes as the original of their hash; returns the hash.
    @discardableResult
    public func storeOriginal(_ bytes: [UInt8]) throws -> String {
        let hash = ContentHash.hex(bytes)
        if !exists(hash, "original") { try write(bytes, hash, "original") }
        return hash
    }

    public func write(_ bytes: [UInt8], _ hash: String, _ name: String) throws {
        try FileManager.default.createDirectory(at: folder(hash), withIntermediateDirectories: true)
        let tmp = root.appendingPathComponent("tmp").appendingPathComponent(UUID().uuidString)
        try Data(bytes).write(to: tmp)
        let target = url(hash, name)
        if FileManager.default.fileExists(atPath: target.path) { try? FileManager.default.removeItem(at: tmp); return }
        try FileManager.default.moveItem(at: tmp, to: target)
    }

    /// Moves a finished temporary file (an upload streamed to disk) to its content address.
    public func adopt(temporary: URL, hash: String) throws {
        try FileManager.default.createDirectory(at: folder(hash), withIntermediateDirectories: true)
        let target = url(hash, "original")
        if FileManager.default.fileExists(atPath: target.path) { try? FileManager.default.removeItem(at: temporary); return }
        try FileManager.default.moveItem(at: temporary, to: target)
    }

    public func temporaryURL() -> URL { root.appendingPathComponent("tmp").appendingPathComponent(UUID().uuidString) }

    public func read(_ hash: String, _ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url(hash, name)))
    }

    public func remove(_ hash: String) { try? FileManager.default.removeItem(at: folder(hash)) }
}
