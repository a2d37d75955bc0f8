import Crypto

/// Content addresses: SHA-256 in lowercase hex, through swift-crypto (BoringSSL's SHA-256 on
/// Linux, with the CPU's SHA instructions where it has them).
public struct ContentHash {
    private var hasher = SHA256()

    public init() {}

    public mutating func update<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if let done = bytes.withContiguousStorageIfAvailable({ hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }) { return done }
        hasher.update(data: Array(bytes))
    }

    public mutating func finalize() -> String { Self.hexString(hasher.finalize()) }

    public static func hex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var h = ContentHash()
        h.update(bytes)
        return h.finalize()
    }

    static func hexString(_ digest: SHA256.Digest) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for byte in digest { out.append(digits[Int(byte >> 4)]); out.append(digits[Int(byte & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }
}
