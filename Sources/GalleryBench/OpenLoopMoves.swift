import Foundation
import NIOCore
import NIOPosix
import NIOHTTP1

/// `gallery-bench open-moves --serve-line FILE --rate R [--clients C --seconds T --warmup W --trace OUT]`: single
/// moves posted to a running `serve-moves` server at a fixed rate (open loop), over C keep-alive
/// connections, the latency of each counted from when it was due.
///
/// wrk (the move benchmark, `scripts/ab-moves.sh`) is a closed loop: each of its 50 connections sends
/// its next move as soon as the last is answered, so it measures the server at saturation, where the
/// mean latency is 50 / throughput whatever the server does (Little's law) and p99 follows the
/// machine's speed. Here move i is due at start + i / R whatever happened before; it goes out on the
/// first idle connection at or after that time (C connections: C clients, none with two moves in
/// flight), and its latency runs from when it was due to its answer — a stall counts for every move
/// it held up, also those that could not yet be sent (no coordinated omission). The moves are the
/// wrk script's: a random item to a random section, at an index in its first half, seeded.
///
/// FILE holds the line `serve-moves` prints when it listens (`base=URL gallery=G first=ID count=N
/// per=P sections=A,B,…`). Prints one line: `p50=… p90=… p99=… max=… requests=… non200=… rate=…
/// late=… answered=…` (ms). `late`: measured moves not answered a second after the run's end (still
/// waiting for a connection, or sent and unanswered: the server did not keep up with R); each is in
/// the percentiles with the time it had waited by then, a lower bound, so that the worst moves are not
/// left out. `answered`: every answer, the warm-up's too (for the CPU per move). With `--trace OUT`, OUT gets
/// one line per answered measured move: when it was due (seconds after the warm-up) and its latency (ms).
func runOpenLoopMoves(_ o: BenchOptions) async throws {
    guard let path = o.text("--serve-line"), let rate = o.number("--rate"), rate > 0 else {
        FileHandle.standardError.write(Data("usage: gallery-bench open-moves --serve-line FILE --rate R [--clients C --seconds T --warmup W --trace OUT]\n".utf8))
        exit(2)
    }
    let text = try String(contentsOfFile: path, encoding: .utf8)
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("base=") }) else {
        throw BenchFailure("\(path) holds no `base=` line of serve-moves")
    }
    var fields: [String: String] = [:]
    for pair in line.split(separator: " ") {
        let kv = pair.split(separator: "=", maxSplits: 1)
        if kv.count == 2 { fields[String(kv[0])] = String(kv[1]) }
    }
    guard let base = fields["base"], let url = URL(string: base), let host = url.host, let port = url.port,
          let gallery = fields["gallery"].flatMap(Int64.init), let first = fields["first"].flatMap(Int64.init),
          let count = fields["count"].flatMap(Int.init), let per = fields["per"].flatMap(Int.init),
          let sections = fields["sections"]?.split(separator: ",").compactMap({ Int64($0) }), !sections.isEmpty else {
        throw BenchFailure("\(path): not a serve-moves line: \(line)")
    }
    let clients = o.number("--clients") ?? 50
    let seconds = Double(o.number("--seconds") ?? 10)
    let warmup = Double(o.number("--warmup") ?? 3)
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let loop = group.next()
    let run = OpenLoopRun(loop: loop, rate: Double(rate), warmup: warmup, seconds: seconds, host: "\(host):\(port)",
                          path: "/api/galleries/\(gallery)/batch", first: first, count: count, per: per, sections: sections)
    let tracePath = o.text("--trace")
    if tracePath != nil { run.trace = [] }
    var channels: [Channel] = []
    for k in 0..<clients {
        let channel = try await ClientBootstrap(group: loop)
            .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.pipeline.addHTTPClientHandlers().flatMap {
                    channel.pipeline.addHandler(OpenLoopConnection(run: run, index: k))
                }
            }
            .connect(host: host, port: port).get()
        channels.append(channel)
    }
    let summary = try await run.start(channels).get()
    for c in channels { try? await c.close() }
    try await group.shutdownGracefully()
    if let tracePath, let trace = run.trace {
        let lines = trace.map { String(format: "%.4f %.3f", $0.due, $0.latency * 1000) }
        let header = String(format: "# measured from %.4f s (CLOCK_MONOTONIC): due (s after that), latency (ms)\n", run.start + run.warmup)
        try (header + lines.joined(separator: "\n") + "\n").write(toFile: tracePath, atomically: true, encoding: .utf8)
    }
    print(summary)
}

/// The run's state, touched on its one event loop only.
final class OpenLoopRun: @unchecked Sendable {
    let loop: EventLoop
    let interval: Double
    let warmup: Double, seconds: Double
    let host: String, path: String
    let first: Int64, count: Int, per: Int, sections: [Int64]
    var rng = SplitMix64(seed: 42)
    var channels: [Channel] = []
    var idle: [Int] = []
    /// Moves due and not yet sent (their due times), oldest first.
    var waiting: [Double] = []
    var waitingHead = 0
    /// The due time of the move in flight on each connection.
    var inFlight: [Double] = []
    var busy: [Bool] = []
    var answers = 0
    var start = 0.0
    var issued = 0
    var latencies: [Double] = []
    /// With `--trace FILE`: each measured move's due time (seconds after the warm-up) and latency.
    var trace: [(due: Double, latency: Double)]? = nil
    var non200 = 0
    var failure: Error?
    var done: EventLoopPromise<String>?
    var stopped = false

    init(loop: EventLoop, rate: Double, warmup: Double, seconds: Double, host: String, path: String,
         first: Int64, count: Int, per: Int, sections: [Int64]) {
        self.loop = loop; interval = 1 / rate; self.warmup = warmup; self.seconds = seconds
        self.host = host; self.path = path; self.first = first; self.count = count; self.per = per; self.sections = sections
    }

    func start(_ channels: [Channel]) -> EventLoopFuture<String> {
        loop.flatSubmit {
            // A connection that failed while the others were still connecting.
            if let failure = self.failure { return self.loop.makeFailedFuture(failure) }
            self.channels = channels
            self.idle = Array(channels.indices.reversed())
            self.inFlight = Array(repeating: 0, count: channels.count)
            self.busy = Array(repeating: false, count: channels.count)
            self.start = nowSeconds()
            let promise = self.loop.makePromise(of: String.self)
            self.done = promise
            self.tick()
            return promise.futureResult
        }
    }

    /// Queues every move due by now, sends what the idle connections can take, and sleeps until the next is due.
    func tick() {
        guard !stopped else { return }
        let now = nowSeconds()
        let end = start + warmup + seconds
        while true {
            let due = start + Double(issued) * interval
            guard due <= now, due < end else { break }
            waiting.append(due)
            issued += 1
        }
        sendWaiting()
        if now >= end {
            stopped = true
            // The moves still out are answered (or not) within a second; then the figures.
            loop.scheduleTask(in: .seconds(1)) { self.finish() }
            return
        }
        let next = start + Double(issued) * interval
        loop.scheduleTask(in: .nanoseconds(Int64(max(0, next - nowSeconds()) * 1e9))) { self.tick() }
    }

    func sendWaiting() {
        while waitingHead < waiting.count, let k = idle.popLast() {
            let due = waiting[waitingHead]
            waitingHead += 1
            inFlight[k] = due
            busy[k] = true
            send(on: channels[k])
        }
        if waitingHead > 4096, waitingHead * 2 > waiting.count {
            waiting.removeFirst(waitingHead)
            waitingHead = 0
        }
    }

    func send(on channel: Channel) {
        let item = first + Int64(rng.next() % UInt64(count))
        let section = sections[Int(rng.next() % UInt64(sections.count))]
        let index = Int(rng.next() % UInt64(per / 2 + 1))
        let body = #"{"operations":[{"op":"move","items":[\#(item)],"to":{"section":\#(section),"index":\#(index)}}]}"#
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: path)
        head.headers.add(name: "Host", value: host)
        head.headers.add(name: "Content-Type", value: "application/json")
        head.headers.add(name: "Authorization", value: "Bearer gat_bench_token")
        head.headers.add(name: "Content-Length", value: String(body.utf8.count))
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        channel.write(HTTPClientRequestPart.body(.byteBuffer(channel.allocator.buffer(string: body))), promise: nil)
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
    }

    func answered(on k: Int, status: HTTPResponseStatus) {
        let now = nowSeconds()
        let due = inFlight[k]
        busy[k] = false
        answers += 1
        if due >= start + warmup {
            latencies.append(now - due)
            trace?.append((due - start - warmup, now - due))
            if status != .ok { non200 += 1 }
        }
        idle.append(k)
        if !stopped { sendWaiting() }
    }

    func failed(_ error: Error) {
        if failure == nil { failure = error }
        stopped = true
        done?.fail(error)
        done = nil
    }

    func finish() {
        guard let done else { return }
        self.done = nil
        // Measured moves still unanswered: in with what they had waited so far (a lower bound).
        let now = nowSeconds()
        var late = 0
        for due in waiting[waitingHead...] where due >= start + warmup {
            latencies.append(now - due)
            late += 1
        }
        for k in channels.indices where busy[k] && inFlight[k] >= start + warmup {
            latencies.append(now - inFlight[k])
            late += 1
        }
        let sorted = latencies.sorted()
        func p(_ q: Double) -> Double { percentile(sorted, q) * 1000 }
        let measured = sorted.count
        done.succeed(String(format: "p50=%.3f p90=%.3f p99=%.3f max=%.3f requests=%d non200=%d rate=%.0f late=%d answered=%d",
                            p(0.5), p(0.9), p(0.99), (sorted.last ?? 0) * 1000, measured - late, non200,
                            Double(measured - late) / seconds, late, answers))
    }
}

/// One client: its answers go back to the run.
final class OpenLoopConnection: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart
    let run: OpenLoopRun
    let index: Int
    var status: HTTPResponseStatus = .ok

    init(run: OpenLoopRun, index: Int) { self.run = run; self.index = index }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): status = head.status
        case .body: break
        case .end: run.answered(on: index, status: status)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        run.failed(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !run.stopped { run.failed(BenchFailure("the server closed connection \(index)")) }
    }
}

/// A small seeded generator (the same moves for every build compared).
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
