import Testing
@testable import GalleryStore

/// Columns are found by name the way either backend spells them (PostgreSQL folds unquoted
/// names to lower case), without Foundation's string comparison on the row-reading path.
@Suite struct SQLRowTests {
    let row = SQLRow(names: ["id", "galleryId", "fileHash", "title_2"], values: [.int(7), .int(3), .text("ab"), .null])

    @Test func findsTheSameSpellingAndOtherCases() {
        #expect(row.index(of: "galleryId") == 1)
        #expect(row.index(of: "galleryid") == 1)
        #expect(row.index(of: "GALLERYID") == 1)
        #expect(row.index(of: "FileHash") == 2)
        #expect(row.index(of: "TITLE_2") == 3)
        let lowered = SQLRow(names: ["id", "galleryid"], values: [.int(1), .int(2)])
        let g: Int64 = lowered["galleryId"]
        #expect(g == 2)
    }

    @Test func refusesWhatIsNotTheName() {
        #expect(row.index(of: "gallery") == nil)
        #expect(row.index(of: "galleryIdx") == nil)
        #expect(row.index(of: "") == nil)
        // Only ASCII letters fold: '_' (0x5F) is not '' (0x7F), '@' (0x40) is not '`' (0x60).
        #expect(row.index(of: "title\u{7F}2") == nil)
        #expect(!SQLRow.asciiCaseInsensitiveEqual("@", "`"))
        #expect(!SQLRow.asciiCaseInsensitiveEqual("[", "{"))
        #expect(SQLRow.asciiCaseInsensitiveEqual("Z", "z"))
        #expect(!SQLRow.asciiCaseInsensitiveEqual("é", "É")) // not an identifier SQL names here
    }
}
