import Foundation
import Hummingbird
import GalleryCore
import GalleryStore

/// Batches of arrangement operations, each applied atomically, and catch-up diffs.
struct BatchRoutes {
    let server: GalleryServer
    var store: GalleryStore { server.store }

    struct BatchBody: Decodable {
        var baseVersion: Int64?
        var operations: [BatchEdit]
    }

    func register(_ api: RouterGroup<GalleryRequestContext>) {
        api.post("galleries/:gallery/batch") { request, context in
            let gallery = try context.gallery
            let body = try await JSONIO.decode(BatchBody.self, from: request, limit: server.configuration.maxJSONBytes,
                                               fast: BatchFastPath.singleMove)
            // Operations that name no item (sections made, renamed, moved, deleted) still each take
            // the writer's time: 30,000 section creations in one batch held every gallery's writes
            // for 30 s (the attacker review of session 27). A batch holds at most as many
            // operations as it may name items.
            guard body.operations.count <= server.configuration.maxBatchItems else {
                throw APIError(.contentTooLarge, "a batch may hold at most \(server.configuration.maxBatchItems) operations; "
                               + "this one holds \(body.operations.count): send it in parts",
                               extra: ["maxOperations": .number(Double(server.configuration.maxBatchItems))])
            }
            let named = body.operations.reduce(0) { $0 + $1.itemCount }
            // Smaller in a very big gallery (its count from memory; looked at only when a batch
            // names more than the smallest limit there is, or deletes a section).
            let configuration = server.configuration
            var limit = configuration.maxBatchItems
            let deletesSection = body.operations.contains { if case .deleteSection = $0 { true } else { false } }
            if named > configuration.batchLimit(itemCount: .max) || deletesSection {
                limit = configuration.batchLimit(itemCount: try await store.liveItemCount(gallery: gallery))
            }
            guard named <= limit else {
                throw APIError(.contentTooLarge, "a batch may name at most \(limit) items; this one names \(named): send it in parts",
                               extra: ["maxItems": .number(Double(limit))])
            }
            do {
                // A section deleted names its live items (they all go to the trash: at 1M items on
                // PostgreSQL a section of 10,000 held the writer ~70 ms): counted by the store in
                // the batch's transaction, from the live arrangement (O(1) a section).
                let result = try await store.apply(gallery: gallery, baseVersion: body.baseVersion, body.operations,
                                                   maxItems: deletesSection ? limit : nil)
                GalleryMetrics.batches.increment()
                // Copies of pending items load on their own; files nobody refers to any more go.
                for id in result.createdItems {
                    guard let item = result.changes.items.first(where: { $0.id == id }), item.state == .pending else { continue }
                    if let hash = item.fileHash {
                        server.ingestor.enqueue(.process(item: id, hash: hash))
                    } else if let url = item.sourceURL {
                        server.ingestor.enqueue(.fetch(item: id, url: url))
                    }
                }
                for hash in result.orphanedHashes { store.files.remove(hash) }
                if let json = BatchFastPath.answer(result) { return JSONIO.response(json: json) }
                return try JSONIO.response(result)
            } catch let StoreError.stale(base, current) {
                // A stale client gets what changed since its version, so it can rebase without a reload.
                var extra: [String: JSONValue] = ["baseVersion": .number(Double(base)), "currentVersion": .number(Double(current))]
                if let changes = try await store.changes(gallery: gallery, since: base) {
                    extra["changes"] = try JSONDecoder().decode(JSONValue.self, from: JSONIO.encoder.encode(changes))
                }
                throw APIError(.conflict, StoreError.stale(baseVersion: base, currentVersion: current).message, extra: extra)
            }
        }
        api.get("galleries/:gallery/changes") { request, context in
            let gallery = try context.gallery
            guard let text = request.uri.queryParameters.get("since"), let since = Int64(text) else {
                throw APIError(.badRequest, "query parameter \"since\" (a version number) is required")
            }
            let current = try await store.gallery(gallery).version
            guard since >= 0 && since <= current else {
                throw APIError(.unprocessableContent, "since \(since) is out of range 0...\(current)")
            }
            if let changes = try await store.changes(gallery: gallery, since: since) {
                // Written without JSONEncoder (10,000 versions at 1M items: 7.9 MB, ~1 s through it).
                let text = try await server.catchUpBodies.body(gallery: gallery, changes).json
                var body = ByteBuffer()
                body.reserveCapacity(text.readableBytes + 12)
                body.writeString("{\"changes\":")
                body.writeImmutableBuffer(text)
                body.writeString("}")
                return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: body))
            }
            let info = try await store.gallery(gallery)
            if info.itemCount > server.configuration.maxSnapshotFallbackItems {
                return try JSONIO.response(ChangesOrSnapshot(reload: .init(version: info.version)))
            }
            return try JSONIO.response(ChangesOrSnapshot(changes: nil, snapshot: try await store.snapshot(gallery)))
        }
    }
}

/// `changes` when the old version is within the window, else the full `snapshot` — or, for a
/// gallery over `maxSnapshotFallbackItems`, `reload` (read the gallery's columns again).
struct ChangesOrSnapshot: Codable {
    struct Reload: Codable { var version: Int64 }
    var changes: ChangesJSON?
    var snapshot: GallerySnapshotJSON?
    var reload: Reload?
}
