/// SplitMix64: a tiny, seeded, reproducible random number generator.
///
/// The engine never draws random numbers on its own; this generator exists so that
/// tests, benchmarks and the wasm parity test can build the same random inputs from a
/// seed on every platform (native and Embedded Swift alike).
///
///     var rng = SeededGenerator(seed: 42)
///     let n = Int.random(in: 0..<10, using: &rng)
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform Double in [0, 1), identical bit for bit on every platform.
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) * (1.0 / 9_007_199_254_740_992.0)
    }
}
