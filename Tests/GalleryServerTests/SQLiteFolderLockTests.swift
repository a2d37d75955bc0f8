import Foundation
import Testing
import AsyncHTTPClient

/// One server per SQLite data folder (the attacker review of session 27: a second `gallery serve`
/// on the same folder ran, each process with live galleries of its own, so each answered from a
/// stale copy of what the other wrote). The second is refused with a clear line; the first goes
/// on; once the first is gone, however it ended, the folder is free again.
@Suite struct SQLiteFolderLockTests {
    @Test func aSecondServerOnTheSameSQLiteFolderIsRefused() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: CrashRecoveryTests.binary.path), "build the gallery product first (swift build)")
        let data = testFolder("lock")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try await seedOwner(folder: data)
        let port = CrashRecoveryTests.freePort()
        let first = try CrashRecoveryTests.spawn(data: data, port: port)
        defer { if first.isRunning { kill(first.processIdentifier, SIGKILL); first.waitUntilExit() } }
        try await CrashRecoveryTests.waitReady(port)

        let second = try CrashRecoveryTests.spawn(data: data, port: CrashRecoveryTests.freePort(), log: "second.log")
        let clock = ContinuousClock(), deadline = clock.now + .seconds(30)
        while second.isRunning && clock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        if second.isRunning { kill(second.processIdentifier, SIGKILL) }
        second.waitUntilExit()
        #expect(second.terminationStatus == 1)
        let log = (try? String(contentsOf: data.appendingPathComponent("second.log"), encoding: .utf8)) ?? ""
        #expect(log.contains("another gallery server") && log.contains("\(first.processIdentifier)") && log.contains("PostgreSQL"), "\(log)")
        // The first one still answers.
        let r = try await HTTPClient.shared.execute(CrashRecoveryTests.authorized("http://127.0.0.1:\(port)/api/galleries"), timeout: .seconds(10))
        #expect(r.status == .ok)

        // Killed (no chance to clean up): the kernel drops the lock, and the next server starts.
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        let thirdPort = CrashRecoveryTests.freePort()
        let third = try CrashRecoveryTests.spawn(data: data, port: thirdPort, log: "third.log")
        defer { if third.isRunning { kill(third.processIdentifier, SIGKILL); third.waitUntilExit() } }
        try await CrashRecoveryTests.waitReady(thirdPort)
        #expect(third.isRunning)
    }
}
