import Foundation
import Testing
import Hummingbird
import HummingbirdTesting
import GalleryCore
import GalleryStore
import GalleryServer
import Imaging

/// Items left pending by a stopped process: stored uploads are thumbnailed, URLs fetched again,
/// and a placeholder with nothing to go on fails with a reason.
@Suite struct ResumeTests {
    @Test func pendingItemsFromAnInterruptedRunAreSettledOnStart() async throws {
        let images = try await TestImageServer.start()
        defer { Task { await images.stop() } }
        let configuration = testConfiguration()
        // The state a crash leaves: rows committed, no background work done.
        let store = try GalleryStore(folder: configuration.dataFolder)
        let g = try await store.createGallery(name: "Interrupted")
        let section = try await store.snapshot(g.id).sections[0].id
        let jpeg = try SampleImages.jpeg(width: 320, height: 240, red: 90, green: 90, blue: 200, title: "Stored")
        let hash = try store.files.storeOriginal(jpeg)
        let created = try await store.apply(gallery: g.id, [.insert([
            NewItem(title: "uploaded", fileHash: hash),
            NewItem(title: "dropped", sourceURL: "\(images.base)/good.jpg"),
            NewItem(title: "lost"),
        ], at: .end(section: section))], payload: "crash").createdItems

        let server = try await GalleryServer(configuration: configuration, logger: quietLogger)
        try await server.test(.router) { client in
            let settled = try await created.asyncMap { try await client.settled($0) }
            #expect(settled.map(\.state) == [.ready, .ready, .failed], "\(settled.map { $0.reason ?? "" })")
            #expect(settled[0].width == 320 && settled[1].width == 300)
            #expect(settled[2].reason == "interrupted before the file was stored")
        }
    }
}
