/// A gallery at one version as parallel columns, for the page's first load: the same content as
/// `GallerySnapshotJSON`, about a tenth of the bytes, and written without `JSONEncoder` (at 100k
/// items the full snapshot is ~50 MB of nested objects; this is ~4 MB of arrays).
///
///     {"format":"columns-2","gallery":{…GalleryInfo…},"version":409,
///      "sections":[{"id":1,"title":"Fruit","count":3}],
///      "id":[1,2,3],"contentVersion":[0,0,2],"aspect":[1.5,1,0.75],"state":"rpf",
///      "title":["Apple","Banana","Cherry"],
///      "width":[300,0,0],"height":[200,0,0],
///      "details":{"3":{"reason":"HTTP 404","sourceURL":"https://…"}}}
///
/// Items follow section order (the first `sections[0].count` belong to section 0, and so on).
/// `state` has one letter per item: r ready, p pending, f failed. `aspect` is the one the layout
/// uses (1 unless ready, as in `ItemJSON`). No content hashes: 32 bytes of entropy per item, they
/// were most of a camera roll's compressed body; a ready item's images are
/// `/api/items/<id>/image/grid.jpg?v=<contentVersion>` (and `detail.jpg`, `original`). `width` and
/// `height` are 0 when unknown. `details` carries the rare fields (failure reason, source URL) by id.
public struct SnapshotColumns: Sendable, Equatable {
    public struct Section: Sendable, Equatable {
        public var id: Int64
        public var title: String
        public var count: Int
        public init(id: Int64, title: String, count: Int) { self.id = id; self.title = title; self.count = count }
    }

    public var gallery: GalleryInfo
    public var sections: [Section] = []
    public var ids: [Int64] = []
    public var contentVersions: [UInt32] = []
    public var aspects: [Double] = []
    public var states: [ItemState] = []
    public var titles: [String] = []
    public var widths: [Int32] = []
    public var heights: [Int32] = []
    public var reasons: [Int64: String] = [:]
    public var sourceURLs: [Int64: String] = [:]

    public init(gallery: GalleryInfo) { self.gallery = gallery }

    public var count: Int { ids.count }

    /// The JSON text described above, as UTF-8 bytes.
    public func json() -> [UInt8] {
        var w = JSONWriter()
        w.reserve(64 + count * 40 + titles.reduce(0) { $0 + $1.utf8.count })
        w.raw("{\"format\":\"columns-2\",")
        writeHead(&w)
        w.raw(",\"id\":"); w.array(ids) { $0.int($1) }
        w.raw(",\"contentVersion\":"); w.array(contentVersions) { $0.int(Int64($1)) }
        // Aspects repeat (a few hundred shapes in a large gallery): write each distinct one once
        // and copy its bytes after.
        var written: [UInt64: Range<Int>] = [:]
        w.raw(",\"aspect\":"); w.array(aspects) { w, a in
            if let r = written[a.bitPattern] { w.copy(r) } else { let start = w.bytes.count; w.double(a); written[a.bitPattern] = start ..< w.bytes.count }
        }
        w.raw(",\"state\":\"")
        for s in states { w.byte(Self.stateCode(s)) }
        w.raw("\",\"title\":"); w.array(titles) { $0.string($1) }
        w.raw(",\"width\":"); w.array(widths) { $0.int(Int64($1)) }
        w.raw(",\"height\":"); w.array(heights) { $0.int(Int64($1)) }
        w.byte(UInt8(ascii: ","))
        writeDetails(&w)
        w.byte(UInt8(ascii: "}"))
        return w.bytes
    }

    /// The same content as `json()` in a binary form the page reads without parsing (issue 15:
    /// at a million items `JSON.parse` of the 50 MB text was most of the first load). Little-endian:
    ///
    ///     "GCB2"  u32 H  header: H bytes of JSON {"format":"columns-binary-2","gallery",
    ///                    "version","sections","details","count":n,"titleBytes":T,
    ///                    "idBytes":4|8,"versionBytes":2|4,"sizeBytes":2|4}
    ///     then each column, each starting at a multiple of its element's size (zero padding):
    ///     aspect f64 × n   id (u32 when idBytes is 4, else f64) × n
    ///     titleEnd u32 × n (where each title's UTF-8 bytes end in the blob)
    ///     contentVersion (u16|u32) × n   width (u16|u32) × n   height (u16|u32) × n
    ///     state u8 × n (r p f)   titles: T bytes of UTF-8
    ///
    /// Each column takes the narrowest of its two widths that holds every value (ids below 2^32,
    /// content versions and sizes below 2^16: nearly always), so a million items are ~37 MB
    /// instead of 47 (issue 15: in the browser, bringing the body into the page costs by the
    /// byte, ~2.5 ms a megabyte here, whatever the compression). A page maps each column as a
    /// typed array onto the body (f64 ids are below 2^53).
    public func binary() -> [UInt8] {
        let narrowIds = ids.allSatisfy { $0 >= 0 && $0 <= Int64(UInt32.max) }
        let narrowVersions = contentVersions.allSatisfy { $0 <= UInt32(UInt16.max) }
        let narrowSizes = widths.allSatisfy { (0...Int32(UInt16.max)).contains($0) } && heights.allSatisfy { (0...Int32(UInt16.max)).contains($0) }
        let idBytes = narrowIds ? 4 : 8, versionBytes = narrowVersions ? 2 : 4, sizeBytes = narrowSizes ? 2 : 4
        var head = JSONWriter()
        head.raw("{\"format\":\"columns-binary-2\",")
        writeHead(&head)
        head.byte(UInt8(ascii: ","))
        writeDetails(&head)
        var titleBytes = 0
        for t in titles { titleBytes += t.utf8.count }
        head.raw(",\"count\":"); head.int(Int64(count))
        head.raw(",\"titleBytes\":"); head.int(Int64(titleBytes))
        head.raw(",\"idBytes\":"); head.int(Int64(idBytes))
        head.raw(",\"versionBytes\":"); head.int(Int64(versionBytes))
        head.raw(",\"sizeBytes\":"); head.int(Int64(sizeBytes))
        head.byte(UInt8(ascii: "}"))
        let n = count
        // Where each column starts: the same walk as the readers'.
        var total = 8 + head.bytes.count
        func place(_ size: Int) -> Int { total = (total + size - 1) / size * size; defer { total += size * n }; return total }
        let aspectAt = place(8), idAt = place(idBytes), endAt = place(4), versionAt = place(versionBytes)
        let widthAt = place(sizeBytes), heightAt = place(sizeBytes), stateAt = place(1)
        let titlesAt = total
        total += titleBytes
        // One buffer of the final size, each column stored in place (at a million items appending
        // value by value was most of the encoding time, issue 15).
        return [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            let out = UnsafeMutableRawBufferPointer(buffer)
            out.initializeMemory(as: UInt8.self, repeating: 0)
            let base = out.baseAddress!
            for (k, b) in [UInt8(0x47), 0x43, 0x42, 0x32].enumerated() { out[k] = b } // GCB2
            base.storeBytes(of: UInt32(head.bytes.count).littleEndian, toByteOffset: 4, as: UInt32.self)
            head.bytes.withUnsafeBytes { base.advanced(by: 8).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            // Each column in its chosen width: the element type says it.
            func store<T: FixedWidthInteger>(_ values: some Sequence<T>, at start: Int) {
                var at = start
                for v in values { base.storeBytes(of: v.littleEndian, toByteOffset: at, as: T.self); at += MemoryLayout<T>.size }
            }
            store(aspects.lazy.map(\.bitPattern), at: aspectAt)
            if narrowIds { store(ids.lazy.map { UInt32($0) }, at: idAt) } else { store(ids.lazy.map { Double($0).bitPattern }, at: idAt) }
            var end: UInt32 = 0
            store(titles.lazy.map { t -> UInt32 in end += UInt32(t.utf8.count); return end }, at: endAt)
            if narrowVersions { store(contentVersions.lazy.map { UInt16($0) }, at: versionAt) } else { store(contentVersions, at: versionAt) }
            if narrowSizes {
                store(widths.lazy.map { UInt16($0) }, at: widthAt); store(heights.lazy.map { UInt16($0) }, at: heightAt)
            } else {
                store(widths.lazy.map { UInt32(bitPattern: $0) }, at: widthAt); store(heights.lazy.map { UInt32(bitPattern: $0) }, at: heightAt)
            }
            var at = stateAt
            for st in states { out[at] = Self.stateCode(st); at += 1 }
            at = titlesAt
            for t in titles {
                var t = t
                t.withUTF8 { u in
                    if u.count > 0 { base.advanced(by: at).copyMemory(from: u.baseAddress!, byteCount: u.count) }
                    at += u.count
                }
            }
            precondition(at == total)
            initialized = total
        }
    }

    static func stateCode(_ s: ItemState) -> UInt8 {
        s == .ready ? UInt8(ascii: "r") : s == .pending ? UInt8(ascii: "p") : UInt8(ascii: "f")
    }

    /// `"gallery":{…},"version":V,"sections":[…]`
    func writeHead(_ w: inout JSONWriter) {
        w.raw("\"gallery\":{\"createdAt\":")
        w.double(gallery.createdAt)
        w.raw(",\"id\":"); w.int(gallery.id)
        w.raw(",\"itemCount\":"); w.int(Int64(gallery.itemCount))
        w.raw(",\"name\":"); w.string(gallery.name)
        w.raw(",\"version\":"); w.int(gallery.version)
        w.raw("},\"version\":"); w.int(gallery.version)
        w.raw(",\"sections\":[")
        for (n, s) in sections.enumerated() {
            if n > 0 { w.byte(UInt8(ascii: ",")) }
            w.raw("{\"id\":"); w.int(s.id)
            w.raw(",\"title\":"); w.string(s.title)
            w.raw(",\"count\":"); w.int(Int64(s.count))
            w.byte(UInt8(ascii: "}"))
        }
        w.byte(UInt8(ascii: "]"))
    }

    /// `"details":{"<id>":{"reason":…,"sourceURL":…}}`
    func writeDetails(_ w: inout JSONWriter) {
        w.raw("\"details\":{")
        var first = true
        for id in Set(reasons.keys).union(sourceURLs.keys).sorted() {
            if !first { w.byte(UInt8(ascii: ",")) }
            first = false
            w.byte(UInt8(ascii: "\"")); w.int(id); w.raw("\":{")
            var inner = false
            if let r = reasons[id] { w.raw("\"reason\":"); w.string(r); inner = true }
            if let u = sourceURLs[id] { if inner { w.byte(UInt8(ascii: ",")) }; w.raw("\"sourceURL\":"); w.string(u) }
            w.byte(UInt8(ascii: "}"))
        }
        w.byte(UInt8(ascii: "}"))
    }
}

/// Appends JSON tokens to a byte array: integers without allocating, doubles in Swift's
/// shortest round-trip form (which JavaScript's parser reads back to the same value), strings
/// escaped per RFC 8259.
struct JSONWriter {
    var bytes: [UInt8] = []

    mutating func reserve(_ n: Int) { bytes.reserveCapacity(n) }
    mutating func byte(_ b: UInt8) { bytes.append(b) }
    mutating func raw(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }
    mutating func copy(_ r: Range<Int>) {
        for i in r { bytes.append(bytes[i]) }
    }

    mutating func int(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var v = value.magnitude
        if v < 10 { bytes.append(UInt8(ascii: "0") + UInt8(v)); return }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = 0
        withUnsafeMutableBytes(of: &digits) { d in
            while v > 0 { d[n] = UInt8(ascii: "0") + UInt8(v % 10); v /= 10; n += 1 }
            for i in stride(from: n - 1, through: 0, by: -1) { bytes.append(d[i]) }
        }
    }

    mutating func double(_ value: Double) {
        guard value.isFinite else { raw("null"); return }
        if value == value.rounded(.towardZero) && abs(value) < 1e15 { int(Int64(value)); return }
        bytes.append(contentsOf: value.description.utf8)
    }

    mutating func string(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\\")); bytes.append(b)
            case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\")); bytes.append(b)
            case 0x0A: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "t"))
            case 0 ..< 0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(b >> 4)], hex[Int(b & 15)]])
            default: bytes.append(b)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func array<C: Collection>(_ c: C, _ element: (inout JSONWriter, C.Element) -> Void) {
        bytes.append(UInt8(ascii: "["))
        var first = true
        for e in c {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            element(&self, e)
        }
        bytes.append(UInt8(ascii: "]"))
    }
}
