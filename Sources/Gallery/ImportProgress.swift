import Foundation
import Synchronization
import GalleryServer
#if canImport(Glibc)
import Glibc
#endif

/// What `gallery import` shows while it works: on a terminal one line redrawn in place (a bar,
/// files, bytes, rate, time left); otherwise (a pipe, a log) one plain line per file.
final class ImportProgress: Sendable {
    struct State {
        var done = 0, bytes: Int64 = 0, drawn = Date.distantPast
        var failed: [FolderImport.Problem] = []
    }
    let phase: String
    let total: Int
    let totalBytes: Int64
    let start = Date()
    let terminal = isatty(STDOUT_FILENO) == 1
    let state = Mutex(State())

    init(phase: String, total: Int, totalBytes: Int64) {
        self.phase = phase; self.total = total; self.totalBytes = totalBytes
    }

    func step(_ path: String, bytes: Int64, outcome: FolderImport.Outcome) {
        state.withLock { s in
            s.done += 1
            s.bytes += bytes
            if case let .failed(reason) = outcome { s.failed.append(FolderImport.Problem(path: path, reason: reason)) }
            guard terminal else {
                let what: String
                switch outcome {
                case .added: what = phase == "thumbnails" ? "ready" : "added"
                case .alreadyThere: what = "skipped (already in the gallery)"
                case let .failed(reason): what = "failed: \(reason)"
                }
                print("[\(s.done)/\(total)] \(phase) \(path): \(what)")
                return
            }
            let now = Date()
            guard s.done == total || now.timeIntervalSince(s.drawn) > 0.1 else { return }
            s.drawn = now
            draw(s, now: now)
        }
    }

    private func draw(_ s: State, now: Date) {
        let fraction = total == 0 ? 1 : Double(s.done) / Double(total)
        let width = 24, filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let elapsed = max(now.timeIntervalSince(start), 0.001)
        var line = "\r\(phase) [\(bar)] \(s.done)/\(total) files"
        if totalBytes > 0 {
            line += "  \(Self.bytes(s.bytes))/\(Self.bytes(totalBytes))  \(Self.bytes(Int64(Double(s.bytes) / elapsed)))/s"
        } else {
            line += String(format: "  %.1f/s", Double(s.done) / elapsed)
        }
        if s.done > 0 && s.done < total {
            let left = Int(elapsed / fraction - elapsed)
            line += String(format: "  ETA %d:%02d", left / 60, left % 60)
        }
        FileHandle.standardOutput.write(Data((line + "\u{1B}[K").utf8))
    }

    /// The files that failed, in the order they did.
    var failures: [FolderImport.Problem] { state.withLock { $0.failed } }

    func end() {
        if terminal { state.withLock { s in if s.done > 0 { print("") } } }
    }

    static func bytes(_ n: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(n), unit = 0
        while value >= 1000 && unit < units.count - 1 { value /= 1000; unit += 1 }
        return unit == 0 ? "\(n) B" : String(format: "%.1f", value) + " " + units[unit]
    }
}
