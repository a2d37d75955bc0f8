import Testing

@Test func ImagingPlaceholderBuilds() { #expect(Bool(true)) }
