import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Imaging
import Synchronization

/// A real local HTTP server for the URL-drop tests: good, slow, huge, truncated, bomb,
/// non-image and redirecting responses. Runs on 127.0.0.1 on a free port.
final class TestImageServer: Sendable {
    let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, Error>
    static let good: [UInt8] = try! SampleImages.jpeg(width: 300, height: 200, red: 200, green: 50, blue: 50, title: "Good")
    /// Requests of `counted.jpg` so far, by their `key`.
    private let counts: Counts

    final class Counts: Sendable {
        let byKey = Mutex<[String: Int]>([:])
    }

    /// How many times `counted.jpg?key=` was asked for.
    func hits(_ key: String) -> Int { counts.byKey.withLock { $0[key] ?? 0 } }

    /// `gated.jpg?key=K` answers once the test opens gate K: "before the image arrived" is then a
    /// fact of the test, not a race against a delay on a loaded machine.
    final class Gates: Sendable {
        private struct State { var open: Set<String> = []; var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]; var asked: Set<String> = []; var allOpen = false }
        private let state = Mutex(State())
        func pass(_ key: String) async {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    s.asked.insert(key)
                    if s.allOpen || s.open.contains(key) { return true }
                    s.waiting[key, default: []].append(c)
                    return false
                }
                if now { c.resume() }
            }
        }
        func open(_ key: String) {
            for c in state.withLock({ s in s.open.insert(key); return s.waiting.removeValue(forKey: key) ?? [] }) { c.resume() }
        }
        func asked(_ key: String) -> Bool { state.withLock { $0.asked.contains(key) } }
        /// Every gate open (stopping: no request is left hanging).
        func openAll() {
            for c in state.withLock({ s in s.allOpen = true; defer { s.waiting = [:] }; return s.waiting.values.flatMap { $0 } }) { c.resume() }
        }
    }
    private let gates: Gates

    /// Lets `gated.jpg?key=` answer (now, or at once when it is asked later).
    func open(_ key: String) { gates.open(key) }
    /// Whether `gated.jpg?key=` was asked for (the fetch reached the image server).
    func asked(_ key: String) -> Bool { gates.asked(key) }

    var base: String { "http://127.0.0.1:\(port)" }

    static func start() async throws -> TestImageServer {
        let router = Router()
        let jpeg = good
        let counts = Counts()
        let gates = Gates()
        router.get("gated.jpg") { request, _ in
            await gates.pass(request.uri.queryParameters.get("key") ?? "")
            return Response(status: .ok, headers: [.contentType: "image/jpeg"], body: .init(byteBuffer: ByteBuffer(bytes: jpeg)))
        }
        // Counts its requests by `key` (a fetch made once or twice), after `ms` of delay.
        router.get("counted.jpg") { request, _ in
            let key = request.uri.queryParameters.get("key") ?? ""
            counts.byKey.withLock { $0[key, default: 0] += 1 }
            try await Task.sleep(for: .milliseconds(Int(request.uri.queryParameters.get("ms") ?? "0") ?? 0))
            return Response(status: .ok, headers: [.contentType: "image/jpeg"], body: .init(byteBuffer: ByteBuffer(bytes: jpeg)))
        }
        router.get("good.jpg") { _, _ in Response(status: .ok, headers: [.contentType: "image/jpeg"], body: .init(byteBuffer: ByteBuffer(bytes: jpeg))) }
        router.get("slow.jpg") { request, _ in
            let ms = Int(request.uri.queryParameters.get("ms") ?? "1500") ?? 1500
            try await Task.sleep(for: .milliseconds(ms))
            return Response(status: .ok, headers: [.contentType: "image/jpeg"], body: .init(byteBuffer: ByteBuffer(bytes: jpeg)))
        }
        // Sends the image a byte every `every` ms (default 200) until `ms` have passed, then the rest:
        // a slow server that is never silent (the fetch's read timeout never fires).
        router.get("trickle.jpg") { request, _ in
            let ms = Int(request.uri.queryParameters.get("ms") ?? "1500") ?? 1500
            let every = Int(request.uri.queryParameters.get("every") ?? "200") ?? 200
            return Response(status: .ok, headers: [.contentType: "image/jpeg", .contentLength: "\(jpeg.count)"],
                            body: ResponseBody(contentLength: jpeg.count) { writer in
                                let end = ContinuousClock.now + .milliseconds(ms)
                                var sent = 0
                                while ContinuousClock.now < end && sent < jpeg.count - 1 {
                                    try await writer.write(ByteBuffer(bytes: jpeg[sent ..< sent + 1]))
                                    sent += 1
                                    try await Task.sleep(for: .milliseconds(every))
                                }
                                try await writer.write(ByteBuffer(bytes: jpeg[sent...]))
                                try await writer.finish(nil)
                            })
        }
        router.get("huge.jpg") { _, _ in
            // Declares 50 MB and streams it.
            Response(status: .ok, headers: [.contentType: "image/jpeg", .contentLength: "\(50 << 20)"],
                     body: ResponseBody(contentLength: 50 << 20) { writer in
                         let chunk = ByteBuffer(repeating: 0xAB, count: 1 << 20)
                         for _ in 0..<50 { try await writer.write(chunk) }
                         try await writer.finish(nil)
                     })
        }
        router.get("endless.jpg") { _, _ in
            // No Content-Length: only the streaming count can stop it.
            Response(status: .ok, headers: [.contentType: "image/jpeg"], body: ResponseBody { writer in
                try await writer.write(ByteBuffer(bytes: jpeg))
                let chunk = ByteBuffer(repeating: 0xAB, count: 256 << 10)
                for _ in 0..<400 { try await writer.write(chunk) }
                try await writer.finish(nil)
            })
        }
        router.get("truncated.jpg") { _, _ in
            Response(status: .ok, headers: [.contentType: "image/jpeg"], body: .init(byteBuffer: ByteBuffer(bytes: jpeg.prefix(jpeg.count / 2))))
        }
        let bomb = try SampleImages.plainPNG(width: 5000, height: 4000)
        router.get("bomb.png") { _, _ in Response(status: .ok, headers: [.contentType: "image/png"], body: .init(byteBuffer: ByteBuffer(bytes: bomb))) }
        router.get("page.html") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html"], body: .init(byteBuffer: ByteBuffer(string: "<html><body>not an image</body></html>")))
        }
        router.get("missing.jpg") { _, _ in Response(status: .notFound) }
        // The image only for a request that names `?host=` in its Host header (pinned fetches keep the name).
        router.get("named.jpg") { request, _ in
            let expected = request.uri.queryParameters.get("host") ?? ""
            guard let authority = request.head.authority, authority.split(separator: ":").first.map(String.init) == expected else {
                return Response(status: .misdirectedRequest, body: .init(byteBuffer: ByteBuffer(string: "Host was \(request.head.authority ?? "none")")))
            }
            return Response(status: .ok, headers: [.contentType: "image/jpeg"], body: .init(byteBuffer: ByteBuffer(bytes: jpeg)))
        }
        router.get("redirect") { request, _ in
            let to = request.uri.queryParameters.get("to") ?? "/good.jpg"
            return Response(status: .found, headers: [.location: to])
        }
        router.get("loop") { _, _ in Response(status: .found, headers: [.location: "/loop"]) }

        let portBox = PortBox()
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in await portBox.set(channel.localAddress!.port!) },
                              logger: Logger(label: "test-image-server", factory: { _ in SwiftLogNoOpLogHandler() }))
        let group = ServiceGroup(configuration: .init(services: [app], logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })))
        let task = Task { try await group.run() }
        let port = await portBox.wait()
        return TestImageServer(port: port, group: group, task: task, counts: counts, gates: gates)
    }

    private init(port: Int, group: ServiceGroup, task: Task<Void, Error>, counts: Counts, gates: Gates) {
        self.port = port; self.group = group; self.task = task; self.counts = counts; self.gates = gates
    }

    func stop() async {
        gates.openAll()
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}

actor PortBox {
    private var port: Int?
    private var waiters: [CheckedContinuation<Int, Never>] = []
    func set(_ p: Int) { port = p; for w in waiters { w.resume(returning: p) }; waiters = [] }
    func wait() async -> Int {
        if let port { return port }
        return await withCheckedContinuation { waiters.append($0) }
    }
}
