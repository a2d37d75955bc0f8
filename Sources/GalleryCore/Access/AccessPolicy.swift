/// Who may do what (B8): a pure table from a role to the actions it allows. The server asks it
/// on every route; nothing else decides access.
///
///     AccessPolicy.allows(.editor, .arrange)                       // true
///     AccessPolicy.allows(.viewer, .arrange)                       // false
///     AccessPolicy.allows(link: .viewer, .download, options: o)    // o.allowDownload
public enum AccessPolicy {
    public static func allows(_ role: GalleryRole, _ action: GalleryAction) -> Bool {
        switch role {
        case .owner: return true
        case .editor: return action != .share && action != .delete && action != .rename
        case .viewer: return action == .view || action == .viewMetadata || action == .download
        }
    }

    /// What a share link's visitor may do. A link never shares or deletes, never renames the
    /// gallery or copies it elsewhere; metadata and downloads only when the link says so.
    public static func allows(link role: LinkRole, _ action: GalleryAction, options: LinkOptions) -> Bool {
        switch action {
        case .share, .delete, .rename, .duplicate: return false
        case .viewMetadata: return role != .uploader && options.showMetadata
        case .download: return role != .uploader && options.allowsDownload
        case .view: return role != .uploader
        case .add: return role == .editor || role == .uploader
        case .arrange, .trash: return role == .editor
        }
    }
}

/// The choices a share link was made with.
public struct LinkOptions: Codable, Sendable, Equatable {
    public var allowDownload: Bool
    public var showMetadata: Bool

    public init(allowDownload: Bool, showMetadata: Bool) {
        self.allowDownload = allowDownload; self.showMetadata = showMetadata
    }

    /// Originals carry their EXIF and GPS, so a link that hides metadata never hands them out.
    public var allowsDownload: Bool { allowDownload && showMetadata }
}
