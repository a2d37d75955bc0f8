import Testing
import Foundation
@testable import GalleryServer

/// Thumbnails are made at a lower CPU priority than requests are answered (issue 15: the next
/// request stays quick while 1,000 photos are ingested on two cores).
@Suite struct IngestPriorityTests {
    static func nice() -> Int32 { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }

    @Test func ingestionRunsNicedAndRequestWorkDoesNot() async throws {
        let before = Self.nice()
        var seen: Set<Int32> = []
        for _ in 0..<8 { seen.insert(try await Ingestor.inBackground { Self.nice() }) }
        #expect(seen == [Ingestor.backgroundNice])
        // A detail thumbnail someone waits for, bcrypt, DNS: the shared pool, not lowered.
        #expect(try await Ingestor.offload { Self.nice() } == before)
        #expect(Self.nice() == before)
    }
}
