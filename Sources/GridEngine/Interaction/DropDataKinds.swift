/// The kinds of data a dragged item offers (its representations): the app's own items
/// (the custom type of F5), a URL, a file, an image, plain text. An external item often
/// offers several at once (an image dragged from a web page offers a URL and an image).
///
///     let fromSafari: DropDataKinds = [.url, .image]
///     policy.acceptedExternal = [[.url, .image]]   // the gallery needs both (F18)
public struct DropDataKinds: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let ownItems = DropDataKinds(rawValue: 1)
    public static let url = DropDataKinds(rawValue: 2)
    public static let file = DropDataKinds(rawValue: 4)
    public static let image = DropDataKinds(rawValue: 8)
    public static let text = DropDataKinds(rawValue: 16)
}
