import Testing
import Foundation
import GridEngine
import GalleryCore
@testable import GalleryStore
import StoreTestSupport

/// Issue 15's limit (session 15): windows that lost the network together come back at the same
/// version at once, and each live stream starts with the catch-up from there in chained parts.
@Suite struct SharedCatchUpTests {
    /// Ten streams at one old version get the same chained parts, made once on the writer's queue
    /// for all ten (the parts' stages are one storage, not ten copies), with the data of the items
    /// each part inserts — and together they are `changes(since:)`'s stages, replaying to now.
    @Test(arguments: Backend.tested) func tenStreamsBackAtOneVersionShareOneCatchUp(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let (g, sections) = try await makeGallery(store, sections: 3, perSection: 20)
        let start = try await store.snapshot(g.id)
        let ids = start.sections.flatMap(\.items).map(\.id)
        let versions = 2 * GalleryStore.streamCatchUpVersions + 88
        for k in 0..<versions {
            let to = Destination.index(section: sections[k % 3], index: 1)
            _ = try await store.apply(gallery: g.id, k % 100 == 50 ? [.copy(items: [ids[k % ids.count]], to: to)] : [.move(items: [ids[(7 * k) % ids.count]], to: to)])
        }
        let now = try await store.snapshot(g.id)
        #expect(now.version == start.version + Int64(versions))

        let streams = try await withThrowingTaskGroup(of: (AsyncStream<GalleryEvent>, @Sendable () -> Void).self) { group in
            for _ in 0..<10 { group.addTask { try await store.subscribe(gallery: g.id, since: start.version) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        var received: [[ChangesJSON]] = []
        for (stream, cancel) in streams {
            var parts: [ChangesJSON] = []
            for await event in stream {
                guard case let .changes(c) = event else { Issue.record("\(event) where changes were expected"); break }
                parts.append(c)
                if c.toVersion == now.version { break }
            }
            cancel()
            received.append(parts)
        }
        let parts = received[0]
        let cut = Int64(GalleryStore.streamCatchUpVersions)
        #expect(parts.map(\.fromVersion) == [start.version, start.version + cut, start.version + 2 * cut])
        #expect(parts.map(\.toVersion) == [start.version + cut, start.version + 2 * cut, now.version])
        #expect(received.allSatisfy { $0 == parts })
        // Made once: every stream's part holds the same stages array, not a copy of it.
        func storage(_ c: ChangesJSON) -> UnsafeRawPointer? { c.stages.withUnsafeBufferPointer { $0.baseAddress.map(UnsafeRawPointer.init) } }
        for k in parts.indices {
            #expect(Set(received.map { storage($0[k]) }).count == 1, "part \(k) made more than once")
        }
        // What the parts carry: each copy's new item with its data, the sections and the name now.
        let whole = try #require(try await store.changes(gallery: g.id, since: start.version))
        #expect(parts.flatMap(\.stages) == whole.stages)
        #expect(parts.flatMap(\.items) == whole.items)
        #expect(parts.allSatisfy { $0.sections == whole.sections && $0.name == whole.name })
        #expect(whole.items.count == versions / 100 + (versions % 100 > 50 ? 1 : 0))
        for part in parts {
            let inserted = Set(part.stages.flatMap(\.itemInserts).map { Int64($0.id) })
            #expect(Set(part.items.map(\.id)) == inserted)
        }
        var s = try Snapshot(gallery: start)
        for part in parts { try replay(part, on: &s) }
        #expect(s == (try Snapshot(gallery: now)))
    }
}
