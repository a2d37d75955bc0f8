import Foundation
import AsyncHTTPClient
import NIOCore
import GridEngine
import GalleryCore

/// A real server-sent-events client over AsyncHTTPClient that replays the gallery stream onto
/// its own engine Snapshot, as the page will.
final class StreamReplayer: @unchecked Sendable {
    private let lock = NSLock()
    private var _snapshot: Snapshot
    private var _version: Int64
    private var _gaps: [String] = []
    private var _events = 0
    private var _kinds: [String] = []
    private var _lastData = ""
    private var _name: String
    private var task: Task<Void, Never>?

    init(start: GallerySnapshotJSON) throws {
        _snapshot = try Snapshot(gallery: start)
        _version = start.version
        _name = start.gallery.name
    }

    var snapshot: Snapshot { lock.withLock { _snapshot } }
    var version: Int64 { lock.withLock { _version } }
    var problems: [String] { lock.withLock { _gaps } }
    var eventCount: Int { lock.withLock { _events } }
    /// The kind of every event received, in order ("changes", "snapshot", "reload", "deleted").
    var kinds: [String] { lock.withLock { _kinds } }
    /// The data of the last event received.
    var lastData: String { lock.withLock { _lastData } }
    /// The gallery name as the stream last told it.
    var name: String { lock.withLock { _name } }

    /// Connects to `/api/galleries/:id/events?since=<version>` and applies events as they come.
    func connect(port: Int, gallery: Int64) {
        let since = version
        task = Task {
            do {
                var request = HTTPClientRequest(url: "http://localhost:\(port)/api/galleries/\(gallery)/events?since=\(since)")
                request.headers.add(name: "Accept", value: "text/event-stream")
                request.headers.add(name: "Authorization", value: testOwnerAuthorization)
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(300))
                var buffer = ""
                for try await chunk in response.body {
                    buffer += String(buffer: chunk)
                    while let end = buffer.range(of: "\n\n") {
                        let block = String(buffer[..<end.lowerBound])
                        buffer.removeSubrange(..<end.upperBound)
                        handle(block)
                    }
                }
            } catch {
                if !Task.isCancelled { lock.withLock { _gaps.append("stream error: \(error)") } }
            }
        }
    }

    func disconnect() { task?.cancel() }

    private func handle(_ block: String) {
        var event = "message", data = ""
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("event: ") { event = String(line.dropFirst(7)) }
            if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
        }
        lock.withLock {
            _events += 1
            _kinds.append(event)
            _lastData = data
            do {
                switch event {
                case "changes":
                    let c = try JSONDecoder().decode(ChangesJSON.self, from: Data(data.utf8))
                    guard c.fromVersion == _version else { _gaps.append("gap: at \(_version), got \(c.fromVersion)→\(c.toVersion)"); return }
                    for stage in c.stages {
                        let b = try stage.batchUpdate.unwrap()
                        try BatchUpdate.validate(b, against: _snapshot)
                        try _snapshot.apply(b)
                    }
                    _version = c.toVersion
                    if let name = c.name { _name = name }
                case "snapshot":
                    let s = try JSONDecoder().decode(GallerySnapshotJSON.self, from: Data(data.utf8))
                    _snapshot = try Snapshot(gallery: s)
                    _version = s.version
                    _name = s.gallery.name
                default: break
                }
            } catch {
                _gaps.append("bad event: \(error)")
            }
        }
    }

    /// Waits until `count` events have arrived.
    func wait(kinds count: Int, timeout: Duration = .seconds(30)) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if eventCount >= count { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// Waits until the replay reaches `version`.
    func wait(for version: Int64, timeout: Duration = .seconds(30)) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if self.version >= version { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}

extension Optional {
    struct Missing: Error {}
    func unwrap() throws -> Wrapped { guard let v = self else { throw Missing() }; return v }
}
