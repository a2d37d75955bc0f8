import ArgumentParser
import Foundation
import Logging
import GalleryServer
import GalleryStore
#if canImport(Glibc)
import Glibc
#endif

@main
struct GalleryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gallery",
        abstract: "The drag-and-drop image gallery server.",
        subcommands: [Serve.self, Export.self, Import.self, User.self, Backup.self, Migrate.self, Check.self],
        defaultSubcommand: Serve.self)
}

struct DataOptions: ParsableArguments {
    @Option(name: .long, help: "Data folder: the SQLite file and the content-addressed images.")
    var data: String = "gallery-data"
    @Option(name: .long, help: "postgres://user@host:port/database: the rows in PostgreSQL instead of the data folder's SQLite file (images stay in the data folder). See docs/storage.md.")
    var database: String?

    func openStore() throws -> GalleryStore {
        try GalleryStore(folder: URL(fileURLWithPath: data), databaseURL: database)
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the API, live streams, the page (Web/) and engine.wasm.",
        discussion: """
            Without --database, the environment's GALLERY_DATABASE (when set and not empty) names the \
            PostgreSQL database: a URL with a password then stays out of the process list (systemd: \
            EnvironmentFile=, docs/deploy/gallery@.service).
            """)

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
    @Option(name: .long, help: "Seconds a fetch's server may send nothing before the fetch fails (\"sent nothing for N s\"), within the fetch timeout.") var fetchSilence: Int = 10
    @Option(name: .long, help: "Largest image in megapixels (decompression-bomb guard).") var maxMegapixels: Int = 100
    @Flag(name: .long, help: "Do not create the sample gallery on first start.") var noSample = false
    @Option(name: .long, help: "CPU priority (nice 0-19) of thumbnailing, below answering requests; 0 for the same.") var ingestNice: Int32 = 10
    @Option(name: .long, help: "Log level (trace, debug, info, notice, warning, error).") var logLevel: String = "info"
    @Option(name: .long, help: "An address of this server's own reverse proxy (repeat for several): for its requests the client's address is taken from X-Forwarded-For (sign-in throttling counts per client address). See docs/deploy.")
    var trustedProxy: [String] = []
    @Option(name: .long, help: "This instance's name in ingestion leases (default: host name and port); a restart with the same name takes its leases back at once. See docs/storage.md.")
    var instance: String?
    @Option(name: .long, help: "Seconds a claimed pending item stays this instance's without renewal (renewed every third of it while it is worked on); a killed instance's items finish elsewhere after this.")
    var ingestLease: Double = 30
    @Option(name: .long, help: "Seconds between looks for pending items nobody holds (a killed instance's) while a worker is free.")
    var ingestPoll: Double = 5
    @Option(name: .long, help: "Milliseconds each ingestion job waits after claiming its item (tests and demonstrations of several instances; 0 for none).")
    var ingestDelayMs: Int = 0
    @Option(name: .long, help: "The address people use, e.g. https://photos.example.org behind a proxy: accepted as Host and Origin; https makes the session cookie Secure.")
    var publicUrl: String?
    @Option(name: .long, help: "Seconds a graceful stop (SIGTERM, SIGINT) waits for requests in flight before it cancels what is left (a stalled upload).")
    var shutdownTimeout: Int = 15
    @Option(name: .long, help: "Most items one batch may name, a section deleted naming its items (more is refused with 413 and the limit; the page sends a larger change in parts). Other writes to the gallery wait while a batch runs (a 1,000-item move in a 100k gallery: 15-35 ms). Past 500,000 items in a gallery the limit shrinks in proportion (1M items: half), never under 100.")
    var maxBatchItems: Int = ServerConfiguration().maxBatchItems

    func run() async throws {
        LazyMetadataLogHandler.bootstrap()
        var logger = Logger(label: "gallery")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        var config = ServerConfiguration()
        config.host = host
        config.port = port
        config.dataFolder = URL(fileURLWithPath: data.data)
        config.databaseURL = data.database ?? ProcessInfo.processInfo.environment["GALLERY_DATABASE"].flatMap { $0.isEmpty ? nil : $0 }
        config.webFolder = URL(fileURLWithPath: web)
        config.wasmPath = URL(fileURLWithPath: wasm)
        config.allowPrivateAddresses = allowPrivateAddresses
        config.maxUploadBytes = maxUploadMb << 20
        config.maxFetchBytes = maxFetchMb << 20
        guard fetchTimeout >= 1, fetchSilence >= 1 else { throw ValidationError("--fetch-timeout and --fetch-silence must be at least 1 second") }
        config.fetchTimeout = .seconds(fetchTimeout)
        config.fetchSilence = .seconds(fetchSilence)
        config.maxPixels = maxMegapixels * 1_000_000
        config.createSampleGallery = !noSample
        guard maxBatchItems >= 1 else { throw ValidationError("--max-batch-items must be at least 1") }
        config.maxBatchItems = maxBatchItems
        guard (0...19).contains(ingestNice) else { throw ValidationError("--ingest-nice must be 0...19") }
        config.ingestNice = ingestNice
        guard ingestLease >= 1, ingestPoll > 0, ingestPoll <= ingestLease else {
            throw ValidationError("--ingest-lease must be at least 1 second and --ingest-poll between 0 and the lease")
        }
        guard ingestDelayMs >= 0 else { throw ValidationError("--ingest-delay-ms must be 0 or more") }
        config.ingestLease = ingestLease
        config.ingestPoll = ingestPoll
        config.ingestDelay = .milliseconds(ingestDelayMs)
        if let instance {
            guard !instance.isEmpty, !instance.contains("/") else { throw ValidationError("--instance must be a non-empty name without \"/\"") }
            config.instanceName = instance
        }
        for proxy in trustedProxy {
            var v4 = in_addr(), v6 = in6_addr()
            guard inet_pton(AF_INET, proxy, &v4) == 1 || inet_pton(AF_INET6, proxy, &v6) == 1 else {
                throw ValidationError("--trusted-proxy must be an IP address, e.g. 127.0.0.1 (got \"\(proxy)\")")
            }
        }
        config.trustedProxies = Set(trustedProxy)
        if let publicUrl {
            guard let url = URL(string: publicUrl), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw ValidationError("--public-url must be an http or https URL, e.g. https://photos.example.org")
            }
            config.publicURL = url
        }
        if config.databaseURL == nil {
            do { try RunningServer.claimSQLiteFolder(config.dataFolder) } catch let busy as RunningServer.FolderBusy {
                logger.critical("\(busy.message)")
                throw ExitCode(1)
            }
        }
        logger.info("serving", metadata: ["address": "http://\(host):\(port)/", "data": "\(data.data)", "web": "\(web)", "wasm": "\(wasm)"])
        // SIGINT / SIGTERM: graceful shutdown (streams closed, ingestion stopped, server drained;
        // what is still running after --shutdown-timeout is cancelled). PostgreSQL not answering at
        // start: the port answers 503 (and /healthz 200) until it does (ServeWhenReady).
        // server.json tells `gallery import` where this server answers (removed when it stops).
        let folder = config.dataFolder, log = logger
        defer { RunningServer.remove(in: folder) }
        try await ServeWhenReady.run(configuration: config, logger: logger, gracePeriod: .seconds(max(1, shutdownTimeout)), onRunning: { port in
            do { try RunningServer.listening(host: host, port: port).write(in: folder) } catch {
                log.warning("could not write server.json in the data folder: \(error)")
            }
        }, onReady: { server in
            do {
                if let link = try await server.setupLink() {
                    // No account yet: the first one is made from this one-time link (or `gallery user add`).
                    log.notice("no account yet: open \(link) to create the owner account")
                }
            } catch {
                log.error("could not prepare the setup link (restart to try again, or `gallery user add`)", metadata: ["reason": "\(error)"])
            }
        })
        logger.info("stopped")
    }
}

struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Write a gallery as a zip (manifest.json + images).")
    @OptionGroup var data: DataOptions
    @Argument(help: "Gallery id.") var gallery: Int64
    @Argument(help: "Output zip file.") var output: String

    func run() async throws {
        let store = try data.openStore()
        try await GalleryArchive.export(gallery, store: store, to: URL(fileURLWithPath: output))
        print("exported gallery \(gallery) to \(output)")
    }
}

struct User: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage accounts: add, list, passwd, remove (works beside a running server).",
        subcommands: [Add.self, List.self, Passwd.self, Remove.self])

    /// The password from standard input (one line), or asked for on a terminal without echo.
    static func readPassword(_ prompt: String, fromStdin: Bool) throws -> String {
        if fromStdin {
            guard let line = readLine(strippingNewline: true) else { throw ValidationError("no password on standard input") }
            return line
        }
        guard isatty(STDIN_FILENO) != 0, let p = getpass(prompt) else { throw ValidationError("no terminal: pass --password-stdin") }
        return String(cString: p)
    }

    static func checked(_ password: String) throws -> String {
        if let problem = Secrets.passwordProblem(password) { throw ValidationError(problem) }
        return password
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an account (the first one is an admin and owns every gallery).")
        @OptionGroup var data: DataOptions
        @Argument(help: "Account name.") var name: String
        @Flag(name: .long, help: "Make it an admin (manages users).") var admin = false
        @Flag(name: .long, help: "Read the password from standard input.") var passwordStdin = false

        func run() async throws {
            let store = try data.openStore()
            let password = try checked(try readPassword("Password for \(name): ", fromStdin: passwordStdin))
            let account = try await store.createAccount(name: name, passwordHash: try await Secrets.hashPassword(password), admin: admin)
            print("added \(account.admin ? "admin" : "user") \(account.name) (id \(account.id))")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List accounts.")
        @OptionGroup var data: DataOptions
        func run() async throws {
            let store = try data.openStore()
            for a in try await store.accounts() {
                print("\(a.id)\t\(a.name)\t\(a.admin ? "admin" : "user")\(a.totp ? "\t2fa" : "")")
            }
        }
    }

    struct Passwd: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set an account's password (ends its sessions).")
        @OptionGroup var data: DataOptions
        @Argument(help: "Account name.") var name: String
        @Flag(name: .long, help: "Read the password from standard input.") var passwordStdin = false
        func run() async throws {
            let store = try data.openStore()
            guard let account = try await store.account(named: name) else { throw ValidationError("no account named \(name)") }
            let password = try checked(try readPassword("New password for \(name): ", fromStdin: passwordStdin))
            try await store.setPassword(account: account.id, passwordHash: try await Secrets.hashPassword(password))
            try await store.deleteSessions(account: account.id)
            print("password of \(account.name) changed; its sessions ended")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an account with its sessions and tokens.")
        @OptionGroup var data: DataOptions
        @Argument(help: "Account name.") var name: String
        func run() async throws {
            let store = try data.openStore()
            guard let account = try await store.account(named: name) else { throw ValidationError("no account named \(name)") }
            try await store.deleteAccount(account.id)
            print("removed \(account.name)")
        }
    }
}
