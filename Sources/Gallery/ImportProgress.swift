import Foundation
import Synchronization
import GalleryServer
#if canImport(Glibc)
import Glibc
#endif

/// What `gallery import` shows while it works: files read (hashed and copied, or uploaded) and
/// thumbnails made, which run side by side. On a terminal one line redrawn in place (a bar,
/// files, bytes, rate, thumbnails, time left); otherwise (a pipe, a log) one plain line per event.
final class ImportProgress: Sendable {
    struct State {
        var files = 0, bytes: Int64 = 0, queued = 0, thumbnails = 0, drawn = Date.distantPast
        var failed: [FolderImport.Problem] = []
    }
    /// "importing" or "uploading".
    let verb: String
    let total: Int
    let totalBytes: Int64
    let start = Date()
    let terminal = isatty(STDOUT_FILENO) == 1
    let state = Mutex(State())

    init(_ verb: String, files total: Int, bytes totalBytes: Int64) {
        self.verb = verb; self.total = total; self.totalBytes = totalBytes
    }

    /// A file read: added (a new item), already in the gallery, or failed with a reason.
    func file(_ path: String, bytes: Int64, outcome: FolderImport.Outcome) {
        state.withLock { s in
            s.files += 1
            s.bytes += bytes
            guard terminal else {
                let what: String
                switch outcome {
                case .added: what = "added"
                case .alreadyThere: what = "skipped (already in the gallery)"
                case let .failed(reason): what = "failed: \(reason)"
                }
                print("[\(s.files)/\(total)] \(path): \(what)")
                return
            }
            redraw(&s)
        }
    }

    /// `count` more items wait for thumbnails.
    func queued(_ count: Int) { state.withLock { $0.queued += count } }

    /// One item's thumbnails are made (`failure` nil) or could not be (its reason).
    func thumbnail(_ title: String, path: String, failure: String?) {
        state.withLock { s in
            s.thumbnails += 1
            if let failure { s.failed.append(FolderImport.Problem(path: path, reason: failure)) }
            guard terminal else {
                print("[\(s.thumbnails)/\(s.queued) thumbnails] \(title): \(failure.map { "failed: \($0)" } ?? "ready")")
                return
            }
            redraw(&s)
        }
    }

    private func redraw(_ s: inout State) {
        let now = Date()
        let all = s.files == total && s.thumbnails == s.queued
        guard all || now.timeIntervalSince(s.drawn) > 0.1 else { return }
        s.drawn = now
        // Thumbnails still to come: those queued, plus one for each file not read yet.
        let work = Double(total + s.queued + (total - s.files)), done = Double(s.files + s.thumbnails)
        let fraction = work == 0 ? 1 : done / work
        let width = 24, filled = min(width, Int(fraction * Double(width)))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let elapsed = max(now.timeIntervalSince(start), 0.001)
        var line = "\r\(verb) [\(bar)] \(s.files)/\(total) files"
        if totalBytes > 0 {
            line += "  \(Self.bytes(s.bytes))/\(Self.bytes(totalBytes))  \(Self.bytes(Int64(Double(s.bytes) / elapsed)))/s"
        }
        line += "  thumbnails \(s.thumbnails)/\(s.queued)"
        if fraction > 0 && fraction < 1 {
            let left = Int(elapsed / fraction - elapsed)
            line += String(format: "  ETA %d:%02d", left / 60, left % 60)
        }
        FileHandle.standardOutput.write(Data((line + "\u{1B}[K").utf8))
    }

    /// Thumbnails that could not be made, in the order they failed (files that could not be
    /// read are in the import's own report).
    var thumbnailFailures: [FolderImport.Problem] { state.withLock { s in s.failed } }

    func end() {
        if terminal { state.withLock { s in if s.files + s.thumbnails > 0 { print("") } } }
    }

    static func bytes(_ n: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(n), unit = 0
        while value >= 1000 && unit < units.count - 1 { value /= 1000; unit += 1 }
        return unit == 0 ? "\(n) B" : String(format: "%.1f", value) + " " + units[unit]
    }
}
