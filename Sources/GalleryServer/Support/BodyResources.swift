import Synchronization

/// What an answer's body holds until it is sent — a live subscription and its tasks, a temporary
/// zip — released exactly once: by the body when it ends, or, when the answer is dropped unsent,
/// by ARC as the body's closure goes. Hummingbird never runs a body whose head it could not write
/// (the client went away while the handler ran), and a HEAD drops the body unrun: a `defer` in the
/// body alone leaked the subscription (and its stream's buffer, growing with every version) or the
/// zip each time.
final class BodyResources: Sendable {
    private let cleanup: Mutex<(@Sendable () -> Void)?>

    init(_ cleanup: @escaping @Sendable () -> Void) { self.cleanup = Mutex(cleanup) }

    func release() {
        let release = cleanup.withLock { held -> (@Sendable () -> Void)? in
            defer { held = nil }
            return held
        }
        release?()
    }

    deinit { release() }
}
