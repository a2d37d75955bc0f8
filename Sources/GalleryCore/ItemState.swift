/// Where an item is in its life: a placeholder while its image loads, then ready or failed.
public enum ItemState: String, Codable, Sendable {
    case pending
    case ready
    case failed
}
