import Synchronization

/// Lookups (a credential's identity, an account's role in a gallery) kept for at most `lifetime`
/// from when the load that found them began, shared by every request that asks meanwhile.
///
/// Two things the plain map it replaces did under load (issue 15.3, BENCHMARKS.md "Session 33"):
/// when an entry ran out, every request in flight with that key missed it together and each read
/// the database itself (50 clients moving with one token: ~150 reads at once, once a second, and
/// those requests waited for them: the step in the move latency between p98 and p99); and the
/// request that found an entry gone waited for its load. Here one load runs for a key at a time
/// and every request that misses meanwhile waits for that one; and a hit in the last
/// `refreshAhead` of the entry's lifetime starts its next load in the background, so under a steady
/// stream of requests none waits for one. What a request is answered from is never older than
/// before: the entry it reads was loaded at most `lifetime` before (its load began then).
///
/// `invalidate()` (access taken away) drops every entry and forgets the loads under way: a
/// request after it starts a new load, and a load begun before it stores nothing.
final class LookupCache<Value: Sendable>: Sendable {
    typealias Clock = @Sendable () -> ContinuousClock.Instant

    private struct Entry {
        var value: Value
        var until: ContinuousClock.Instant
    }

    private struct Load {
        var task: Task<Value, any Error>
        var id: Int
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var loads: [String: Load] = [:]
        var generation = 0
        var nextLoad = 0
    }

    private let state = Mutex(State())
    let lifetime: Duration
    let refreshAhead: Duration
    /// Past this many entries the map is emptied (a flood of unknown tokens must not grow it).
    let capacity: Int
    private let clock: Clock
    /// Loads started (for tests and benchmarks).
    private let started = Atomic<Int>(0)

    init(lifetime: Duration, refreshAhead: Duration, capacity: Int = 10_000,
         clock: @escaping Clock = { ContinuousClock.now }) {
        precondition(refreshAhead < lifetime, "refreshAhead must be shorter than lifetime")
        self.lifetime = lifetime
        self.refreshAhead = refreshAhead
        self.capacity = capacity
        self.clock = clock
    }

    var loadsStarted: Int { started.load(ordering: .relaxed) }

    /// The load of `key` under way, if any (tests wait for a background one with it).
    func loadUnderWay(_ key: String) -> Task<Value, any Error>? { state.withLock { $0.loads[key]?.task } }

    /// The value for `key`: a live entry, or the result of the load under way for it, or of a new one.
    func value(_ key: String, load: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let now = clock()
        let step: (hit: Value?, wait: Task<Value, any Error>?) = state.withLock { s in
            if let e = s.entries[key], e.until > now {
                if e.until - now <= refreshAhead && s.loads[key] == nil { _ = startLoad(key, &s, load) }
                return (e.value, nil)
            }
            return (nil, s.loads[key]?.task ?? startLoad(key, &s, load))
        }
        if let hit = step.hit { return hit }
        return try await step.wait!.value
    }

    /// Drops every entry; loads under way store nothing.
    func invalidate() {
        state.withLock { s in
            s.entries.removeAll()
            s.loads.removeAll()
            s.generation += 1
        }
    }

    /// A load of `key` registered under the lock; it stores what it finds, valid for `lifetime` from
    /// now (its start), unless `invalidate()` came meanwhile.
    private func startLoad(_ key: String, _ s: inout State, _ load: @escaping @Sendable () async throws -> Value) -> Task<Value, any Error> {
        let generation = s.generation, begun = clock()
        s.nextLoad += 1
        let id = s.nextLoad
        started.add(1, ordering: .relaxed)
        let task = Task<Value, any Error> {
            do {
                let value = try await load()
                finish(key, id: id, generation: generation, store: Entry(value: value, until: begun + lifetime))
                return value
            } catch {
                finish(key, id: id, generation: generation, store: nil)
                throw error
            }
        }
        s.loads[key] = Load(task: task, id: id)
        return task
    }

    private func finish(_ key: String, id: Int, generation: Int, store entry: Entry?) {
        state.withLock { s in
            if s.loads[key]?.id == id { s.loads[key] = nil }
            guard let entry, s.generation == generation else { return }
            if s.entries[key] == nil && s.entries.count >= capacity { s.entries.removeAll() }
            s.entries[key] = entry
        }
    }
}
