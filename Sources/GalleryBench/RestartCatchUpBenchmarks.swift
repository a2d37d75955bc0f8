import Foundation
import GridEngine
import GalleryCore
import GalleryStore

/// Windows that reconnect at an old version right after a restart (issue 15, session 15): the
/// history they reach into was rebuilt from SQLite and is checked by replaying it from the
/// checkpoint below to the one after. A gallery of `--items` takes `--versions` single moves, the
/// store is closed, and each row is a fresh restart with `--windows` catch-ups from the same old
/// version at once: the time to the first answer and to the last, the replays run, and the worst
/// wait of a trivial task on Swift's shared threads meanwhile (what /api/health waits for) —
/// now (in place, one check for all, on a queue of its own) beside before (each its own replay,
/// a new snapshot per stage, on the shared threads), on the same rows in the same run.
func runRestartCatchUpBenchmark(_ o: BenchOptions) async throws {
    let versions = o.number("--versions") ?? 2_000
    let windows = o.number("--windows") ?? 10
    let baselineWindows = o.number("--baseline-windows") ?? windows
    let inPlaceWindows = o.number("--in-place-windows") ?? windows
    let rounds = o.rounds
    print("")
    print("### A catch-up right after a restart: \(o.items) items in \(o.sections) sections, \(versions) single moves")
    let folder = temporaryFolder("restart-catchup")
    defer { try? FileManager.default.removeItem(at: folder) }
    let first = try GalleryStore(folder: folder)
    let per = o.items / o.sections
    let (gallery, _) = try await first.importGallery(name: "Bench", sections: benchSections(o.sections, per: per))
    let start = try await first.snapshot(gallery.id)
    let sectionIds = start.sections.map(\.id)
    let itemIds = start.sections.flatMap { $0.items.map(\.id) }
    var rng = SystemRandomNumberGenerator()
    for _ in 0..<versions {
        let id = itemIds.randomElement(using: &rng)!, section = sectionIds.randomElement(using: &rng)!
        _ = try await first.apply(gallery: gallery.id, [.move(items: [id], to: .index(section: section, index: Int.random(in: 0..<(per / 2), using: &rng)))])
    }
    let old = start.version + 5
    let now = try await first.snapshot(gallery.id).version
    try first.close()
    print("")
    print("Checkpoint every \(GalleryStore.historyCheckpointInterval(itemCount: o.items)) versions; the windows are at version \(old), now is \(now).")
    print("")
    print("| check | windows at once | load (the first request after the restart) | first answer after it | all answered | replays | stages sent | worst wait of a task on the shared threads meanwhile |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for _ in 0..<rounds {
    for (name, mode, count) in [("now: SnapshotReplay (arrays + id → section), one for all, own queue", 0, windows),
                                 ("session 15: Snapshot in place (applyInPlace), one for all, own queue", 1, inPlaceWindows),
                                 ("before session 15: new snapshot per stage, each its own, shared threads", 2, baselineWindows)] where count > 0 {
        GalleryStore.setHistoryCheckBaseline(mode == 2)
        GalleryStore.setHistoryCheckInPlaceSnapshot(mode == 1)
        let store = try GalleryStore(folder: folder) // a restart: the window is rebuilt from SQLite
        // The first request after the restart loads the gallery (its rows, the window rebuilt from
        // the log and checkpoints, the newest stretch replayed on the writer's queue): a catch-up
        // from now, which needs no history check. (Before session 16 this was `snapshot`, which
        // reads the rows but does not load the gallery: the load was inside "first answer".)
        let loading = nowSeconds()
        _ = try await store.changes(gallery: gallery.id, since: now)
        let loaded = nowSeconds() - loading
        let checksBefore = store.historyCheckCount
        let probe = SharedThreadsProbe()
        let t0 = nowSeconds()
        let finished = try await withThrowingTaskGroup(of: (Double, Int).self) { group in
            for _ in 0..<count {
                group.addTask {
                    let c = try await store.changes(gallery: gallery.id, since: old)
                    return (nowSeconds() - t0, c?.stages.count ?? -1)
                }
            }
            var out: [(Double, Int)] = []
            for try await r in group { out.append(r) }
            return out.sorted { $0.0 < $1.0 }
        }
        let worst = probe.stop()
        let stages = Set(finished.map(\.1)).map(String.init).joined(separator: ", ")
        print("| \(name) | \(count) | \(ms(loaded)) | \(ms(finished.first!.0)) | \(ms(finished.last!.0)) | \(store.historyCheckCount - checksBefore) | \(stages) | \(ms(worst)) |")
        try store.close()
    }
    }
    GalleryStore.setHistoryCheckBaseline(false)
    GalleryStore.setHistoryCheckInPlaceSnapshot(false)
}

/// Every 5 ms, from a thread of its own (outside Swift's shared threads, so it measures even
/// while they are all busy), the time a trivial task takes to start on the shared threads: what
/// a request like /api/health waits for. `stop()` gives the worst.
final class SharedThreadsProbe: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    private var worst = 0.0
    private let done = DispatchSemaphore(value: 0)

    init() {
        let thread = Thread { [self] in
            while true {
                lock.lock(); let stop = stopped; lock.unlock()
                if stop { break }
                let started = DispatchSemaphore(value: 0)
                let t = nowSeconds()
                Task.detached { started.signal() }
                started.wait()
                let waited = nowSeconds() - t
                lock.lock(); worst = max(worst, waited); lock.unlock()
                usleep(5_000)
            }
            done.signal()
        }
        thread.start()
    }

    func stop() -> Double {
        lock.lock(); stopped = true; lock.unlock()
        done.wait()
        lock.lock(); defer { lock.unlock() }
        return worst
    }
}
