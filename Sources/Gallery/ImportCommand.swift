import ArgumentParser
import Foundation
import Logging
import GalleryCore
import GalleryServer
import GalleryStore
#if canImport(Glibc)
import Glibc
#endif

struct ImportFailure: Error, CustomStringConvertible { var description: String }

/// `gallery import PATH…`: zips written by `gallery export` become galleries of their own;
/// folders (recursively) and image files go into one gallery, hashed and skipped when the
/// gallery already holds them, then thumbnailed on every core. Straight into the data folder:
/// run it while no server uses that folder.
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import zips from `gallery export`, folders (recursively) and image files into the data folder (server stopped).",
        discussion: "Folders and files go into the gallery --gallery, else the one called --name (default: the first folder's name), made if missing. Run again after an interruption: what is already there is skipped.")
    @OptionGroup var data: DataOptions
    @Argument(help: "Zip files, folders, image files.") var inputs: [String]
    @Option(name: .long, help: "Gallery id to add folders and files to.") var gallery: Int64?
    @Option(name: .long, help: "Name of the gallery (a zip's new gallery, or the one folders and files go to).") var name: String?

    func run() async throws {
        for input in inputs where !FileManager.default.fileExists(atPath: input) {
            throw ImportFailure(description: "\(input) does not exist")
        }
        let store = try GalleryStore(folder: URL(fileURLWithPath: data.data))
        let zips = inputs.filter { $0.lowercased().hasSuffix(".zip") && !isFolder($0) }
        let others = inputs.filter { !zips.contains($0) }
        var config = ServerConfiguration()
        config.ingestWorkers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        for zip in zips {
            let limits = GalleryArchive.Limits(maxEntryBytes: Int64(config.maxUploadBytes), maxTotalBytes: Int64(config.maxImportInflatedBytes))
            let (gallery, pending) = try await GalleryArchive.importArchive(at: URL(fileURLWithPath: zip), store: store, name: name, limits: limits)
            print("imported gallery \(gallery.id) \"\(gallery.name)\" with \(gallery.itemCount) items from \(zip)")
            await thumbnail(pending, store: store, config: config)
        }
        guard !others.isEmpty else { return }
        try await importFiles(others, store: store, config: config)
    }

    func isFolder(_ path: String) -> Bool {
        var folder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &folder) && folder.boolValue
    }

    func importFiles(_ paths: [String], store: GalleryStore, config: ServerConfiguration) async throws {
        let found = FolderImport.collect(paths)
        let defaultName = paths.first(where: isFolder).map { URL(fileURLWithPath: $0).standardizedFileURL.lastPathComponent } ?? "Imported"
        let target = try await FolderImport.target(id: gallery, name: name ?? defaultName, store: store)
        let totalBytes = found.files.reduce(Int64(0)) { $0 + ((try? FileManager.default.attributesOfItem(atPath: $1.path)[.size] as? Int64) ?? 0) }
        print("importing \(found.files.count) files (\(ImportProgress.bytes(totalBytes))) into gallery \(target.id) \"\(target.name)\"")
        let progress = ImportProgress(phase: "hashing", total: found.files.count, totalBytes: totalBytes)
        var report = try await FolderImport.run(found.files, into: target, store: store, maxFileBytes: Int64(config.maxUploadBytes)) { file, size, outcome in
            progress.step(file.path, bytes: size, outcome: outcome)
        }
        progress.end()
        report.skipped = found.skipped + report.skipped
        report.failed = found.failed + report.failed
        let thumbnailFailures = await thumbnail(report.pending, store: store, config: config)
        report.failed += thumbnailFailures
        print("added \(report.added), skipped \(report.skipped.count), failed \(report.failed.count) (gallery \(target.id) \"\(target.name)\")")
        for p in report.skipped { print("  skipped \(p)") }
        for p in report.failed { print("  failed  \(p)") }
        if !report.failed.isEmpty { throw ExitCode(2) }
    }

    /// Thumbnails the pending items on every core; returns the files that could not be read as images.
    @discardableResult
    func thumbnail(_ items: [ItemJSON], store: GalleryStore, config: ServerConfiguration) async -> [FolderImport.Problem] {
        guard !items.isEmpty else { return [] }
        var logger = Logger(label: "gallery.import")
        logger.logLevel = .warning
        let ingestor = Ingestor(store: store, configuration: config, logger: logger)
        let progress = ImportProgress(phase: "thumbnails", total: items.count, totalBytes: 0)
        await ingestor.processStored(items) { item, outcome in
            if case let .failed(reason) = outcome {
                progress.step(item.title, bytes: 0, outcome: .failed(reason))
            } else {
                progress.step(item.title, bytes: 0, outcome: .added)
            }
        }
        progress.end()
        return progress.failures
    }
}
