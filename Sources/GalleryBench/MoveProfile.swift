import Foundation
import GalleryCore
import GalleryStore
import GalleryServer

/// `gallery-bench serve-moves --data DIR [--items N --sections S] [--port P] [--seed-only | --wrk-script FILE]`: the
/// move benchmark's gallery and server, for profiling one move at a time (`scripts/profile-moves.sh`
/// runs it, drives sequential moves from another process and reads the server's CPU time per move).
///
/// An empty `DIR` is seeded first (N items in S sections, an admin "bench" with the API token
/// `gat_bench_token` and the session cookie value `bench-session`); with `--seed-only` it stops
/// there; with `--wrk-script FILE` it writes the move benchmark's wrk script for that gallery (bearer
/// token) to FILE and stops. Otherwise the real server (the same `BenchServer` as `move`) serves `DIR` on
/// 127.0.0.1:P, prints one line `base=URL gallery=G first=ID count=N sections=A,B,…` when it
/// listens, and runs until the process is killed.
func runServeMoves(_ o: BenchOptions) async throws {
    guard let data = o.text("--data") else {
        FileHandle.standardError.write(Data("usage: gallery-bench serve-moves --data DIR [--items N --sections S] [--port P] [--seed-only]\n".utf8))
        exit(2)
    }
    let folder = URL(fileURLWithPath: data)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    if o.has("--batches-per-transaction") { GalleryStore.batchesPerTransaction = o.batchesPerTransaction[0] }
    if let frames = o.walRestartFrames.first { GalleryStore.walRestartFrames = Int32(frames) }
    do {
        let store = try GalleryStore(folder: folder)
        if try await store.listGalleries().isEmpty {
            let per = o.items / o.sections
            let sections = benchSections(o.sections, per: per)
            let (gallery, _) = try await store.importGallery(name: "Bench", sections: sections)
            let owner = try await store.createAccount(name: "bench", passwordHash: try await Secrets.hashPassword("bench password"),
                                                      admin: true, onlyIfFirst: true)
            _ = try await store.createToken(account: owner.id, name: "bench", scope: .write, tokenHash: Secrets.digest("gat_bench_token"))
            try await store.createSession(idHash: Secrets.digest("bench-session"), owner: .account(owner.id))
            try await store.adoptOwnerlessGalleries()
            FileHandle.standardError.write(Data("seeded gallery \(gallery.id): \(gallery.itemCount) items\n".utf8))
        }
        try store.close()
    }
    if o.has("--seed-only") { return }
    if let path = o.text("--wrk-script") {
        // The move benchmark's wrk script for this gallery (bearer token), written and done: for
        // scripts/ab-moves.sh, which serves the same seeded gallery with several builds.
        let store = try GalleryStore(folder: folder)
        let (gallery, first, count, sections) = try await servedGallery(store, data)
        let script = movesScript(headers: ["Authorization": "Bearer gat_bench_token"], first: first, count: count,
                                 sections: sections, per: o.items / o.sections, gallery: gallery)
        try store.close()
        try Data(script.utf8).write(to: URL(fileURLWithPath: path))
        return
    }
    let port = o.number("--port") ?? 18_500
    let running = try await BenchServer.start(folder: folder, portBase: port, randomPort: false)
    let store = running.server.store
    let (gallery, first, count, sections) = try await servedGallery(store, data)
    let line = "base=\(running.base) gallery=\(gallery) first=\(first) count=\(count) per=\(o.items / o.sections) "
        + "sections=\(sections.map(String.init).joined(separator: ","))\n"
    FileHandle.standardOutput.write(Data(line.utf8))
    while true { try await Task.sleep(for: .seconds(3600)) }
}

/// The seeded gallery as the move benchmark's requests name it: its id, its first item id, its item count, its sections.
private func servedGallery(_ store: GalleryStore, _ data: String) async throws -> (gallery: Int64, first: Int64, count: Int, sections: [Int64]) {
    guard let gallery = try await store.listGalleries().first else { throw BenchFailure("no gallery in \(data)") }
    let snapshot = try await store.snapshot(gallery.id)
    let itemIds = snapshot.sections.flatMap { $0.items.map(\.id) }
    return (gallery.id, itemIds.min()!, itemIds.count, snapshot.sections.map(\.id))
}
