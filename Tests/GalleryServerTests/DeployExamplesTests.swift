import Foundation
import Testing

/// docs/deploy's nginx examples are read by nginx itself (`nginx -t`, Debian's nginx from
/// scripts/setup.sh): each with a throw-away self-signed certificate in place of Let's Encrypt's
/// paths, inside a minimal main configuration. Nothing is started.
struct DeployExamplesTests {
    static let deploy = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/deploy")

    static func nginx() -> String? {
        ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func run(_ program: String, _ arguments: [String]) throws -> (Int32, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = arguments
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// `nginx -t` on `site` (a server-level example) with a certificate made for the test.
    static func check(_ site: String) throws -> (Int32, String) {
        let nginx = try #require(Self.nginx(), "nginx is not installed: run scripts/setup.sh")
        let dir = testFolder("nginx")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let (status, output) = try run("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                                                            "-subj", "/CN=photos.example.org",
                                                            "-keyout", dir.appendingPathComponent("key.pem").path,
                                                            "-out", dir.appendingPathComponent("cert.pem").path])
        #expect(status == 0, "\(output)")
        let local = site
            .replacingOccurrences(of: "/etc/letsencrypt/live/photos.example.org/fullchain.pem", with: dir.appendingPathComponent("cert.pem").path)
            .replacingOccurrences(of: "/etc/letsencrypt/live/photos.example.org/privkey.pem", with: dir.appendingPathComponent("key.pem").path)
        try local.write(to: dir.appendingPathComponent("site.conf"), atomically: true, encoding: .utf8)
        let p = dir.path
        try """
            pid \(p)/nginx.pid;
            error_log \(p)/error.log;
            events {}
            http {
                access_log off;
                client_body_temp_path \(p)/body; proxy_temp_path \(p)/proxy; fastcgi_temp_path \(p)/fastcgi;
                uwsgi_temp_path \(p)/uwsgi; scgi_temp_path \(p)/scgi;
                include \(p)/site.conf;
            }
            """.write(to: dir.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        return try run(nginx, ["-t", "-p", p, "-c", "\(p)/nginx.conf", "-e", "\(p)/error.log"])
    }

    @Test(arguments: ["nginx.conf", "nginx-two-instances.conf"])
    func theNginxExampleIsValid(_ name: String) throws {
        let site = try String(contentsOf: Self.deploy.appendingPathComponent(name), encoding: .utf8)
        let (status, output) = try Self.check(site)
        #expect(status == 0, "nginx -t on docs/deploy/\(name): \(output)")
        #expect(output.contains("syntax is ok") && output.contains("test is successful"), "\(output)")
    }

    /// The check is real: a misspelt directive in the same example is refused.
    @Test func aBrokenExampleIsRefused() throws {
        let site = try String(contentsOf: Self.deploy.appendingPathComponent("nginx-two-instances.conf"), encoding: .utf8)
        let (status, output) = try Self.check(site.replacingOccurrences(of: "proxy_buffering off;", with: "proxy_bufering off;"))
        #expect(status != 0)
        #expect(output.contains("unknown directive \"proxy_bufering\""), "\(output)")
    }

    /// Both live streams (a gallery's and the gallery list) fall under the unbuffered location.
    @Test(arguments: ["nginx.conf", "nginx-two-instances.conf"])
    func bothLiveStreamsAreUnbuffered(_ name: String) throws {
        let site = try String(contentsOf: Self.deploy.appendingPathComponent(name), encoding: .utf8)
        let line = try #require(site.components(separatedBy: "\n").first { $0.contains("location ~") && $0.contains("events") })
        let pattern = line.replacingOccurrences(of: "location ~", with: "").replacingOccurrences(of: "{", with: "")
            .trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "\\d", with: "[0-9]")
        let regex = try Regex(pattern)
        for path in ["/api/galleries/12/events", "/api/galleries/events"] { #expect(path.wholeMatch(of: regex) != nil, "\(path) in \(name)") }
        for path in ["/api/galleries/12", "/api/galleries/12/events/x"] { #expect(path.wholeMatch(of: regex) == nil, "\(path) in \(name)") }
    }

    /// Uploads and zip imports fall under a location that passes the body on as it arrives
    /// (`proxy_request_buffering off`), so a multi-file upload's photos appear on the other
    /// windows part by part behind the proxy too; nothing else does.
    @Test(arguments: ["nginx.conf", "nginx-two-instances.conf"])
    func uploadsPassThroughUnbuffered(_ name: String) throws {
        let site = try String(contentsOf: Self.deploy.appendingPathComponent(name), encoding: .utf8)
        let lines = site.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex { $0.contains("location ~") && $0.contains("uploads") })
        let block = lines[start...].prefix { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("}") }
        #expect(block.contains { $0.contains("proxy_request_buffering off;") }, "\(name)")
        let pattern = lines[start].replacingOccurrences(of: "location ~", with: "").replacingOccurrences(of: "{", with: "")
            .trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "\\d", with: "[0-9]")
        let regex = try Regex(pattern)
        for path in ["/api/galleries/12/uploads", "/api/galleries/import"] { #expect(path.wholeMatch(of: regex) != nil, "\(path) in \(name)") }
        for path in ["/api/galleries/12/batch", "/api/galleries/12/urls", "/api/galleries"] { #expect(path.wholeMatch(of: regex) == nil, "\(path) in \(name)") }
    }
}
