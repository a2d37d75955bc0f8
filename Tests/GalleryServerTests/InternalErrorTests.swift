import Foundation
import Testing
import GalleryStore
@testable import GalleryServer

/// A 500 tells the caller that the request failed, not what the database or the runtime said
/// (a driver's codes, table names, paths): those go to the server's log.
@Suite struct InternalErrorTests {
    @Test func fiveHundredsCarryNoInternalDetail() throws {
        struct Odd: Error, CustomStringConvertible { var description: String { "/srv/gallery/data/gallery.sqlite: disk I/O error" } }
        for error: Error in [StoreError.database("22021: invalid byte sequence for encoding UTF8 in table account"),
                             StoreError.corrupt("rank keys out of order (a0 ≥ Zz) in section 7"),
                             Odd()] {
            let answer = try #require(APIError.from(error) as? APIError)
            #expect(answer.status == .internalServerError)
            #expect(answer.message == APIError.internalMessage)
            for secret in ["22021", "account", "rank keys", "section 7", "/srv/gallery", "sqlite"] {
                #expect(!answer.message.contains(secret), "\(secret) in \(answer.message)")
            }
        }
    }

    @Test func clientErrorsStillSayWhatWasWrong() throws {
        let invalid = try #require(APIError.from(StoreError.invalid("index 9 is out of range 0...3 for section 2")) as? APIError)
        #expect(invalid.status == .unprocessableContent)
        #expect(invalid.message.contains("index 9 is out of range"))
        let missing = try #require(APIError.from(StoreError.itemNotFound(42)) as? APIError)
        #expect(missing.status == .notFound)
    }
}
