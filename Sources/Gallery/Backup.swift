import Foundation
import ArgumentParser
import GalleryStore

/// `gallery backup DEST`: a consistent copy of the data folder, safe while `gallery serve` runs.
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the data folder while the server may run: the database through SQLite's online backup, then the images it refers to.")
    @OptionGroup var data: DataOptions
    @Argument(help: "A new folder for the copy (later usable as --data).") var destination: String

    func run() async throws {
        if data.database != nil {
            throw BackupFailure(description: "--database: the rows are in PostgreSQL; back them up with pg_dump and copy the data folder's images (docs/storage.md)")
        }
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

/// A refusal said in one line (no usage text: the command was typed right).
struct BackupFailure: Error, CustomStringConvertible { var description: String }
