import Foundation
import Synchronization

#if os(Linux)
/// glibc's thread names (GNU extensions, which the Glibc module does not bring in).
@_silgen_name("pthread_setname_np") private func setThreadName(_ thread: pthread_t, _ name: UnsafePointer<CChar>) -> Int32
@_silgen_name("pthread_getname_np") private func getThreadName(_ thread: pthread_t, _ name: UnsafeMutablePointer<CChar>, _ size: Int) -> Int32
#endif

/// A thread of its own that runs work one piece after another, optionally at a lower CPU
/// priority; also a task executor, so that a task started with it as its executor preference
/// runs its synchronous parts here, not on the threads that serve requests.
///
/// The columns cache's work at a million items is long and synchronous: bringing the columns up
/// to date and encoding them (~100–200 ms), compressing the body (zstd ~50 ms, gzip ~1 s). On
/// Swift's shared threads (and a dispatch queue's, at the priority of requests) it took a core
/// of the machine's two from the requests for that long (BENCHMARKS.md, session 17).
final class WorkerThread: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [() -> Void] = [] // guarded by `condition`
    /// The thread's name as the system shows it (`top -H`, /proc/PID/task/*/comm).
    let name: String
    /// The thread's nice value (Linux: a property of each thread), nil to keep the process's.
    let nice: Int32?

    init(name: String, nice: Int32?) {
        self.name = name
        self.nice = nice
        Thread { [self] in loop() }.start()
    }

    private func loop() {
        #if os(Linux)
        _ = setThreadName(pthread_self(), name) // at most 15 bytes
        if let nice {
            // PRIO_PROCESS with id 0 names the calling thread only (setpriority(2), "Bugs").
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice)
        }
        #endif
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }

    /// Runs `job` on this thread after what was handed to it before.
    func run(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        run { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// The calling thread's name as the system knows it ("" when it has none).
func currentThreadName() -> String {
    #if os(Linux)
    var buffer = [CChar](repeating: 0, count: 64)
    guard getThreadName(pthread_self(), &buffer, buffer.count) == 0 else { return "" }
    return String(cString: buffer)
    #else
    return Thread.current.name ?? ""
    #endif
}
