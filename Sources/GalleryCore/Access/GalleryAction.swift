/// Everything a request can do to a gallery, as the access policy sees it.
public enum GalleryAction: String, Sendable, CaseIterable {
    /// Grid, detail, live stream, catch-up, slideshow.
    case view
    /// Capture date, camera, lens, GPS of the photos.
    case viewMetadata
    /// Originals and the zip of the arranged gallery.
    case download
    /// Move, swap, copy, sort, rename and add sections: any arrangement batch.
    case arrange
    /// Add images: uploads and dropped URLs.
    case add
    /// Read the trash, trash, restore and purge.
    case trash
    /// Copy the gallery into a new one of one's own (and export it as an archive).
    case duplicate
    /// Rename the gallery itself.
    case rename
    /// Members and share links.
    case share
    /// Delete the whole gallery.
    case delete
}
