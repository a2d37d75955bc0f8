// Minimal release-mode timing harness: run a body repeatedly, report median and min.
// Ratios between rows of the same run are what count on a noisy machine.
#if canImport(Glibc)
import Glibc
#endif

@inline(never) func blackHole<T>(_ x: T) { withExtendedLifetime(x) {} }

struct Measurement {
    var name: String
    var medianNanos: Double
    var minNanos: Double
    var iterations: Int
}

func nowNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Runs `body` `iterations` times (after one warm-up) and returns the timing per call.
/// `inner` repeats the body inside one sample for sub-microsecond operations.
func measure(_ name: String, iterations: Int = 9, inner: Int = 1, _ body: () -> Void) -> Measurement {
    body()
    var samples: [Double] = []
    samples.reserveCapacity(iterations)
    for _ in 0..<iterations {
        let t0 = nowNanos()
        for _ in 0..<inner { body() }
        samples.append(Double(nowNanos() - t0) / Double(inner))
    }
    samples.sort()
    return Measurement(name: name, medianNanos: samples[samples.count / 2], minNanos: samples[0], iterations: iterations)
}

func formatNanos(_ ns: Double) -> String {
    if ns >= 1_000_000 { return String(format2(ns / 1_000_000)) + " ms" }
    if ns >= 1_000 { return String(format2(ns / 1_000)) + " µs" }
    return String(format2(ns)) + " ns"
}

func format2(_ v: Double) -> String {
    let r = (v * 100).rounded() / 100
    return "\(r)"
}

func printRow(_ cells: [String]) { print("| " + cells.joined(separator: " | ") + " |") }
