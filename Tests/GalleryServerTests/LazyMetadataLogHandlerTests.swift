import Testing
import Foundation
import Logging
@testable import GalleryServer

/// The server's log handler (issue 15.3): the metadata is formatted when a line is written, not
/// when it is set — and the line is the one swift-log's `StreamLogHandler` writes.
@Suite(.serialized) struct LazyMetadataLogHandlerTests {
    /// What `body` writes to standard error. Read without waiting for the pipe's end: a process
    /// another test starts meanwhile inherits the pipe as its standard error and could hold it
    /// open for as long as it runs. The pipe holds 1 MB, so no writer blocks before it is read.
    static func standardError(_ body: () -> Void) -> String {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return "" }
        _ = fcntl(ends[1], 1031, 1 << 20) // F_SETPIPE_SZ (Linux; not in Swift's Glibc module)
        _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
        let saved = dup(2)
        fflush(nil)
        dup2(ends[1], 2)
        body()
        fflush(nil)
        dup2(saved, 2)
        close(saved)
        close(ends[1])
        var text = Data()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while case let n = read(ends[0], &chunk, chunk.count), n > 0 { text.append(contentsOf: chunk[..<n]) }
        close(ends[0])
        return String(decoding: text, as: UTF8.self)
    }

    /// The line that ends with `marker`, without its timestamp (the text before the first space).
    static func line(_ text: String, _ marker: String) -> String? {
        text.split(separator: "\n").first { $0.hasSuffix(" " + marker) }.map { String($0.drop { $0 != " " }) }
    }

    @Test func aLineCarriesTheMetadataSetBeforeItAsStreamLogHandlerWritesIt() throws {
        func configured(_ handler: some LogHandler) -> Logger {
            var logger = Logger(label: "gallery.test-log") { _ in handler }
            logger.logLevel = .debug
            logger[metadataKey: "hb.request.id"] = "7f3a"
            logger[metadataKey: "user"] = "ann"
            logger[metadataKey: "user"] = "bob" // the last value counts
            logger[metadataKey: "gone"] = "x"
            logger[metadataKey: "gone"] = nil
            return logger
        }
        let lazy = configured(LazyMetadataLogHandler(label: "gallery.test-log", metadataProvider: nil))
        let stream = configured(StreamLogHandler.standardError(label: "gallery.test-log"))
        #expect(lazy[metadataKey: "user"] == "bob" && lazy[metadataKey: "gone"] == nil)
        #expect(lazy.logLevel == .debug)
        let text = Self.standardError {
            lazy.debug("lazy-marker", metadata: ["extra": "1"])
            stream.debug("lazy-marker-stream", metadata: ["extra": "1"])
            lazy.trace("lazy-marker-trace") // below the level: not written
        }
        let mine = try #require(Self.line(text, "lazy-marker"), "the lazy handler's line in: \(text)")
        let theirs = try #require(Self.line(text, "lazy-marker-stream"), "StreamLogHandler's line in: \(text)")
        #expect(mine.contains("hb.request.id=7f3a") && mine.contains("user=bob") && mine.contains("extra=1") && !mine.contains("gone"))
        #expect(mine == theirs.replacingOccurrences(of: "lazy-marker-stream", with: "lazy-marker"))
        #expect(!text.contains("lazy-marker-trace"))
    }
}
