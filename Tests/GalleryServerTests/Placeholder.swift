import Testing

@Test func GalleryServerPlaceholderBuilds() { #expect(Bool(true)) }
