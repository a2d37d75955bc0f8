import Foundation
import Testing
import GalleryCore
import GalleryServer
import GalleryStore
import Imaging
import GRDB
import StoreTestSupport

/// `gallery import FOLDER…` (issue 12): run as a person runs it, the built binary on a real
/// folder of real JPEGs and the bad files a camera card or a download folder holds.
@Suite struct FolderImportTests {
    struct Run { var status: Int32; var output: String }

    /// Runs the `gallery` binary beside the test bundle (stopped after 600 s so a hang fails, never blocks;
    /// the 2,000-file import took 100-130 s on a loaded machine, over the 120 s this allowed before),
    /// waiting without holding a thread of the concurrency pool (`Process.exited`).
    func gallery(_ arguments: [String], environment: [String: String] = [:], program: String? = nil) async throws -> Run {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("gallery")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build the gallery product first (swift build)")
        let ran = try await Process.outcome(program.map(URL.init(fileURLWithPath:)) ?? binary,
                                            program == nil ? arguments : Array(arguments.dropFirst()),
                                            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
                                            limit: .seconds(600))
        #expect(ran.reason == .exit, "killed by the watchdog: \(ran.output)")
        return Run(status: ran.status, output: ran.output)
    }

    func photo(_ i: Int) throws -> Data {
        Data(try SampleImages.jpeg(width: 120 + i, height: 80, red: Double(i * 40 % 255), green: 90, blue: 160, title: "P\(i)"))
    }

    func items(_ store: GalleryStore, named name: String) async throws -> [ItemJSON] {
        let gallery = try #require(try await store.listGalleries().first { $0.name == name })
        return try await store.snapshot(gallery.id).sections.flatMap(\.items)
    }

    @Test func aCameraFolderImportsRecursivelyWithEachBadFileNamedAndASecondRunAddsNothing() async throws {
        let card = testFolder("card")
        let fm = FileManager.default
        try fm.createDirectory(at: card.appendingPathComponent("DCIM/100CANON"), withIntermediateDirectories: true)
        try photo(1).write(to: card.appendingPathComponent("DCIM/100CANON/IMG_0001.JPG"))
        try photo(2).write(to: card.appendingPathComponent("DCIM/100CANON/IMG_0002.JPG"))
        try photo(3).write(to: card.appendingPathComponent("DCIM/100CANON/IMG_0003.jpeg"))
        try photo(1).write(to: card.appendingPathComponent("copy.jpg"))          // IMG_0001.JPG again, under another name
        try Data("shopping list".utf8).write(to: card.appendingPathComponent("notes.txt"))   // not an image name
        try Data("not a picture at all".utf8).write(to: card.appendingPathComponent("fake.jpg"))
        try Data().write(to: card.appendingPathComponent("empty.jpg"))
        try fm.createSymbolicLink(atPath: card.appendingPathComponent("DCIM/100CANON/loop").path, withDestinationPath: "../..")
        try fm.createSymbolicLink(atPath: card.appendingPathComponent("gone.jpg").path, withDestinationPath: "/nonexistent/gone.jpg")
        // A link out of the folder is not followed (someone else's folder could point at any file of ours).
        let secret = testFolder("secret")
        try fm.createDirectory(at: secret, withIntermediateDirectories: true)
        try photo(5).write(to: secret.appendingPathComponent("private.jpg"))
        try fm.createSymbolicLink(atPath: card.appendingPathComponent("outside.jpg").path, withDestinationPath: secret.appendingPathComponent("private.jpg").path)
        try fm.createSymbolicLink(atPath: card.appendingPathComponent("DCIM/alias.jpg").path, withDestinationPath: "100CANON/IMG_0002.JPG")
        let data = testFolder("import-data")

        let first = try await gallery(["import", card.path, "--data", data.path])
        #expect(first.status == 2, "failures make a non-zero exit: \(first.output)")
        #expect(first.output.contains("added 4, skipped 5, failed 3"), "\(first.output)")
        #expect(first.output.contains("outside.jpg: a symbolic link to \(secret.path)/private.jpg, outside the folders being imported")
                || first.output.contains("outside.jpg: a symbolic link to /private\(secret.path)/private.jpg"), "\(first.output)")
        #expect(first.output.contains("alias.jpg: already in the gallery"), "a link within the folder is followed: \(first.output)")
        #expect(first.output.contains("copy.jpg: already in the gallery"), "\(first.output)")
        #expect(first.output.contains("notes.txt: not an image file name (.txt)"), "\(first.output)")
        #expect(first.output.contains("loop: folder already walked"), "\(first.output)")
        #expect(first.output.contains("empty.jpg: empty file (0 bytes)"), "\(first.output)")
        #expect(first.output.contains("gone.jpg: cannot be read"), "\(first.output)")

        let store = try GalleryStore(folder: data)
        let imported = try await items(store, named: card.lastPathComponent)
        #expect(imported.map(\.title) == ["IMG_0001.JPG", "IMG_0002.JPG", "IMG_0003.jpeg", "fake.jpg"], "walked in name order (DCIM before copy.jpg)")
        #expect(imported.filter { $0.state == .ready }.map(\.width) == [121, 122, 123], "thumbnailed and sized by the import itself")
        let fake = try #require(imported.last)
        let reason = fake.reason ?? ""
        #expect(fake.state == .failed && ["not an image", "unsupported format"].contains { reason.hasPrefix($0) }, "the tile says why: \(fake)")
        #expect(first.output.contains("failed  fake.jpg: \(reason)"), "the summary gives the tile's reason: \(first.output)")
        for item in imported where item.state == .ready {
            #expect(store.files.exists(item.fileHash!, "grid.jpg") && store.files.exists(item.fileHash!, "original"))
        }

        let second = try await gallery(["import", card.path, "--data", data.path])
        #expect(second.output.contains("added 0, skipped 9"), "\(second.output)")
        #expect(try await items(store, named: card.lastPathComponent).count == 4, "nothing twice")
    }

    /// A run killed halfway left some batches committed and their thumbnails unmade: the next run
    /// adds only the rest and finishes the pending ones.
    @Test func aRunInterruptedHalfwayResumesWithoutDuplicates() async throws {
        let folder = testFolder("photos")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for i in 1...12 { try photo(i).write(to: folder.appendingPathComponent(String(format: "p%02d.jpg", i))) }
        let data = testFolder("import-data")
        do {
            // The first half, committed batch by batch, then the process "dies" before thumbnails.
            let store = try GalleryStore(folder: data)
            let files = FolderImport.collect([folder.path]).files
            let target = try await FolderImport.target(id: nil, name: folder.lastPathComponent, store: store)
            let half = try await FolderImport.run(Array(files.prefix(6)), into: target, store: store, maxFileBytes: 1 << 26, batchSize: 4)
            #expect(half.added == 6)
            #expect(try await items(store, named: folder.lastPathComponent).allSatisfy { $0.state == .pending })
        }
        let again = try await gallery(["import", folder.path, "--data", data.path])
        #expect(again.status == 0, "\(again.output)")
        #expect(again.output.contains("added 6, skipped 6, failed 0"), "\(again.output)")
        let store = try GalleryStore(folder: data)
        let all = try await items(store, named: folder.lastPathComponent)
        #expect(all.map(\.title) == (1...12).map { String(format: "p%02d.jpg", $0) })
        #expect(all.allSatisfy { $0.state == .ready }, "the pending half was thumbnailed too")
        #expect(Set(all.compactMap(\.fileHash)).count == 12)
    }

    @Test func aFileOverTheUploadLimitIsRefusedWithoutBeingCopiedWhole() async throws {
        let folder = testFolder("big")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let big = folder.appendingPathComponent("huge.jpg")
        try photo(1).write(to: big)
        let data = testFolder("import-data")
        let store = try GalleryStore(folder: data)
        let target = try await FolderImport.target(id: nil, name: "big", store: store)
        let report = try await FolderImport.run([big], into: target, store: store, maxFileBytes: 1000)
        #expect(report.added == 0)
        #expect(report.failed.map(\.reason) == ["larger than the upload limit of 1000 bytes"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: data.appendingPathComponent("images/tmp").path).isEmpty,
                "no temporary file left behind")
    }

    /// `gallery serve` on `data` (port 0: the one it gets is in server.json), until `body` returns.
    func withServer<T>(_ data: URL, _ body: (RunningServer) async throws -> T) async throws -> T {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("gallery")
        let p = Process()
        p.executableURL = binary
        p.arguments = ["serve", "--port", "0", "--data", data.path, "--no-sample", "--log-level", "warning"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        defer { p.terminate(); p.waitUntilExit() }
        // Looked for before the deadline is judged: a task held up past it (a loaded parallel run)
        // still finds a server that did start meanwhile.
        let deadline = ContinuousClock.now + .seconds(60)
        var running = RunningServer.find(in: data)
        while running == nil {
            try #require(ContinuousClock.now < deadline && p.isRunning, "the server did not start")
            try await Task.sleep(for: .milliseconds(50))
            running = RunningServer.find(in: data)
        }
        #expect(running!.pid == p.processIdentifier)
        return try await body(running!)
    }

    /// With a server running on the data folder the files go through its API — one upload
    /// (one streamed version) per new file, its workers make the thumbnails — as its admin,
    /// with a token that is gone afterwards; a second run sends nothing.
    @Test func withAServerRunningTheFilesGoThroughItsAPI() async throws {
        let folder = testFolder("trip")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("day2"), withIntermediateDirectories: true)
        for i in 1...3 { try photo(i).write(to: folder.appendingPathComponent("p\(i).jpg")) }
        try photo(4).write(to: folder.appendingPathComponent("day2/p4.jpg"))
        try photo(1).write(to: folder.appendingPathComponent("day2/same-as-p1.jpg"))
        try Data("<html>".utf8).write(to: folder.appendingPathComponent("day2/page.jpg"))
        let data = testFolder("import-data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try await withServer(data) { running in
            let store = try GalleryStore(folder: data)
            let none = try await gallery(["import", folder.path, "--data", data.path])
            #expect(none.status != 0 && none.output.contains("has no account yet"), "\(none.output)")
            _ = try await store.createAccount(name: "ana", passwordHash: "x", admin: true)

            let first = try await gallery(["import", folder.path, "--data", data.path])
            #expect(first.output.contains("sending through the server at \(running.url) as ana"), "\(first.output)")
            #expect(first.output.contains("added 5, skipped 1, failed 1"), "\(first.output)")
            #expect(first.output.contains("\(folder.path)/p1.jpg: already in the gallery"), "walked in name order, day2 first: \(first.output)")
            #expect(first.output.contains("failed  \(folder.path)/day2/page.jpg: not an image"), "\(first.output)")
            #expect(first.status == 2)
            let items = try await items(store, named: folder.lastPathComponent)
            #expect(items.map(\.title) == ["p4.jpg", "page.jpg", "same-as-p1.jpg", "p2.jpg", "p3.jpg"])
            #expect(items.filter { $0.state == .ready }.count == 4, "the server's workers made the thumbnails")
            // One upload each through the route (the operation log says how each version came).
            let galleryID = try #require(try await store.listGalleries().first { $0.name == folder.lastPathComponent }).id
            let payloads = try await DatabaseQueue(path: data.appendingPathComponent("gallery.sqlite").path).read { db in
                try String.fetchAll(db, sql: "SELECT payload FROM operation WHERE galleryId = ?", arguments: [galleryID])
            }
            #expect(payloads.filter { $0.contains("\"op\":\"upload\"") }.count == 5, "\(payloads)")
            #expect(try await store.tokens(account: 1).isEmpty, "the import's token is removed")

            let second = try await gallery(["import", folder.path, "--data", data.path])
            #expect(second.output.contains("added 0, skipped 6, failed 0"), "\(second.output)")
            #expect(try await self.items(store, named: folder.lastPathComponent).count == 5)

            // Another machine's way: --server with a token of the write scope; a read token is refused.
            let extra = testFolder("extra")
            try FileManager.default.createDirectory(at: extra, withIntermediateDirectories: true)
            try photo(9).write(to: extra.appendingPathComponent("p9.jpg"))
            let read = Secrets.token(), write = Secrets.token()
            _ = try await store.createToken(account: 1, name: "reader", scope: .read, tokenHash: Secrets.digest(read))
            _ = try await store.createToken(account: 1, name: "writer", scope: .write, tokenHash: Secrets.digest(write))
            let noToken = try await gallery(["import", extra.path, "--server", running.url, "--name", folder.lastPathComponent])
            #expect(noToken.status != 0 && noToken.output.contains("GALLERY_TOKEN"), "\(noToken.output)")
            let refused = try await gallery(["import", extra.path, "--server", running.url, "--name", folder.lastPathComponent], environment: ["GALLERY_TOKEN": read])
            #expect(refused.status == 2 && refused.output.contains("failed 1"), "\(refused.output)")
            let remote = try await gallery(["import", extra.path, "--server", running.url + "/", "--name", folder.lastPathComponent], environment: ["GALLERY_TOKEN": write])
            #expect(remote.status == 0 && remote.output.contains("added 1, skipped 0, failed 0"), "\(remote.output)")
            #expect(try await self.items(store, named: folder.lastPathComponent).count == 6)
            let nobody = try await gallery(["import", extra.path, "--server", "http://127.0.0.1:9"], environment: ["GALLERY_TOKEN": write])
            #expect(nobody.status != 0 && nobody.output.contains("no gallery server answers at http://127.0.0.1:9"), "\(nobody.output)")

            // server.json naming a host off this machine gets no token: the import refuses, nothing is sent.
            try RunningServer(url: "http://203.0.113.9:8080", pid: running.pid).write(in: data)
            let elsewhere = try await gallery(["import", extra.path, "--data", data.path])
            #expect(elsewhere.status != 0 && elsewhere.output.contains("not on this machine's loopback"), "\(elsewhere.output)")
            #expect(try await store.tokens(account: 1).map(\.name).sorted() == ["reader", "writer"], "no token made for it")
        }
    }

    /// 2,000 files, the import killed (SIGKILL) halfway, run again: every file once, all thumbnailed.
    @Test func twoThousandFilesKilledHalfwayThenRunAgain() async throws {
        let folder = testFolder("card2000")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for i in 0..<2_000 {
            let jpeg = try SampleImages.jpeg(width: 24 + i % 40, height: 16 + i / 40, red: Double(i % 255), green: Double(i / 8 % 255), blue: 120, title: "")
            try Data(jpeg).write(to: folder.appendingPathComponent(String(format: "IMG_%04d.jpg", i)))
        }
        let data = testFolder("import-data")
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("gallery")
        let p = Process()
        p.executableURL = binary
        p.arguments = ["import", folder.path, "--data", data.path]
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Kill it once it has said it added 1,000 files (plain lines on a pipe).
        var said = Data(), killedAt = 0
        while p.isRunning {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            said.append(chunk)
            killedAt = String(decoding: said, as: UTF8.self).components(separatedBy: ": added\n").count - 1
            if killedAt >= 1_000 { kill(p.processIdentifier, SIGKILL); break }
        }
        await p.exited()
        #expect(p.terminationReason == .uncaughtSignal, "killed halfway (after \(killedAt) files), not finished")
        let store = try GalleryStore(folder: data)
        let before = try await items(store, named: folder.lastPathComponent)
        #expect(before.count < 2_000 && before.count >= 950, "some batches committed: \(before.count)")

        let again = try await gallery(["import", folder.path, "--data", data.path])
        #expect(again.status == 0, "\(again.output.suffix(500))")
        #expect(again.output.contains("added \(2_000 - before.count), skipped \(before.count), failed 0"), "\(again.output.suffix(300))")
        let all = try await items(store, named: folder.lastPathComponent)
        #expect(all.count == 2_000)
        #expect(Set(all.map(\.title)).count == 2_000 && Set(all.compactMap(\.fileHash)).count == 2_000, "no file twice")
        #expect(all.allSatisfy { $0.state == .ready }, "the killed run's pending items were thumbnailed too")
    }

    /// On a terminal the progress is one line redrawn in place (a bar, files, bytes, rate, thumbnails);
    /// on a pipe one plain line per file. `script` gives the import a terminal.
    @Test func aTerminalGetsOneRedrawnProgressLineAndAPipePlainLines() async throws {
        let folder = testFolder("tty")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for i in 1...6 { try photo(i).write(to: folder.appendingPathComponent("p\(i).jpg")) }
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("gallery")
        let onTerminal = try await gallery(["/usr/bin/script", "-qec", "\(binary.path) import \(folder.path) --data \(testFolder("tty-data").path)", "/dev/null"], program: "/usr/bin/script")
        #expect(onTerminal.status == 0, "\(onTerminal.output)")
        #expect(onTerminal.output.contains("\rimporting [") && onTerminal.output.contains("] 6/6 files"), "\(onTerminal.output)")
        #expect(onTerminal.output.contains("thumbnails 6/6") && onTerminal.output.contains("\u{1B}[K"), "\(onTerminal.output)")
        #expect(!onTerminal.output.contains("[1/6] "), "no plain lines on a terminal: \(onTerminal.output)")
        let onPipe = try await gallery(["import", folder.path, "--data", testFolder("pipe-data").path])
        #expect(onPipe.output.contains("[1/6] \(folder.path)/p1.jpg: added") && !onPipe.output.contains("\r"), "\(onPipe.output)")
        #expect(onPipe.output.contains("added 6, skipped 0, failed 0"))
    }
}

