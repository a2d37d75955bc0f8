import Testing
import Foundation
@testable import GalleryStore

/// A new data folder is the server's own (0700): its database holds the accounts' second factors
/// (the attacker review of session 27 read them under umask 022). An existing one keeps its mode.
@Suite struct DataFolderTests {
    @Test func aNewDataFolderIsReadableByItsOwnerOnly() async throws {
        let parent = storeTestRoot.appendingPathComponent(UUID().uuidString)
        let folder = parent.appendingPathComponent("gallery-data")
        let store = try GalleryStore(folder: folder)
        try store.close()
        let mode = try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int
        #expect(mode == 0o700, "\(String(mode ?? -1, radix: 8))")

        let shared = parent.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
        let again = try GalleryStore(folder: shared)
        try again.close()
        #expect(try FileManager.default.attributesOfItem(atPath: shared.path)[.posixPermissions] as? Int == 0o750)
    }
}
