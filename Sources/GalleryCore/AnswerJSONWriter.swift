/// JSON written byte by byte, exactly as Foundation's `JSONEncoder` with `[.sortedKeys,
/// .withoutEscapingSlashes]` writes it (the server's `JSONIO.encoder`): keys in byte order, no
/// spaces, optional fields left out when nil, strings escaped as it escapes them (`\"`, `\\`,
/// `\b \t \n \f \r`, other control characters as `\u00xx`, everything else as UTF-8).
///
/// For the answers on the hot path only — a move's answer (`ChangesJSON` without items inside
/// `BatchResult`) and its live event: `JSONEncoder`'s generic machinery cost more instructions
/// than the move's SQL (issue 15.3; BENCHMARKS.md "Moves: fewer instructions per move").
/// `BatchFastPathTests` checks it byte for byte against `JSONEncoder` on generated values.
public struct AnswerJSONWriter {
    public var bytes: [UInt8] = []

    public init(capacity: Int = 512) { bytes.reserveCapacity(capacity) }

    @inline(__always) public mutating func raw(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    @inline(__always) public mutating func byte(_ b: UInt8) { bytes.append(b) }

    public mutating func int(_ v: Int64) {
        if v < 0 {
            bytes.append(UInt8(ascii: "-"))
            uint(v.magnitude)
        } else {
            uint(UInt64(v))
        }
    }

    @inline(__always) public mutating func int(_ v: Int) { int(Int64(v)) }
    @inline(__always) public mutating func int(_ v: UInt32) { uint(UInt64(v)) }

    public mutating func uint(_ v: UInt64) {
        if v < 10 { bytes.append(UInt8(ascii: "0") + UInt8(v)); return }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { d in
            var n = 20, x = v
            while x > 0 { n -= 1; d[n] = UInt8(ascii: "0") + UInt8(x % 10); x /= 10 }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: d[n...]))
        }
    }

    public mutating func string(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { utf8 in
            var start = 0
            for (i, c) in utf8.enumerated() where c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<i]))
                start = i + 1
                bytes.append(UInt8(ascii: "\\"))
                switch c {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(c)
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                default:
                    let hex: StaticString = "0123456789abcdef"
                    raw("u00")
                    hex.withUTF8Buffer { h in
                        bytes.append(h[Int(c >> 4)])
                        bytes.append(h[Int(c & 0xF)])
                    }
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `[a,b,…]` of integers.
    public mutating func ints<T: BinaryInteger>(_ values: [T]) {
        bytes.append(UInt8(ascii: "["))
        for (k, v) in values.enumerated() {
            if k > 0 { bytes.append(UInt8(ascii: ",")) }
            if v < 0 { int(Int64(v)) } else { uint(UInt64(v)) }
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// `[e,…]`, each element written by `body`.
    public mutating func array<T>(_ values: [T], _ body: (inout AnswerJSONWriter, T) -> Void) {
        bytes.append(UInt8(ascii: "["))
        for (k, v) in values.enumerated() {
            if k > 0 { bytes.append(UInt8(ascii: ",")) }
            body(&self, v)
        }
        bytes.append(UInt8(ascii: "]"))
    }
}

extension StageJSON {
    /// This stage as `JSONEncoder` (sorted keys) writes it.
    public func write(to w: inout AnswerJSONWriter) {
        w.byte(UInt8(ascii: "{"))
        if let deletedIDs {
            w.raw("\"deletedIDs\":"); w.ints(deletedIDs); w.byte(UInt8(ascii: ","))
        }
        w.raw("\"itemCountsAfter\":"); w.ints(itemCountsAfter)
        w.raw(",\"itemDeletes\":"); w.array(itemDeletes) { w, p in w.ints(p) }
        w.raw(",\"itemInserts\":")
        w.array(itemInserts) { w, i in
            w.raw("{\"at\":"); w.ints(i.at)
            w.raw(",\"id\":"); w.uint(i.id)
            w.raw(",\"version\":"); w.int(i.version)
            w.byte(UInt8(ascii: "}"))
        }
        w.raw(",\"itemMoves\":"); w.array(itemMoves) { w, m in m.write(to: &w) }
        w.raw(",\"itemReloads\":")
        w.array(itemReloads) { w, r in
            w.raw("{\"at\":"); w.ints(r.at)
            w.raw(",\"version\":"); w.int(r.version)
            w.byte(UInt8(ascii: "}"))
        }
        if let movedIDs { w.raw(",\"movedIDs\":"); w.ints(movedIDs) }
        if let reloadedIDs { w.raw(",\"reloadedIDs\":"); w.ints(reloadedIDs) }
        w.raw(",\"sectionDeletes\":"); w.ints(sectionDeletes)
        w.raw(",\"sectionInserts\":")
        w.array(sectionInserts) { w, s in
            w.raw("{\"id\":"); w.uint(s.id)
            w.raw(",\"index\":"); w.int(s.index)
            w.raw(",\"items\":"); w.ints(s.items)
            w.raw(",\"versions\":"); w.ints(s.versions)
            w.byte(UInt8(ascii: "}"))
        }
        w.raw(",\"sectionMoves\":"); w.array(sectionMoves) { w, m in m.write(to: &w) }
        w.byte(UInt8(ascii: "}"))
    }

    /// Stages as a JSON array (sorted keys).
    public static func json(_ stages: [StageJSON]) -> [UInt8] {
        var w = AnswerJSONWriter(capacity: 256)
        w.array(stages) { w, s in s.write(to: &w) }
        return w.bytes
    }
}

extension StageJSON.Move {
    func write(to w: inout AnswerJSONWriter) {
        w.raw("{\"from\":"); w.ints(from)
        w.raw(",\"to\":"); w.ints(to)
        w.byte(UInt8(ascii: "}"))
    }
}

extension ChangesJSON {
    /// These changes as `JSONEncoder` (sorted keys) writes them, when they carry no item data
    /// (moves, trash, sections: the hot path); nil otherwise (the caller encodes them with
    /// `JSONEncoder`: an item's `aspect` is a Double, whose text is JSONEncoder's to make).
    public func write(to w: inout AnswerJSONWriter) -> Bool {
        guard items.isEmpty else { return false }
        w.raw("{\"fromVersion\":"); w.int(fromVersion)
        w.raw(",\"items\":[]")
        if let name { w.raw(",\"name\":"); w.string(name) }
        w.raw(",\"sections\":")
        w.array(sections) { w, s in
            w.raw("{\"id\":"); w.int(s.id)
            w.raw(",\"title\":"); w.string(s.title)
            w.byte(UInt8(ascii: "}"))
        }
        w.raw(",\"stages\":"); w.array(stages) { w, s in s.write(to: &w) }
        w.raw(",\"toVersion\":"); w.int(toVersion)
        w.byte(UInt8(ascii: "}"))
        return true
    }

    /// The JSON text of these changes without `JSONEncoder`, or nil (see `write(to:)`).
    public var fastJSON: [UInt8]? {
        var w = AnswerJSONWriter()
        return write(to: &w) ? w.bytes : nil
    }
}
