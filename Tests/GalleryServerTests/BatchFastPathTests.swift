import Foundation
import Testing
@testable import GalleryCore
import GridEngine
@testable import GalleryStore
@testable import GalleryServer

/// The move's hot path reads and writes JSON without Foundation's coders (issue 15.3); these
/// check that it reads exactly what `JSONDecoder` reads and writes exactly the bytes
/// `JSONEncoder` writes, on generated values (the answers stay byte-compatible with the API's).
@Suite struct BatchFastPathTests {
    static let numbers: [Int64] = [0, 1, 7, 10, 42, 99, 100, 65_535, 1_000_000, 123_456_789_012_345_678, 999_999_999_999_999_999,
                                   -1, -9, -10, -123_456_789_012_345_678]

    func decoded(_ text: String) -> (Int64?, [BatchEdit])? {
        guard let b = try? JSONDecoder().decode(BatchRoutes.BatchBody.self, from: Data(text.utf8)) else { return nil }
        return (b.baseVersion, b.operations)
    }

    func fast(_ text: String) -> BatchRoutes.BatchBody? {
        Array(text.utf8).withUnsafeBytes { BatchFastPath.singleMove($0) }
    }

    @Test func aSingleMoveIsReadAsJSONDecoderReadsIt() {
        var checked = 0
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let (item, section, index, base) = (Self.numbers.randomElement(using: &rng)!, Self.numbers.randomElement(using: &rng)!,
                                                Self.numbers.randomElement(using: &rng)!, Self.numbers.randomElement(using: &rng)!)
            let op = #"{"op":"move","items":[\#(item)],"to":{"section":\#(section),"index":\#(index)}}"#
            for body in [#"{"operations":[\#(op)]}"#, #"{"baseVersion":\#(base),"operations":[\#(op)]}"#,
                         #"{"operations":[\#(op)],"baseVersion":\#(base)}"#] {
                let f = fast(body)
                let d = decoded(body)
                #expect(f != nil, "\(body)")
                #expect(f?.baseVersion == d?.0 && f?.operations == d?.1, "\(body)")
                checked += 1
            }
        }
        #expect(checked == 6_000)
    }

    @Test func anyOtherTextIsLeftToJSONDecoder() {
        let op = #"{"op":"move","items":[5],"to":{"section":3,"index":0}}"#
        let others = [
            #"{ "operations":[\#(op)]}"#, #"{"operations": [\#(op)]}"#, #"{"operations":[\#(op)] }"#,
            #"{"operations":[{"op":"move","items":[05],"to":{"section":3,"index":0}}]}"#,
            #"{"operations":[{"op":"move","items":[5.0],"to":{"section":3,"index":0}}]}"#,
            #"{"operations":[{"op":"move","items":[5e0],"to":{"section":3,"index":0}}]}"#,
            #"{"operations":[{"op":"move","items":[5],"to":{"section":3,"index":1E2}}]}"#,
            #"{"operations":[{"op":"move","items":[1234567890123456789],"to":{"section":3,"index":0}}]}"#,
            #"{"operations":[{"op":"move","items":[-],"to":{"section":3,"index":0}}]}"#,
            #"{"operations":[{"op":"move","items":[5,6],"to":{"section":3,"index":0}}]}"#,
            #"{"operations":[{"op":"move","items":[],"to":{"section":3,"index":0}}]}"#,
            #"{"operations":[{"op":"move","items":[5],"to":{"index":0,"section":3}}]}"#,
            #"{"operations":[{"op":"move","items":[5],"to":{"section":3}}]}"#,
            #"{"operations":[{"op":"copy","items":[5],"to":{"section":3,"index":0}}]}"#,
            #"{"operations":[\#(op),\#(op)]}"#,
            #"{"operations":[\#(op)]}x"#, #"{"operations":[\#(op)]"#, #"{"operations":[\#(op)],}"#,
            #"{"baseVersion":null,"operations":[\#(op)]}"#, #"{"baseVersion":"3","operations":[\#(op)]}"#,
            #"{"baseVersion":1,"operations":[\#(op)],"baseVersion":2}"#,
            #"{"operations":[\#(op)],"extra":1}"#,
        ]
        for body in others {
            #expect(fast(body) == nil, "\(body)")
        }
        // Some of them are fine JSON and still read the same way, by JSONDecoder.
        #expect(decoded(others[0])?.1 == [.move(items: [5], to: .index(section: 3, index: 0))])
        #expect(decoded(others[11])?.1 == [.move(items: [5], to: .index(section: 3, index: 0))])
    }

    static let titles: [String] = {
        var every = ""
        for c in 0..<0x80 { every.unicodeScalars.append(Unicode.Scalar(UInt8(c))) }
        return ["", "Summer", every, "a/b\\c\"d", "Ünïcødé 🥸 \u{2028}\u{2029}\u{FEFF}", "tab\there\nline\r\u{0C}\u{08}\u{7F}", String(repeating: "x", count: 300)]
    }()

    func stage(_ rng: inout some RandomNumberGenerator) -> StageJSON {
        func n(_ max: Int = 1_000) -> Int { Int.random(in: 0...max, using: &rng) }
        func path() -> [Int] { [n(9), n()] }
        func few<T>(_ make: () -> T) -> [T] { (0..<Int.random(in: 0...3, using: &rng)).map { _ in make() } }
        var b = BatchUpdate()
        b.itemCountsAfter = few { n(100_000) }
        var s = StageJSON(b)
        s.sectionDeletes = few { n(9) }
        s.sectionInserts = few { .init(index: n(9), id: UInt64(n(1 << 20)), items: few { UInt64(n(1 << 30)) }, versions: few { UInt32(n(70_000)) }) }
        s.sectionMoves = few { .init(from: [n(9)], to: [n(9)]) }
        s.itemDeletes = few(path)
        s.itemInserts = few { .init(at: path(), id: UInt64.random(in: 0...UInt64.max, using: &rng), version: UInt32.random(in: 0...UInt32.max, using: &rng)) }
        s.itemMoves = few { .init(from: path(), to: path()) }
        s.itemReloads = few { .init(at: path(), version: UInt32(n(9))) }
        if Bool.random(using: &rng) {
            s.deletedIDs = few { UInt64(n(1 << 40)) }
            s.movedIDs = few { UInt64(n(1 << 40)) }
            s.reloadedIDs = few { UInt64(n(1 << 40)) }
        }
        return s
    }

    @Test func aMovesAnswerIsWrittenByteForByteAsJSONEncoderWritesIt() throws {
        var rng = SystemRandomNumberGenerator()
        for k in 0..<500 {
            let changes = ChangesJSON(
                fromVersion: Int64.random(in: 0...1 << 40, using: &rng), toVersion: Int64.random(in: 0...1 << 40, using: &rng),
                stages: (0..<Int.random(in: 0...3, using: &rng)).map { _ in stage(&rng) }, items: [],
                sections: (0..<Int.random(in: 0...12, using: &rng)).map { i in
                    SectionInfoJSON(id: Int64.random(in: -5...1 << 50, using: &rng), title: Self.titles[(k + i) % Self.titles.count])
                },
                name: k % 3 == 0 ? nil : Self.titles[k % Self.titles.count])
            let result = BatchResult(version: changes.toVersion, changes: changes,
                                     createdItems: (0..<k % 3).map { _ in Int64.random(in: 1...1 << 50, using: &rng) },
                                     createdSections: (0..<k % 2).map { _ in Int64.random(in: 1...1 << 50, using: &rng) },
                                     rowsWritten: Int.random(in: 0...100_000, using: &rng),
                                     orphanedHashes: (0..<k % 3).map { _ in Self.titles[Int.random(in: 0..<Self.titles.count, using: &rng)] })
            let expected = Array(try JSONIO.encoder.encode(result))
            let written = try #require(BatchFastPath.answer(result))
            #expect(written == expected, "\(String(decoding: written, as: UTF8.self))\n\(String(decoding: expected, as: UTF8.self))")
            #expect(changes.fastJSON == Array(try JSONIO.encoder.encode(changes)))
            // The log row's stages read back as they were.
            #expect(try JSONDecoder().decode([StageJSON].self, from: Data(StageJSON.json(changes.stages))) == changes.stages)
        }
    }

    @Test func changesWithItemDataAreLeftToJSONEncoder() {
        let item = ItemJSON(id: 1, sectionId: 2, title: "t", sourceURL: nil, fileHash: nil, width: 3, height: 4, aspect: 0.75,
                            state: .ready, reason: nil, version: 0, thumbnails: nil, trashed: false)
        let changes = ChangesJSON(fromVersion: 1, toVersion: 2, stages: [], items: [item], sections: [])
        #expect(changes.fastJSON == nil)
        #expect(BatchFastPath.answer(BatchResult(version: 2, changes: changes, createdItems: [1], createdSections: [], rowsWritten: 1,
                                                 orphanedHashes: [])) == nil)
    }

    @Test func aSingleMovesLogRowReadsBackAsTheMove() throws {
        for (item, section, index) in [(Int64(5), Int64(3), 0), (-1, 0, -7), (1 << 50, 1 << 40, 123_456)] {
            let ops: [BatchEdit] = [.move(items: [item], to: .index(section: section, index: index))]
            let text = try GalleryStore.payloadText(ops)
            #expect(try JSONDecoder().decode([BatchEdit].self, from: Data(text.utf8)) == ops, "\(text)")
        }
        let other: [BatchEdit] = [.trash(items: [1, 2])]
        #expect(try JSONDecoder().decode([BatchEdit].self, from: Data(try GalleryStore.payloadText(other).utf8)) == other)
    }
}

@Suite struct SecretDigestTests {
    /// The stored digest is SHA-256 in lower-case hex, as it was with `String(format: "%02x")`
    /// (sessions and tokens stored before still match).
    @Test func theDigestIsTheSHA256InLowerCaseHexAsBefore() {
        #expect(Secrets.digest("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Secrets.digest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let d = Secrets.digest(Secrets.token())
        #expect(d.count == 64 && d.allSatisfy { "0123456789abcdef".contains($0) })
    }
}
