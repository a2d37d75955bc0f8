import Testing
import GalleryStore

@Test func contentHashKnownVectors() {
    #expect(ContentHash.hex(Array("".utf8)) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(ContentHash.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(ContentHash.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
}

@Test func contentHashStreamingInOddChunksMatchesOneShot() {
    // Reference value from Python's hashlib for bytes i % 251, i < 100,000.
    let bytes = (0..<100_000).map { UInt8($0 % 251) }
    var d = ContentHash()
    var i = 0, step = 1
    while i < bytes.count { let j = min(bytes.count, i + step); d.update(bytes[i..<j]); i = j; step = step * 3 % 1000 + 1 }
    #expect(d.finalize() == "cd2df694e424bc7968cc37f47751019e5ca0cd1bdf2e479ea537c3a1c32ee1aa")
}
