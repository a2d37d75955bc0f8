import Foundation
import Synchronization
import Testing
@testable import GalleryServer

/// `LookupCache` (the identities and roles of `AccessControl`): one load a key at a time, the next
/// begun in the background while an entry holds, nothing answered from an entry past its lifetime
/// (counted from when its load began), nothing stored by a load that an invalidation overtook.
@Suite struct LookupCacheTests {
    /// A clock the test moves by hand.
    final class FakeClock: Sendable {
        let start = ContinuousClock.now
        private let offset = Mutex<Duration>(.zero)
        func advance(to d: Duration) { offset.withLock { $0 = d } }
        var now: ContinuousClock.Instant { start + offset.withLock { $0 } }
    }

    /// A load held until the test opens it.
    final class Gate: Sendable {
        private let open = Atomic<Bool>(false)
        func release() { open.store(true, ordering: .releasing) }
        func wait() async { while !open.load(ordering: .acquiring) { try? await Task.sleep(for: .milliseconds(1)) } }
    }

    struct Refused: Error {}

    final class Counter: Sendable {
        private let n = Atomic<Int>(0)
        func add() { n.add(1, ordering: .relaxed) }
        var value: Int { n.load(ordering: .relaxed) }
    }

    func cache(_ clock: FakeClock, capacity: Int = 10_000) -> LookupCache<String> {
        LookupCache(lifetime: .seconds(1), refreshAhead: .milliseconds(500), capacity: capacity, clock: { clock.now })
    }

    @Test func requestsThatMissTogetherShareOneLoad() async throws {
        let clock = FakeClock(), c = cache(clock)
        let asked = Counter()
        let answers = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    asked.add()
                    return try await c.value("t:key") {
                        // Held until all fifty have asked: each of them finds this load under way.
                        while asked.value < 50 { try await Task.sleep(for: .milliseconds(1)) }
                        return "ana"
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers == Array(repeating: "ana", count: 50))
        #expect(c.loadsStarted == 1)
    }

    @Test func aHitInTheEntrysLastHalfLoadsTheNextInTheBackground() async throws {
        let clock = FakeClock(), c = cache(clock)
        #expect(try await c.value("k") { "first" } == "first")
        // Half a second left or more: a hit, nothing loaded.
        clock.advance(to: .milliseconds(499))
        #expect(try await c.value("k") { Issue.record("loaded with 501 ms left"); return "x" } == "first")
        #expect(c.loadsStarted == 1)
        // Less: still answered from the entry, at once, while the next load runs (held here).
        clock.advance(to: .milliseconds(600))
        let gate = Gate()
        #expect(try await c.value("k") { await gate.wait(); return "second" } == "first")
        #expect(c.loadsStarted == 2)
        // Another hit meanwhile starts no second load.
        #expect(try await c.value("k") { Issue.record("a second load"); return "x" } == "first")
        gate.release()
        let background = try #require(c.loadUnderWay("k"))
        #expect(try await background.value == "second")
        // The new entry holds for a second from when its load began (600 ms): past the first's end.
        clock.advance(to: .milliseconds(1_050))
        #expect(try await c.value("k") { Issue.record("loaded although the new entry holds"); return "x" } == "second")
        #expect(c.loadsStarted == 2)
    }

    @Test func nothingIsAnsweredFromAnEntryPastItsLifetime() async throws {
        let clock = FakeClock(), c = cache(clock)
        // A slow load (300 ms): its entry holds for a second from when it began, not from its end.
        #expect(try await c.value("k") { clock.advance(to: .milliseconds(300)); return "old" } == "old")
        clock.advance(to: .milliseconds(999))
        let gate = Gate()
        #expect(try await c.value("k") { await gate.wait(); return "held" } == "old")   // the background load, held
        clock.advance(to: .seconds(1))
        // The entry has run out: the request waits for the load under way, never answered "old".
        let waiting = Task { try await c.value("k") { Issue.record("a second load"); return "x" } }
        try await Task.sleep(for: .milliseconds(20))
        gate.release()
        #expect(try await waiting.value == "held")
        #expect(c.loadsStarted == 2)
    }

    @Test func invalidationDropsEntriesAndWhatLoadsUnderWayFind() async throws {
        let clock = FakeClock(), c = cache(clock)
        #expect(try await c.value("a") { "before" } == "before")
        let gate = Gate()
        let early = Task { try await c.value("b") { await gate.wait(); return "read before the change" } }
        while c.loadUnderWay("b") == nil { try await Task.sleep(for: .milliseconds(1)) }
        c.invalidate()
        // After it, neither the entry nor the load under way is used.
        #expect(try await c.value("a") { "after" } == "after")
        #expect(try await c.value("b") { "read after the change" } == "read after the change")
        gate.release()
        #expect(try await early.value == "read before the change")   // asked before the change
        // The early load stored nothing over the later one.
        #expect(try await c.value("b") { Issue.record("loaded again"); return "x" } == "read after the change")
        #expect(c.loadsStarted == 4)
    }

    @Test func aFailedLoadReachesItsWaitersAndIsNotKept() async throws {
        let clock = FakeClock(), c = cache(clock)
        await #expect(throws: Refused.self) { try await c.value("k") { throw Refused() } }
        #expect(c.loadUnderWay("k") == nil)
        #expect(try await c.value("k") { "then" } == "then")
        #expect(c.loadsStarted == 2)
        // A background load that fails leaves the entry as it was; the next hit tries again.
        clock.advance(to: .milliseconds(700))
        #expect(try await c.value("k") { throw Refused() } == "then")
        if let t = c.loadUnderWay("k") { _ = try? await t.value }
        #expect(try await c.value("k") { "retried" } == "then")
        #expect(c.loadsStarted == 4)
        if let t = c.loadUnderWay("k") { _ = try? await t.value }
        // The retry's entry holds for a second from 700 ms.
        clock.advance(to: .milliseconds(1_100))
        #expect(try await c.value("k") { Issue.record("loaded while the entry holds"); return "x" } == "retried")
        #expect(c.loadsStarted == 4)
    }

    @Test func pastItsCapacityTheMapStartsOver() async throws {
        let clock = FakeClock(), c = cache(clock, capacity: 2)
        _ = try await c.value("a") { "a" }
        _ = try await c.value("b") { "b" }
        _ = try await c.value("c") { "c" }   // the map was full: emptied, then c
        #expect(try await c.value("c") { Issue.record("c loaded again"); return "x" } == "c")
        #expect(try await c.value("a") { "a2" } == "a2")
        #expect(c.loadsStarted == 4)
    }
}
