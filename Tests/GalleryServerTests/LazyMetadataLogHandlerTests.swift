import Testing
import Foundation
import Logging
import Synchronization
@testable import GalleryServer

/// The server's log handler (issue 15.3): the metadata is formatted when a line is written, not
/// when it is set — and the line is the one swift-log's `StreamLogHandler` writes.
@Suite(.serialized) struct LazyMetadataLogHandlerTests {
    /// What `body` writes to standard error (read while it runs, so a full pipe never blocks it).
    static func standardError(_ body: () -> Void) -> String {
        let pipe = Pipe()
        let saved = dup(2)
        let data = Mutex(Data())
        let done = DispatchSemaphore(value: 0)
        let reader = pipe.fileHandleForReading
        Thread.detachNewThread { let read = reader.readDataToEndOfFile(); data.withLock { $0 = read }; done.signal() }
        fflush(nil)
        dup2(pipe.fileHandleForWriting.fileDescriptor, 2)
        body()
        fflush(nil)
        dup2(saved, 2)
        close(saved)
        try? pipe.fileHandleForWriting.close()
        done.wait()
        return String(decoding: data.withLock { $0 }, as: UTF8.self)
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
