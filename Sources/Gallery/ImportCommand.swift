import ArgumentParser
import Foundation
import Logging
import GalleryCore
import GalleryServer
import GalleryStore
import Imaging
#if canImport(Glibc)
import Glibc
#endif

struct ImportFailure: Error, CustomStringConvertible { var description: String }

/// `gallery import PATH…`: zips written by `gallery export` become galleries of their own;
/// folders (recursively) and image files go into one gallery, hashed and skipped when the
/// gallery already holds them. When a server runs on the data folder (its `server.json`), or
/// one is named with `--server`, they go through its API — open windows see them arrive and its
/// workers make the thumbnails; otherwise straight into the data folder, thumbnailed on every
/// core here.
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import zips from `gallery export`, folders (recursively) and image files into the data folder (server stopped).",
        discussion: """
            Folders and files go into the gallery --gallery, else the one called --name (default: the first folder's name), made if missing. \
            While `gallery serve` runs on the data folder they are sent through its API (as its first admin, or --user) so open windows see them arrive; \
            --server URL sends them to another server with the API token in GALLERY_TOKEN. \
            Run again after an interruption: what is already there is skipped.
            """)
    @OptionGroup var data: DataOptions
    @Argument(help: "Zip files, folders, image files.") var inputs: [String]
    @Option(name: .long, help: "Gallery id to add folders and files to.") var gallery: Int64?
    @Option(name: .long, help: "Name of the gallery (a zip's new gallery, or the one folders and files go to).") var name: String?
    @Option(name: .long, help: "Send folders and files to this server (e.g. https://photos.example.org) with the API token in GALLERY_TOKEN.") var server: String?
    @Option(name: .long, help: "The account a running server on the data folder adds them as (default: its first admin).") var user: String?

    func run() async throws {
        for input in inputs where !FileManager.default.fileExists(atPath: input) {
            throw ImportFailure(description: "\(input) does not exist")
        }
        if let server {
            guard let token = ProcessInfo.processInfo.environment["GALLERY_TOKEN"], !token.isEmpty else {
                throw ImportFailure(description: "--server needs an API token with the write scope in GALLERY_TOKEN (made in the page's account menu or with POST /api/tokens)")
            }
            let remote = RemoteImport(base: String(server.reversed().drop(while: { $0 == "/" }).reversed()), token: token)
            guard await remote.answers() else { throw ImportFailure(description: "no gallery server answers at \(server)") }
            guard !inputs.contains(where: isZip) else { throw ImportFailure(description: "--server takes folders and files; import a zip into a data folder (or with the page's Import)") }
            return try await importFiles(inputs, remote: remote)
        }
        let store = try data.openStore()
        let zips = inputs.filter(isZip)
        let others = inputs.filter { !zips.contains($0) }
        var config = ServerConfiguration()
        // One photo per core at a time plus one (a worker recording its result in SQLite leaves its
        // core to the next photo), each on one libvips thread (BENCHMARKS.md: folder import).
        config.ingestWorkers = ProcessInfo.processInfo.activeProcessorCount + 1
        ImagingSettings.threadsPerImage(1)
        for zip in zips {
            let limits = GalleryArchive.Limits(maxEntryBytes: Int64(config.maxUploadBytes), maxTotalBytes: Int64(config.maxImportInflatedBytes))
            let (gallery, pending) = try await GalleryArchive.importArchive(at: URL(fileURLWithPath: zip), store: store, name: name, limits: limits)
            print("imported gallery \(gallery.id) \"\(gallery.name)\" with \(gallery.itemCount) items from \(zip)")
            let progress = ImportProgress("thumbnailing", files: 0, bytes: 0)
            progress.queued(pending.count)
            let (queue, feed) = AsyncStream<ItemJSON>.makeStream()
            for item in pending { feed.yield(item) }
            feed.finish()
            await thumbnail(queue, store: store, config: config, progress: progress)
            progress.end()
        }
        guard !others.isEmpty else { return }
        if let running = RunningServer.find(in: URL(fileURLWithPath: data.data)) {
            let remote = try await signIn(running, store: store)
            do {
                try await importFiles(others, remote: remote)
            } catch {
                await signOut(remote, store: store)
                throw error
            }
            await signOut(remote, store: store)
            return
        }
        try await importFiles(others, store: store, config: config)
    }

    func isZip(_ path: String) -> Bool { path.lowercased().hasSuffix(".zip") && !isFolder(path) }

    static let tokenName = "gallery import"

    /// An API token for the server running on the data folder, made in its database for its first
    /// admin (or --user): whoever may write the data folder may act for its accounts. Tokens left
    /// by an import that was killed are removed first; this one is removed at the end.
    func signIn(_ running: RunningServer, store: GalleryStore) async throws -> RemoteImport {
        // The token goes only to a server on this machine's loopback (server.json is a file in a
        // folder; whoever could write it must not receive an admin's token by naming their host).
        guard let host = URL(string: running.url)?.host, ["127.0.0.1", "::1", "[::1]", "localhost"].contains(host) else {
            throw ImportFailure(description: "a server runs on this data folder (process \(running.pid)) at \(running.url), not on this machine's loopback: stop it, or send the files with --server \(running.url) and an API token in GALLERY_TOKEN")
        }
        let accounts = try await store.accounts()
        let account: Account
        if let user {
            guard let named = accounts.first(where: { $0.name == user }) else { throw ImportFailure(description: "no account called \(user)") }
            account = named
        } else {
            guard let admin = accounts.first(where: \.admin) else {
                throw ImportFailure(description: "the server at \(running.url) has no account yet: make one (the setup link in its log, or `gallery user add NAME --admin`) and import again")
            }
            account = admin
        }
        for old in try await store.tokens(account: account.id) where old.name.hasPrefix(Self.tokenName + " (process ") {
            let pid = Int32(old.name.dropFirst((Self.tokenName + " (process ").count).prefix(while: \.isNumber)) ?? 0
            if pid > 0, kill(pid, 0) != 0 && errno == ESRCH { _ = try await store.deleteToken(old.id, account: account.id) }
        }
        let secret = Secrets.token()
        _ = try await store.createToken(account: account.id, name: "\(Self.tokenName) (process \(getpid()))", scope: .write, tokenHash: Secrets.digest(secret))
        let remote = RemoteImport(base: running.url, token: secret)
        guard await remote.answers() else {
            await signOut(remote, store: store)
            throw ImportFailure(description: "a server runs on this data folder (process \(running.pid)) but does not answer at \(running.url)")
        }
        print("sending through the server at \(running.url) as \(account.name)")
        return remote
    }

    func signOut(_ remote: RemoteImport, store: GalleryStore) async {
        guard let (token, account) = try? await store.token(hash: Secrets.digest(remote.token)) else { return }
        _ = try? await store.deleteToken(token.id, account: account)
    }

    /// Folders and files through the server's API: hashed here, sent one upload each unless the
    /// gallery holds that content, thumbnailed by the server (waited for, to report failures).
    func importFiles(_ paths: [String], remote: RemoteImport) async throws {
        let found = FolderImport.collect(paths)
        let defaultName = paths.first(where: isFolder).map { URL(fileURLWithPath: $0).standardizedFileURL.lastPathComponent } ?? "Imported"
        let target = try await remote.target(id: gallery, name: name ?? defaultName)
        var held = Set(target.sections.flatMap { $0.items.compactMap(\.fileHash) })
        let sizes = found.files.map { (try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? Int64) ?? 0 }
        let totalBytes = sizes.reduce(0, +)
        print("importing \(found.files.count) files (\(ImportProgress.bytes(totalBytes))) into gallery \(target.gallery.id) \"\(target.gallery.name)\"")
        var report = FolderImport.Report(gallery: target.gallery)
        var sent: [Int64: URL] = [:]
        let progress = ImportProgress("uploading", files: found.files.count, bytes: totalBytes)
        for (file, size) in zip(found.files, sizes) {
            let outcome: FolderImport.Outcome
            do {
                let hash = try FolderImport.hash(file, limit: .max)   // the server's upload limit answers
                if held.contains(hash) {
                    report.skipped.append(FolderImport.Problem(path: file.path, reason: "already in the gallery"))
                    outcome = .alreadyThere
                } else {
                    switch try await remote.upload(file, size: size, gallery: target.gallery.id) {
                    case let .success(item):
                        held.insert(hash)
                        sent[item.id] = file
                        progress.queued(1)
                        report.added += 1
                        outcome = .added
                    case let .failure(problem):
                        report.failed.append(problem)
                        outcome = .failed(problem.reason)
                    }
                }
            } catch let p as FolderImport.Problem {
                report.failed.append(p)
                outcome = .failed(p.reason)
            }
            progress.file(file.path, bytes: size, outcome: outcome)
        }
        if !sent.isEmpty {
            // The server's workers have been making thumbnails while the files went up.
            try await remote.waitForThumbnails(Set(sent.keys), gallery: target.gallery.id, since: target.version) { item in
                progress.thumbnail(item.title, path: sent[item.id]?.path ?? item.title, failure: item.state == .failed ? item.reason ?? "failed" : nil)
            }
        }
        progress.end()
        report.failed += progress.thumbnailFailures
        try summarize(found: found, report: report)
    }

    /// The closing summary: counts, then each skipped and failed file with its reason. Failures
    /// make the exit status 2.
    func summarize(found: (files: [URL], skipped: [FolderImport.Problem], failed: [FolderImport.Problem]), report: FolderImport.Report) throws {
        var report = report
        report.skipped = found.skipped + report.skipped
        report.failed = found.failed + report.failed
        print("added \(report.added), skipped \(report.skipped.count), failed \(report.failed.count) (gallery \(report.gallery.id) \"\(report.gallery.name)\")")
        for p in report.skipped { print("  skipped \(p)") }
        for p in report.failed { print("  failed  \(p)") }
        if !report.failed.isEmpty { throw ExitCode(2) }
    }

    func isFolder(_ path: String) -> Bool {
        var folder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &folder) && folder.boolValue
    }

    /// Folders and files straight into the data folder: hashed and copied in one pass, committed
    /// in batches, and thumbnailed on every core beside the hashing as each batch is committed.
    func importFiles(_ paths: [String], store: GalleryStore, config: ServerConfiguration) async throws {
        let found = FolderImport.collect(paths)
        let defaultName = paths.first(where: isFolder).map { URL(fileURLWithPath: $0).standardizedFileURL.lastPathComponent } ?? "Imported"
        let target = try await FolderImport.target(id: gallery, name: name ?? defaultName, store: store)
        let totalBytes = found.files.reduce(Int64(0)) { $0 + ((try? FileManager.default.attributesOfItem(atPath: $1.path)[.size] as? Int64) ?? 0) }
        print("importing \(found.files.count) files (\(ImportProgress.bytes(totalBytes))) into gallery \(target.id) \"\(target.name)\"")
        let progress = ImportProgress("importing", files: found.files.count, bytes: totalBytes)
        let (queue, feed) = AsyncStream<ItemJSON>.makeStream()
        let thumbnails = Task { await thumbnail(queue, store: store, config: config, progress: progress) }
        let report: FolderImport.Report
        do {
            // Batches of 8: thumbnailing starts after the first few files, and a run killed
            // halfway loses at most 8 files' hashing.
            report = try await FolderImport.run(found.files, into: target, store: store, maxFileBytes: Int64(config.maxUploadBytes), batchSize: 8,
                                                progress: { file, size, outcome in progress.file(file.path, bytes: size, outcome: outcome) },
                                                queued: { items in progress.queued(items.count); for item in items { feed.yield(item) } })
        } catch {
            feed.finish()
            await thumbnails.value
            throw error
        }
        feed.finish()
        await thumbnails.value
        progress.end()
        var all = report
        all.failed += progress.thumbnailFailures
        try summarize(found: found, report: all)
    }

    /// Thumbnails items as they come, on every core (`ingestWorkers`).
    func thumbnail<Items: AsyncSequence & Sendable>(_ items: Items, store: GalleryStore, config: ServerConfiguration, progress: ImportProgress) async
        where Items.Element == ItemJSON, Items.Failure == Never {
        var logger = Logger(label: "gallery.import")
        logger.logLevel = .warning
        let ingestor = Ingestor(store: store, configuration: config, logger: logger)
        await ingestor.processStored(items) { item, outcome in
            if case let .failed(reason) = outcome {
                progress.thumbnail(item.title, path: item.title, failure: reason)
            } else {
                progress.thumbnail(item.title, path: item.title, failure: nil)
            }
        }
    }
}
