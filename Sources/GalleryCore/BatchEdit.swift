/// One arrangement change a client asks for. A batch of them is applied in one transaction
/// and makes one gallery version. JSON: `{"op": "move", "items": [1, 2], "to": {"section": 3, "index": 0}}`.
public enum BatchEdit: Equatable, Sendable {
    /// Items leave their places and are inserted, in the given order, at the destination (F26, F29).
    case move(items: [Int64], to: Destination)
    /// New items with the same content, in order, at the destination (F29 copy).
    case copy(items: [Int64], to: Destination)
    /// Two items exchange places (F3).
    case swap(Int64, Int64)
    /// To the trash; each keeps its section and rank so that restore puts it back (F21).
    case trash(items: [Int64])
    case restore(items: [Int64])
    /// Deletes trashed items for good.
    case purge(items: [Int64])
    case renameItem(Int64, title: String)
    case createSection(title: String, index: Int?)
    case renameSection(Int64, title: String)
    case moveSection(Int64, index: Int)
    /// Trashes the section's items and hides the section; restoring one of its items brings it back.
    case deleteSection(Int64)
}

extension BatchEdit: Codable {
    private enum Keys: String, CodingKey { case op, items, to, a, b, item, title, section, index }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        let op = try c.decode(String.self, forKey: .op)
        switch op {
        case "move": self = .move(items: try c.decode([Int64].self, forKey: .items), to: try c.decode(Destination.self, forKey: .to))
        case "copy": self = .copy(items: try c.decode([Int64].self, forKey: .items), to: try c.decode(Destination.self, forKey: .to))
        case "swap": self = .swap(try c.decode(Int64.self, forKey: .a), try c.decode(Int64.self, forKey: .b))
        case "trash": self = .trash(items: try c.decode([Int64].self, forKey: .items))
        case "restore": self = .restore(items: try c.decode([Int64].self, forKey: .items))
        case "purge": self = .purge(items: try c.decode([Int64].self, forKey: .items))
        case "renameItem": self = .renameItem(try c.decode(Int64.self, forKey: .item), title: try c.decode(String.self, forKey: .title))
        case "createSection": self = .createSection(title: try c.decode(String.self, forKey: .title), index: try c.decodeIfPresent(Int.self, forKey: .index))
        case "renameSection": self = .renameSection(try c.decode(Int64.self, forKey: .section), title: try c.decode(String.self, forKey: .title))
        case "moveSection": self = .moveSection(try c.decode(Int64.self, forKey: .section), index: try c.decode(Int.self, forKey: .index))
        case "deleteSection": self = .deleteSection(try c.decode(Int64.self, forKey: .section))
        default:
            throw DecodingError.dataCorruptedError(forKey: .op, in: c, debugDescription:
                "unknown op \"\(op)\" (move, copy, swap, trash, restore, purge, renameItem, createSection, renameSection, moveSection, deleteSection)")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        switch self {
        case let .move(items, to): try c.encode("move", forKey: .op); try c.encode(items, forKey: .items); try c.encode(to, forKey: .to)
        case let .copy(items, to): try c.encode("copy", forKey: .op); try c.encode(items, forKey: .items); try c.encode(to, forKey: .to)
        case let .swap(a, b): try c.encode("swap", forKey: .op); try c.encode(a, forKey: .a); try c.encode(b, forKey: .b)
        case let .trash(items): try c.encode("trash", forKey: .op); try c.encode(items, forKey: .items)
        case let .restore(items): try c.encode("restore", forKey: .op); try c.encode(items, forKey: .items)
        case let .purge(items): try c.encode("purge", forKey: .op); try c.encode(items, forKey: .items)
        case let .renameItem(id, title): try c.encode("renameItem", forKey: .op); try c.encode(id, forKey: .item); try c.encode(title, forKey: .title)
        case let .createSection(title, index): try c.encode("createSection", forKey: .op); try c.encode(title, forKey: .title); try c.encodeIfPresent(index, forKey: .index)
        case let .renameSection(id, title): try c.encode("renameSection", forKey: .op); try c.encode(id, forKey: .section); try c.encode(title, forKey: .title)
        case let .moveSection(id, index): try c.encode("moveSection", forKey: .op); try c.encode(id, forKey: .section); try c.encode(index, forKey: .index)
        case let .deleteSection(id): try c.encode("deleteSection", forKey: .op); try c.encode(id, forKey: .section)
        }
    }
}

extension BatchEdit {
    /// How many items the operation names (what a batch's size limit counts).
    public var itemCount: Int {
        switch self {
        case let .move(items, _), let .copy(items, _), let .trash(items), let .restore(items), let .purge(items): return items.count
        case .swap: return 2
        case .renameItem: return 1
        case .createSection, .renameSection, .moveSection, .deleteSection: return 0
        }
    }
}
