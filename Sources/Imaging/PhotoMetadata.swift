import CVips

/// What a photo's EXIF says, for the detail view (issue 12): when it was taken, with what, how.
/// The location is kept apart: only some viewers may see it.
public struct PhotoMetadata: Codable, Equatable, Sendable {
    /// "2024-06-01T18:30:05+02:00" (with the offset when the camera wrote one), else "2024-06-01T18:30:05".
    public var captured: String?
    public var camera: String?
    public var lens: String?
    /// "1/125 s"
    public var exposure: String?
    /// "f/5.6"
    public var aperture: String?
    public var iso: Int?
    /// "50 mm"
    public var focalLength: String?
    public var latitude: Double?
    public var longitude: Double?

    public init() {}

    public var isEmpty: Bool { self == PhotoMetadata() }

    /// The fields without the location.
    public var withoutLocation: PhotoMetadata {
        var m = self
        m.latitude = nil
        m.longitude = nil
        return m
    }

    /// Reads the EXIF fields of an image in memory (header only). Missing fields stay nil; an
    /// image without EXIF gives an empty value, never an error.
    public static func read(_ bytes: [UInt8]) -> PhotoMetadata {
        bytes.withUnsafeBytes { read($0) }
    }

    /// The same from bytes anywhere in memory (a mapped file).
    public static func read(_ raw: UnsafeRawBufferPointer) -> PhotoMetadata {
        guard Vips.ready else { return PhotoMetadata() }
        var out: UnsafeMutablePointer<CChar>?
        let failed = Vips.run { gallery_vips_exif(raw.baseAddress, raw.count, &out) }
        guard failed == nil, let out else { return PhotoMetadata() }
        defer { g_free(out) }
        var fields: [String: String] = [:]
        for line in String(cString: out).split(separator: "\n") {
            let parts = line.split(separator: "\t", maxSplits: 1)
            guard parts.count == 2 else { continue }
            // libvips: "raw (readable, Type, n components, n bytes)": the raw value before " (".
            let value = parts[1]
            let raw = value.range(of: " (").map { String(value[..<$0.lowerBound]) } ?? String(value)
            fields[String(parts[0])] = raw.trimmingCharacters(in: " \0")
        }
        return PhotoMetadata(fields: fields)
    }

    init(fields f: [String: String]) {
        func text(_ key: String) -> String? { f[key].flatMap { $0.isEmpty ? nil : $0 } }
        if let date = text("exif-ifd2-DateTimeOriginal") ?? text("exif-ifd0-DateTime"), let iso = Self.isoDate(date) {
            captured = iso + (text("exif-ifd2-OffsetTimeOriginal").flatMap(Self.offset) ?? "")
        }
        let make = text("exif-ifd0-Make"), model = text("exif-ifd0-Model")
        if let model { camera = make.map { model.lowercased().hasPrefix($0.lowercased()) ? model : "\($0) \(model)" } ?? model }
        else { camera = make }
        lens = text("exif-ifd2-LensModel")
        if let r = text("exif-ifd2-ExposureTime").flatMap(Self.rational) {
            exposure = r.n < r.d && r.n > 0 ? "1/\(Self.number(Double(r.d) / Double(r.n))) s" : "\(Self.number(Double(r.n) / Double(r.d))) s"
        }
        if let r = text("exif-ifd2-FNumber").flatMap(Self.rational), r.d > 0 { aperture = "f/\(Self.number(Double(r.n) / Double(r.d)))" }
        iso = text("exif-ifd2-ISOSpeedRatings").flatMap { Int($0.split(separator: " ").first ?? "") }
        if let r = text("exif-ifd2-FocalLength").flatMap(Self.rational), r.d > 0 { focalLength = "\(Self.number(Double(r.n) / Double(r.d))) mm" }
        if let lat = text("exif-ifd3-GPSLatitude").flatMap(Self.degrees), let lon = text("exif-ifd3-GPSLongitude").flatMap(Self.degrees) {
            latitude = text("exif-ifd3-GPSLatitudeRef") == "S" ? -lat : lat
            longitude = text("exif-ifd3-GPSLongitudeRef") == "W" ? -lon : lon
        }
    }

    /// "2024:06:01 18:30:05" → "2024-06-01T18:30:05"
    static func isoDate(_ s: String) -> String? {
        let parts = s.split(separator: " ")
        guard parts.count == 2 else { return nil }
        let day = parts[0].split(separator: ":"), time = parts[1].split(separator: ":")
        guard day.count == 3, time.count == 3, day.allSatisfy({ Int($0) != nil }), time.allSatisfy({ Int($0) != nil }),
              Int(day[0])! > 0 else { return nil }
        return "\(day[0])-\(day[1])-\(day[2])T\(time[0]):\(time[1]):\(time[2])"
    }

    static func offset(_ s: String) -> String? {
        let t = s.trimmingCharacters(in: " ")
        guard t.count == 6, t.first == "+" || t.first == "-", t.dropFirst().split(separator: ":").count == 2 else { return nil }
        return t
    }

    static func rational(_ s: String) -> (n: Int, d: Int)? {
        let p = s.split(separator: " ").first?.split(separator: "/") ?? []
        guard p.count == 2, let n = Int(p[0]), let d = Int(p[1]), d != 0 else { return nil }
        return (n, d)
    }

    /// "48/1 51/1 756/25" → 48.8584
    static func degrees(_ s: String) -> Double? {
        let parts = s.split(separator: " ").compactMap { rational(String($0)) }
        guard parts.count == 3 else { return nil }
        let v = parts.map { Double($0.n) / Double($0.d) }
        return v[0] + v[1] / 60 + v[2] / 3600
    }

    /// 5.6 → "5.6", 50.0 → "50", 125.0 → "125"
    static func number(_ v: Double) -> String {
        let rounded = (v * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return String(s)
    }
}

extension Substring {
    fileprivate func range(of needle: String) -> Range<Index>? {
        var i = startIndex
        while i < endIndex {
            if self[i...].hasPrefix(needle) { return i..<index(i, offsetBy: needle.count) }
            i = index(after: i)
        }
        return nil
    }
}
