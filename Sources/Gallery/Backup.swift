import Foundation
import ArgumentParser
import GalleryStore

/// `gallery backup DEST`: a consistent copy of the data folder, safe while `gallery serve` runs.
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the data folder while the server may run: the database through SQLite's online backup (or pg_dump with --database), then the images it refers to.",
        discussion: """
            With --database postgres://… the rows go to DEST/gallery.pgdump through pg_dump (PostgreSQL's client, the \
            server's major version or newer) in one snapshot, and the images those rows name to DEST/images. Restore: \
            createdb NEW && pg_restore --no-owner --dbname postgres://…/NEW DEST/gallery.pgdump, then \
            gallery serve --data DEST --database postgres://…/NEW (docs/storage.md, "Backups").
            """)
    @OptionGroup var data: DataOptions
    @Argument(help: "A new folder for the copy (later usable as --data).") var destination: String

    func run() async throws {
        if let url = data.database { return try await backupPostgres(url) }
        let source = URL(fileURLWithPath: data.data)
        guard FileManager.default.fileExists(atPath: source.appendingPathComponent("gallery.sqlite").path) else {
            throw BackupFailure(description: "no data folder at \(source.path) (no gallery.sqlite)")
        }
        let store = try GalleryStore(folder: source)
        let started = Date()
        let terminal = isatty(STDOUT_FILENO) != 0
        let summary: BackupSummary
        do {
            summary = try store.backup(to: URL(fileURLWithPath: destination)) { done, total in
                if terminal && (done % 50 == 0 || done == total) { FileHandle.standardOutput.write(Data("\rimages \(done)/\(total)".utf8)) }
            }
        } catch let e as StoreError {
            throw BackupFailure(description: e.message)
        }
        if terminal { print("") }
        print("backed up \(summary.galleries) galleries, \(summary.items) items and \(summary.files) image files "
              + "(\(summary.bytes >> 20) MiB) into \(destination) in \(String(format: "%.1f", -started.timeIntervalSinceNow)) s")
        if !summary.missing.isEmpty {
            print("note: \(summary.missing.count) image folders were purged while the copy ran: \(summary.missing.prefix(3).joined(separator: ", "))")
        }
    }
}

extension Backup {
    /// pg_dump of the rows and a copy of the images they name (`GalleryStore.backupPostgres`).
    func backupPostgres(_ url: String) async throws {
        let source = URL(fileURLWithPath: data.data)
        // The rows name images in the instances' shared data folder: a --data that has none (a typo,
        // the default in another directory) would give a dump without a single image, exit 0.
        var isFolder: ObjCBool = false
        let images = source.appendingPathComponent("images")
        guard FileManager.default.fileExists(atPath: images.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw BackupFailure(description: """
                no images folder at \(images.path): --data must name the data folder the instances on this database \
                share (the backup copies the images its rows name from there)
                """)
        }
        let started = Date()
        let terminal = isatty(STDOUT_FILENO) != 0
        let store: GalleryStore
        do { store = try data.openStore() } catch let e as StoreError { throw BackupFailure(description: e.message) }
        defer { try? store.close() }
        let destination = URL(fileURLWithPath: self.destination)
        let (summary, dump): (BackupSummary, PostgresDumpInfo)
        do {
            (summary, dump) = try await Task.detached {
                try store.backupPostgres(url: url, to: destination) { done, total in
                    if terminal && (done % 50 == 0 || done == total) { FileHandle.standardOutput.write(Data("\rimages \(done)/\(total)".utf8)) }
                }
            }.value
        } catch let e as StoreError {
            throw BackupFailure(description: e.message)
        }
        if terminal { print("") }
        print("dumped \(summary.galleries) galleries and \(summary.items) items (\(dump.dumpBytes >> 10) KiB, \(dump.pgDumpVersion), server \(dump.serverVersion)) "
              + "into \(dump.dump.path) and copied \(summary.files) image files (\(summary.bytes >> 20) MiB) from \(source.appendingPathComponent("images").path) "
              + "into \(destination.appendingPathComponent("images").path) in \(String(format: "%.1f", -started.timeIntervalSinceNow)) s")
        if !summary.missing.isEmpty {
            print("note: \(summary.missing.count) image folders were purged while the copy ran: \(summary.missing.prefix(3).joined(separator: ", "))")
        }
        print("""
            restore: createdb NEW && pg_restore --no-owner --dbname postgres://…/NEW \(dump.dump.path)
                     gallery serve --data \(destination.path) --database postgres://…/NEW
            """)
    }
}

/// A refusal said in one line (no usage text: the command was typed right).
struct BackupFailure: Error, CustomStringConvertible { var description: String }
