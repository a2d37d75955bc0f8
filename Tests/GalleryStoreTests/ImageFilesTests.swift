import Foundation
import Testing
@testable import GalleryStore

/// The content-addressed images folder shared by several instances (docs/storage.md).
@Suite struct ImageFilesTests {
    /// Instances (here: ImageFiles values on one folder, on threads at once) that write the same
    /// hash's file at the same moment all succeed, and the file is whole. Before the rename that
    /// replaces, a writer that found the file missing and then lost the race failed its move
    /// ("file exists") — an item would have failed with "could not write thumbnails".
    @Test func writersOfTheSameHashAtOnceAllSucceedAndTheFileIsWhole() throws {
        let root = storeTestRoot.appendingPathComponent("images-\(UUID().uuidString)")
        let instances = [try ImageFiles(root: root), try ImageFiles(root: root), try ImageFiles(root: root), try ImageFiles(root: root)]
        let bytes = (0..<2_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let hash = ContentHash.hex(bytes)
        let failures = LockedList()
        for _ in 0..<400 {
            try? FileManager.default.removeItem(at: instances[0].folder(hash))
            DispatchQueue.concurrentPerform(iterations: 12) { i in
                do { try instances[i % instances.count].write(bytes, hash, "grid.jpg") } catch { failures.append("\(error)") }
            }
            #expect(try instances[1].read(hash, "grid.jpg") == bytes)
        }
        #expect(failures.items.isEmpty, "\(failures.items.count) writes failed, e.g. \(failures.items.first ?? "")")
        // Nothing left behind in tmp/ by the writers.
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("tmp").path).isEmpty)
    }

    @Test func temporaryNamesAreThisProcesssAndNeverRepeat() throws {
        let files = try ImageFiles(root: storeTestRoot.appendingPathComponent("images-\(UUID().uuidString)"))
        let names = (0..<1000).map { _ in files.temporaryURL().lastPathComponent }
        #expect(Set(names).count == 1000)
        #expect(names.allSatisfy { $0.hasPrefix("\(getpid())-") })
    }
}

final class LockedList: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func append(_ s: String) { lock.lock(); list.append(s); lock.unlock() }
    var items: [String] { lock.lock(); defer { lock.unlock() }; return list }
}
