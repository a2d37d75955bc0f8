import Foundation

/// Waiting for a child process from a test without holding a thread of Swift's concurrency pool.
///
/// Every test of a run shares that pool, and on two cores it has two threads: a test blocked in
/// `waitUntilExit()` or `readDataToEndOfFile()` while a `gallery` command runs for seconds takes
/// half of it from every other test (their in-process servers answer on it too), and two such
/// waits on something that never ends stop the whole run.
extension Process {
    /// Returns once the process has ended (Foundation's own watcher sets `isRunning`), polling;
    /// with a deadline, at the latest then. Answers whether it ended.
    @discardableResult
    public func exited(before deadline: ContinuousClock.Instant? = nil) async -> Bool {
        while isRunning {
            if let deadline, ContinuousClock.now >= deadline { return false }
            do { try await Task.sleep(for: .milliseconds(10)) } catch { usleep(10_000) } // cancelled: poll on
        }
        return true
    }

    /// Runs `executable` with `arguments` to its end; answers its status and what it printed on
    /// standard output and error together. The output goes through a file, not a pipe, so nothing
    /// that outlives the process (a daemon it started) keeps the wait from ending. Still running
    /// after `limit`, it is sent SIGTERM (its reason then says so: `.uncaughtSignal`).
    public static func outcome(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                               limit: Duration? = nil) async throws -> (status: Int32, reason: TerminationReason, output: String)
    {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("process-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: file) }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        let p = Process()
        p.executableURL = executable
        p.arguments = arguments
        if let environment { p.environment = environment }
        p.standardOutput = handle
        p.standardError = handle
        try p.run()
        if let limit, await !p.exited(before: .now + limit) { p.terminate() }
        await p.exited()
        let output = String(decoding: (try? Data(contentsOf: file)) ?? Data(), as: UTF8.self)
        return (p.terminationStatus, p.terminationReason, output)
    }
}
