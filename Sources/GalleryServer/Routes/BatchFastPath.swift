import Foundation
import Hummingbird
import GalleryCore
import GalleryStore

/// The move's hot path without Foundation's JSON coders (issue 15.3: under 50 clients moving,
/// `JSONDecoder` for the request and `JSONEncoder` for the answer cost more instructions than
/// the move's SQL). Both are exact: a body that is not the one fixed shape below goes to
/// `JSONDecoder` (with its errors), and an answer `AnswerJSONWriter` cannot write byte for byte as
/// `JSONEncoder` does (one with item data) goes to `JSONEncoder`. `BatchFastPathTests` checks both
/// against Foundation's coders.
enum BatchFastPath {
    /// A batch of one single-item move to an index, exactly as the page and the benchmarks write it
    /// (no spaces; `baseVersion` first or last, or absent):
    /// `{"baseVersion":7,"operations":[{"op":"move","items":[12],"to":{"section":3,"index":0}}]}`.
    /// nil for any other text, which `JSONDecoder` then reads as it always did.
    static func singleMove(_ bytes: UnsafeRawBufferPointer) -> BatchRoutes.BatchBody? {
        var p = Parser(bytes: bytes)
        guard p.literal("{") else { return nil }
        var base: Int64?
        if p.literal("\"baseVersion\":") {
            guard let v = p.integer(), p.literal(",") else { return nil }
            base = v
        }
        guard p.literal("\"operations\":[{\"op\":\"move\",\"items\":["), let item = p.integer(),
              p.literal("],\"to\":{\"section\":"), let section = p.integer(),
              p.literal(",\"index\":"), let index = p.integer(), p.literal("}}]") else { return nil }
        if base == nil, p.literal(",\"baseVersion\":") {
            guard let v = p.integer() else { return nil }
            base = v
        }
        guard p.literal("}"), p.atEnd else { return nil }
        return BatchRoutes.BatchBody(baseVersion: base, operations: [.move(items: [item], to: .index(section: section, index: Int(index)))])
    }

    struct Parser {
        let bytes: UnsafeRawBufferPointer
        var at = 0

        var atEnd: Bool { at == bytes.count }

        mutating func literal(_ s: StaticString) -> Bool {
            let n = s.utf8CodeUnitCount
            guard bytes.count - at >= n else { return false }
            let equal = s.withUTF8Buffer { memcmp($0.baseAddress!, bytes.baseAddress! + at, n) == 0 }
            if equal { at += n }
            return equal
        }

        /// A JSON integer that fits Int64 for sure: `-?(0|[1-9][0-9]{0,17})`; nil for anything
        /// else (a fraction, an exponent, a leading zero, 19 digits or more: JSONDecoder's to judge).
        mutating func integer() -> Int64? {
            var i = at
            let negative = i < bytes.count && bytes[i] == UInt8(ascii: "-")
            if negative { i += 1 }
            let first = i
            var value: Int64 = 0
            while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") {
                value = value * 10 + Int64(bytes[i] - UInt8(ascii: "0"))
                i += 1
                if i - first > 18 { return nil }
            }
            let digits = i - first
            guard digits > 0, !(digits > 1 && bytes[first] == UInt8(ascii: "0")) else { return nil }
            if i < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[i]) { return nil }
            at = i
            return negative ? -value : value
        }
    }

    /// The answer to a batch as `JSONIO.encoder` writes it, or nil when only `JSONEncoder` can
    /// write it exactly (changes with item data).
    static func answer(_ r: BatchResult) -> [UInt8]? {
        var w = AnswerJSONWriter(capacity: 1024)
        w.raw("{\"changes\":")
        guard r.changes.write(to: &w) else { return nil }
        w.raw(",\"createdItems\":"); w.ints(r.createdItems)
        w.raw(",\"createdSections\":"); w.ints(r.createdSections)
        w.raw(",\"orphanedHashes\":"); w.array(r.orphanedHashes) { w, h in w.string(h) }
        w.raw(",\"rowsWritten\":"); w.int(r.rowsWritten)
        w.raw(",\"version\":"); w.int(r.version)
        w.byte(UInt8(ascii: "}"))
        return w.bytes
    }
}
