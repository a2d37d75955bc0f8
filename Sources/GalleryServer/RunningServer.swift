import Foundation
import GalleryStore
#if canImport(Glibc)
import Glibc
#endif

/// `server.json` in the data folder while `gallery serve` runs on it: where it answers and its
/// process id. `gallery import` reads it to send files through the running server's API (so
/// open windows see them arrive) instead of writing beside it. Written once the server listens,
/// removed when it stops; a file left by a killed server is recognised by its dead process id.
public struct RunningServer: Codable, Equatable, Sendable {
    /// Where this machine reaches the server: a loopback address when it listens on all of them.
    public var url: String
    public var pid: Int32

    public init(url: String, pid: Int32) { self.url = url; self.pid = pid }

    static func file(_ dataFolder: URL) -> URL { dataFolder.appendingPathComponent("server.json") }

    /// The server listening on `host`:`port` (the port it got, when asked for 0).
    public static func listening(host: String, port: Int) -> RunningServer {
        let reachable: String
        switch host {
        case "0.0.0.0", "": reachable = "127.0.0.1"
        case "::": reachable = "[::1]"
        default: reachable = host.contains(":") ? "[\(host)]" : host
        }
        return RunningServer(url: "http://\(reachable):\(port)", pid: getpid())
    }

    public func write(in dataFolder: URL) throws {
        // A new data folder does not exist yet while the server waits for PostgreSQL (the store,
        // which makes it, opens only once the database answers).
        try GalleryStore.makeDataFolder(dataFolder)
        let temporary = dataFolder.appendingPathComponent("server.json.\(pid)")
        try JSONEncoder().encode(self).write(to: temporary)
        _ = rename(temporary.path, Self.file(dataFolder).path)
    }

    /// Removes the marker if it is this process's.
    public static func remove(in dataFolder: URL) {
        if let found = read(dataFolder), found.pid == getpid() { try? FileManager.default.removeItem(at: file(dataFolder)) }
    }

    static func read(_ dataFolder: URL) -> RunningServer? {
        guard let data = try? Data(contentsOf: file(dataFolder)) else { return nil }
        return try? JSONDecoder().decode(RunningServer.self, from: data)
    }

    /// Holds the data folder's SQLite database for this process until it exits (`serve.lock`, an
    /// advisory lock the kernel drops when the process ends, however it ends). A second server on
    /// the same SQLite file would keep live galleries of its own and each would answer from a
    /// stale copy (the attacker review of session 27): refused with the first one's address. A
    /// server still stopping is waited for up to `wait`. Several instances share a gallery through
    /// PostgreSQL (`--database`), which takes no lock here.
    public static func claimSQLiteFolder(_ dataFolder: URL, wait: Duration = .seconds(3)) throws {
        try GalleryStore.makeDataFolder(dataFolder)
        let path = dataFolder.appendingPathComponent("serve.lock").path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FolderBusy(message: "cannot open \(path): \(String(cString: strerror(errno)))") }
        let deadline = ContinuousClock.now + wait
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, ContinuousClock.now < deadline else {
                let other = read(dataFolder).map { " (pid \($0.pid), \($0.url))" } ?? ""
                close(fd)
                throw FolderBusy(message: "another gallery server\(other) already serves the SQLite database in \(dataFolder.path): "
                                 + "stop it first; several instances share galleries through PostgreSQL (--database postgres://…)")
            }
            usleep(100_000)
        }
        // The descriptor stays open (and the lock held) until the process exits.
    }

    public struct FolderBusy: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// The server running on `dataFolder`, if its process is alive (a stale marker is ignored).
    public static func find(in dataFolder: URL) -> RunningServer? {
        guard let found = read(dataFolder), found.pid > 0, found.pid != getpid(),
              kill(found.pid, 0) == 0 || errno == EPERM else { return nil }
        return found
    }
}
