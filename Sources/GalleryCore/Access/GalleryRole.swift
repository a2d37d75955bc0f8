/// What a person may do with one gallery (B8). Members hold one of these; a share link
/// grants `LinkRole`, which maps onto the same actions.
public enum GalleryRole: String, Codable, Sendable, CaseIterable, Comparable {
    case viewer, editor, owner

    public static func < (a: GalleryRole, b: GalleryRole) -> Bool { a.rank < b.rank }
    private var rank: Int { switch self { case .viewer: 0; case .editor: 1; case .owner: 2 } }
}

/// The role a share link gives its visitors: a viewer or editor without an account, or an
/// uploader ("file drop") who adds images and sees only what the link added.
public enum LinkRole: String, Codable, Sendable, CaseIterable {
    case viewer, editor, uploader
}
