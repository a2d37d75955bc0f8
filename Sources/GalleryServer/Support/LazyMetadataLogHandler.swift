import Logging

/// The server's log lines exactly as swift-log's default handler writes them (`StreamLogHandler`
/// on standard error), with the metadata turned into text only when a line is written.
/// `StreamLogHandler` formats it each time it changes, and Hummingbird sets a request id on every
/// request's logger: under 50 clients moving that was ~1.4 % of the server's CPU (issue 15.3),
/// for lines that are almost never written. `bootstrap()` at a process's start, before its first
/// logger.
public struct LazyMetadataLogHandler: LogHandler {
    private var stream: StreamLogHandler
    public var metadata: Logger.Metadata = [:]

    public init(label: String, metadataProvider: Logger.MetadataProvider?) {
        stream = .standardError(label: label, metadataProvider: metadataProvider)
    }

    /// Installs it as the process's handler (once; later calls do nothing).
    public static func bootstrap() { _ = installed }
    private static let installed: Void = LoggingSystem.bootstrap({ label, provider in
        LazyMetadataLogHandler(label: label, metadataProvider: provider)
    }, metadataProvider: nil)

    public var logLevel: Logger.Level {
        get { stream.logLevel }
        set { stream.logLevel = newValue }
    }

    public var metadataProvider: Logger.MetadataProvider? {
        get { stream.metadataProvider }
        set { stream.metadataProvider = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var line = stream
        line.metadata = metadata
        line.log(event: event)
    }
}
