import Foundation
import GalleryStore

/// Content addresses (issue 12): SHA-256 of 64 MiB through swift-crypto (`ContentHash`, what the
/// store uses) beside the hand-written SHA-256 it replaced, same bytes, same run; in one call
/// and in 1 MiB chunks (how uploads are hashed while they stream to disk).
func runHashBenchmarks(_ o: BenchOptions) {
    print("")
    print("### SHA-256 of 64 MiB")
    var rng = SystemRandomNumberGenerator()
    let bytes = (0..<(64 << 20) / 8).flatMap { _ in withUnsafeBytes(of: rng.next() as UInt64) { Array($0) } }
    func best(_ runs: Int, _ body: () -> String) -> (Double, String) {
        var fastest = Double.infinity, digest = ""
        for _ in 0..<runs {
            let t = nowSeconds()
            digest = body()
            fastest = min(fastest, nowSeconds() - t)
        }
        return (fastest, digest)
    }
    let mib = Double(bytes.count) / Double(1 << 20)
    let (crypto, a) = best(5) { ContentHash.hex(bytes) }
    let (chunked, b) = best(5) {
        var h = ContentHash()
        var i = 0
        while i < bytes.count { h.update(bytes[i..<min(bytes.count, i + (1 << 20))]); i += 1 << 20 }
        return h.finalize()
    }
    let (hand, c) = best(3) { HandWrittenSHA256.hex(bytes) }
    precondition(a == b && b == c, "the three digests differ")
    print("")
    print("| implementation | best of runs | MB/s |")
    print("| --- | ---: | ---: |")
    print("| swift-crypto (`ContentHash.hex`, one call) | \(ms(crypto)) | \(String(format: "%.0f", mib / crypto)) |")
    print("| swift-crypto (`ContentHash`, 1 MiB chunks) | \(ms(chunked)) | \(String(format: "%.0f", mib / chunked)) |")
    print("| hand-written SHA-256 (before) | \(ms(hand)) | \(String(format: "%.0f", mib / hand)) |")
    print("speed-up: \(String(format: "%.1f", hand / crypto))×")
}
