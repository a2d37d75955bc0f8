import Foundation
import Hummingbird
import GalleryCore
import GalleryStore

/// `GET /api/galleries/:gallery/sections/:section/order?by=captured|name` (issue 12: a
/// starting order). Answers the section's items (not trashed) in that order; the page hands
/// it to the engine, which commits it as one move: one batch, one version, one undo step.
/// Nothing is changed here.
///
/// - `captured`: by the instant of capture (EXIF DateTimeOriginal with its offset; a date
///   without an offset counts as UTC), oldest first; items without a capture date (no EXIF,
///   still loading, failed) follow in their current order, and are counted in `undated`.
///   Needs `viewMetadata` too: a link that hides metadata cannot learn capture times this way.
/// - `name`: by title as a file browser sorts (case-insensitive, numbers by value: IMG_2
///   before IMG_10).
/// Ties keep the current order.
struct SectionOrder: Encodable {
    var section: Int64
    var by: String
    var items: [Int64]
    var undated: Int

    enum Key: String { case captured, name }

    static func register(_ api: RouterGroup<GalleryRequestContext>, server: GalleryServer) {
        api.get("galleries/:gallery/sections/:section/order") { request, context in
            let gallery = try context.gallery
            let sectionID = try context.id("section")
            let text = request.uri.queryParameters.get("by") ?? ""
            guard let key = Key(rawValue: text) else {
                throw APIError(.badRequest, "query parameter \"by\" must be captured or name (got \"\(text)\")")
            }
            if key == .captured, try await server.access.allows(try context.caller, .viewMetadata, gallery: gallery) != true {
                throw APIError(.forbidden, "this link does not show metadata, so it cannot sort by capture date")
            }
            let snapshot = try await server.store.snapshot(gallery)
            guard let section = snapshot.sections.first(where: { $0.id == sectionID }) else {
                throw APIError(.notFound, "unknown section \(sectionID) in gallery \(gallery)")
            }
            let items = section.items.filter { !$0.trashed }
            let answer: SectionOrder
            switch key {
            case .name:
                answer = SectionOrder(section: sectionID, by: key.rawValue, items: byName(items).map(\.id), undated: 0)
            case .captured:
                var dates: [Int64: Double] = [:]
                for item in items where item.state == .ready {
                    guard let hash = item.fileHash,
                          let captured = try await ItemMetadata.photoMetadata(hash, files: server.store.files)?.captured,
                          let instant = instant(captured) else { continue }
                    dates[item.id] = instant
                }
                answer = SectionOrder(section: sectionID, by: key.rawValue, items: byCapture(items, dates).map(\.id),
                                      undated: items.count - dates.count)
            }
            return try JSONIO.response(answer, headers: [.cacheControl: "private, no-store"])
        }
    }

    static func byName(_ items: [ItemJSON]) -> [ItemJSON] {
        let options: String.CompareOptions = [.caseInsensitive, .numeric, .diacriticInsensitive, .widthInsensitive]
        return items.enumerated().sorted { a, b in
            switch a.element.title.compare(b.element.title, options: options) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: return a.offset < b.offset
            }
        }.map(\.element)
    }

    static func byCapture(_ items: [ItemJSON], _ dates: [Int64: Double]) -> [ItemJSON] {
        items.enumerated().sorted { a, b in
            switch (dates[a.element.id], dates[b.element.id]) {
            case let (x?, y?): return x != y ? x < y : a.offset < b.offset
            case (_?, nil): return true
            case (nil, _?): return false
            case (nil, nil): return a.offset < b.offset
            }
        }.map(\.element)
    }

    /// Seconds since 1970 of "2024-06-01T18:30:05+02:00" (offset applied) or
    /// "2024-06-01T18:30:05" (taken as UTC); nil for anything else.
    static func instant(_ text: String) -> Double? {
        let u = Array(text.utf8)
        guard u.count == 19 || u.count == 25 else { return nil }
        func number(_ from: Int, _ length: Int) -> Int? {
            var n = 0
            for k in from..<(from + length) {
                guard u[k] >= 48 && u[k] <= 57 else { return nil }
                n = n * 10 + Int(u[k] - 48)
            }
            return n
        }
        guard u[4] == 45, u[7] == 45, u[10] == 84, u[13] == 58, u[16] == 58,
              let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var offset = 0
        if u.count == 25 {
            guard u[19] == 43 || u[19] == 45, u[22] == 58, let oh = number(20, 2), let om = number(23, 2), oh < 24, om < 60 else { return nil }
            offset = (oh * 3600 + om * 60) * (u[19] == 45 ? -1 : 1)
        }
        // Days from 1970-01-01 (proleptic Gregorian; Howard Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset)
    }
}
