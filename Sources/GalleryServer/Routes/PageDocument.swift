import Crypto
import Foundation
import Hummingbird

/// The page's document, `Web/index.html`, as the server sends it (`/`, `/index.html`, `/setup`,
/// `/s/{token}`): its first script, `<script src="/js/early.js"></script>`, is written into it,
/// and the answer's content security policy allows that one script by its SHA-256 and no other
/// inline script (issue 15.2). The script starts the big downloads (engine, session, gallery
/// list, the named gallery's columns); as a file of its own the parser stopped for its round
/// trip, and its fetches started that much later: ~20 ms of a first visit at 100k (BENCHMARKS.md).
///
/// Both files are read per request (the page's folder may change under a running server: the
/// benchmarks swap pages; ~10 KB, hashed in microseconds). The script is written in only if its
/// text cannot end the element early (no `</script`), else the document keeps the tag.
enum PageDocument {
    static let earlyTag = #"<script src="/js/early.js"></script>"#

    static func response(webFolder: URL) throws -> Response {
        let index = webFolder.appendingPathComponent("index.html")
        guard let data = FileManager.default.contents(atPath: index.path), var html = String(data: data, encoding: .utf8) else {
            throw APIError(.notFound, "the page is missing (\(index.path))")
        }
        var headers: HTTPFields = [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"]
        if let range = html.range(of: earlyTag),
           let early = FileManager.default.contents(atPath: webFolder.appendingPathComponent("js/early.js").path),
           let script = String(data: early, encoding: .utf8), !script.lowercased().contains("</script") {
            html.replaceSubrange(range, with: "<script>\(script)</script>")
            headers[.contentSecurityPolicy] = SecurityPolicy.contentSecurityPolicy(inlineScript: script)
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}

extension SecurityPolicy {
    /// The policy with one inline script allowed by its hash (CSP's `'sha256-…'` source: the
    /// base64 SHA-256 of the element's text, exactly as the document holds it).
    public static func contentSecurityPolicy(inlineScript script: String) -> String {
        let hash = Data(SHA256.hash(data: Data(script.utf8))).base64EncodedString()
        return contentSecurityPolicy.replacingOccurrences(of: "script-src 'self'", with: "script-src 'self' 'sha256-\(hash)'")
    }
}
