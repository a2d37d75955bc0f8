import ArgumentParser
import Foundation
import Logging
import GalleryServer
import GalleryStore

@main
struct GalleryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gallery",
        abstract: "The drag-and-drop image gallery server.",
        subcommands: [Serve.self, Export.self, Import.self],
        defaultSubcommand: Serve.self)
}

struct DataOptions: ParsableArguments {
    @Option(name: .long, help: "Data folder: the SQLite file and the content-addressed images.")
    var data: String = "gallery-data"
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the API, live streams, the page (Web/) and engine.wasm.")

    @Option(name: .long, help: "Address to bind.") var host: String = "127.0.0.1"
    @Option(name: .long, help: "Port to bind.") var port: Int = 8080
    @OptionGroup var data: DataOptions
    @Option(name: .long, help: "Folder of the page served at /.") var web: String = "Web"
    @Option(name: .long, help: "engine.wasm served at /engine.wasm.") var wasm: String = ".build-wasm/engine.wasm"
    @Flag(name: .long, help: "Let dropped URLs reach loopback and private networks (tests, LANs). Link-local and metadata stay refused.")
    var allowPrivateAddresses = false
    @Option(name: .long, help: "Largest upload request in MiB.") var maxUploadMb: Int = 64
    @Option(name: .long, help: "Largest fetched image in MiB.") var maxFetchMb: Int = 32
    @Option(name: .long, help: "Fetch timeout in seconds (whole fetch, redirects included).") var fetchTimeout: Int = 20
    @Option(name: .long, help: "Largest image in megapixels (decompression-bomb guard).") var maxMegapixels: Int = 100
    @Flag(name: .long, help: "Do not create the sample gallery on first start.") var noSample = false
    @Option(name: .long, help: "Log level (trace, debug, info, notice, warning, error).") var logLevel: String = "info"

    func run() async throws {
        var logger = Logger(label: "gallery")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        var config = ServerConfiguration()
        config.host = host
        config.port = port
        config.dataFolder = URL(fileURLWithPath: data.data)
        config.webFolder = URL(fileURLWithPath: web)
        config.wasmPath = URL(fileURLWithPath: wasm)
        config.allowPrivateAddresses = allowPrivateAddresses
        config.maxUploadBytes = maxUploadMb << 20
        config.maxFetchBytes = maxFetchMb << 20
        config.fetchTimeout = .seconds(fetchTimeout)
        config.maxPixels = maxMegapixels * 1_000_000
        config.createSampleGallery = !noSample
        let server = try await GalleryServer(configuration: config, logger: logger)
        logger.info("serving", metadata: ["address": "http://\(host):\(port)/", "data": "\(data.data)", "web": "\(web)", "wasm": "\(wasm)"])
        // SIGINT / SIGTERM: graceful shutdown (streams closed, ingestion stopped, server drained).
        try await server.application().runService()
        logger.info("stopped")
    }
}

struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Write a gallery as a zip (manifest.json + images).")
    @OptionGroup var data: DataOptions
    @Argument(help: "Gallery id.") var gallery: Int64
    @Argument(help: "Output zip file.") var output: String

    func run() async throws {
        let store = try GalleryStore(folder: URL(fileURLWithPath: data.data))
        try await GalleryArchive.export(gallery, store: store, to: URL(fileURLWithPath: output))
        print("exported gallery \(gallery) to \(output)")
    }
}

struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Create a gallery from a zip; its images are thumbnailed when the server next starts.")
    @OptionGroup var data: DataOptions
    @Argument(help: "Zip file written by export.") var input: String
    @Option(name: .long, help: "Name of the new gallery (default: the archive's).") var name: String?

    func run() async throws {
        let store = try GalleryStore(folder: URL(fileURLWithPath: data.data))
        let (gallery, _) = try await GalleryArchive.importArchive(at: URL(fileURLWithPath: input), store: store, name: name)
        print("imported gallery \(gallery.id) \"\(gallery.name)\" with \(gallery.itemCount) items")
    }
}
