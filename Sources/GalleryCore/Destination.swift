/// Where items go: an index in a section (after the moved items are taken out), the end of a
/// section, or beside an anchor item. JSON: `{"section": 3, "index": 0}`, `{"section": 3}`
/// (end), `{"before": 17}`, `{"after": 17}`.
public enum Destination: Equatable, Sendable {
    case index(section: Int64, index: Int)
    case end(section: Int64)
    case before(item: Int64)
    case after(item: Int64)
}

extension Destination: Codable {
    private enum Keys: String, CodingKey { case section, index, before, after }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        // One place only: {"before": 1, "section": 2} is ambiguous, and an index needs its section.
        let named = [Keys.before, .after, .section].filter { c.contains($0) }
        if named.count > 1 {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                debugDescription: "destination names more than one place (\(named.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))): give one"))
        }
        if c.contains(.index) && !c.contains(.section) {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "\"index\" needs \"section\""))
        }
        if let id = try c.decodeIfPresent(Int64.self, forKey: .before) {
            self = .before(item: id)
        } else if let id = try c.decodeIfPresent(Int64.self, forKey: .after) {
            self = .after(item: id)
        } else if let section = try c.decodeIfPresent(Int64.self, forKey: .section) {
            if let index = try c.decodeIfPresent(Int.self, forKey: .index) {
                self = .index(section: section, index: index)
            } else {
                self = .end(section: section)
            }
        } else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                debugDescription: "destination needs \"section\" (with optional \"index\"), \"before\" or \"after\""))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        switch self {
        case let .index(section, index): try c.encode(section, forKey: .section); try c.encode(index, forKey: .index)
        case let .end(section): try c.encode(section, forKey: .section)
        case let .before(item): try c.encode(item, forKey: .before)
        case let .after(item): try c.encode(item, forKey: .after)
        }
    }
}
