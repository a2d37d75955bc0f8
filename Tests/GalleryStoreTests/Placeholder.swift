import Testing

@Test func GalleryStorePlaceholderBuilds() { #expect(Bool(true)) }
