import Foundation
import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// Fetches a dropped URL's bytes: redirects followed by hand (each hop passes the guard again),
/// one deadline for the whole fetch, and a size limit checked on the header and while streaming.
struct ImageFetcher: Sendable {
    let client: HTTPClient
    let urlGuard: URLGuard
    let maxBytes: Int
    let timeout: Duration
    static let maxRedirects = 5

    struct Failure: Error, Sendable { var reason: String }

    func fetch(_ start: URL) async throws(Failure) -> [UInt8] {
        let deadline = NIODeadline.now() + .nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000)
        var current = start
        for hop in 0...Self.maxRedirects {
            do {
                if hop > 0 { current = try urlGuard.checkSyntax(current.absoluteString) }
                let address = try await urlGuard.resolve(current)
                var request = HTTPClientRequest(url: pinned(current, to: address))
                if current.scheme?.lowercased() == "http", case .v4 = address, let host = current.host {
                    request.headers.replaceOrAdd(name: "Host", value: current.port.map { "\(host):\($0)" } ?? host)
                }
                request.headers.add(name: "User-Agent", value: "gallery-server")
                request.headers.add(name: "Accept", value: "image/*")
                let response = try await client.execute(request, deadline: deadline)
                let status = response.status.code
                if (300..<400).contains(status), let location = response.headers.first(name: "Location") {
                    guard let next = URL(string: location, relativeTo: current)?.absoluteURL else {
                        throw Failure(reason: "redirect to an invalid location \"\(location)\"")
                    }
                    current = next
                    continue
                }
                guard status == 200 else { throw Failure(reason: "HTTP \(status) from \(current.host ?? "")") }
                if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > maxBytes {
                    throw Failure(reason: "too large: \(length) bytes (limit \(maxBytes))")
                }
                var bytes: [UInt8] = []
                for try await chunk in response.body {
                    bytes.append(contentsOf: chunk.readableBytesView)
                    if bytes.count > maxBytes { throw Failure(reason: "too large: more than \(maxBytes) bytes") }
                }
                return bytes
            } catch let f as Failure {
                throw f
            } catch let r as URLGuard.Refusal {
                throw Failure(reason: hop > 0 ? "redirect \(r.reason)" : r.reason)
            } catch let e as HTTPClientError where e == .deadlineExceeded || e == .readTimeout || e == .connectTimeout {
                throw Failure(reason: "timed out after \(timeout.components.seconds) s")
            } catch is CancellationError {
                throw Failure(reason: "cancelled")
            } catch {
                throw Failure(reason: "fetch failed: \(error)")
            }
        }
        throw Failure(reason: "too many redirects (more than \(Self.maxRedirects))")
    }

    /// Plain http connects to the checked IPv4 address itself, so DNS cannot answer differently
    /// the second time. https keeps the name (certificate checks need it).
    func pinned(_ url: URL, to address: IPAddress) -> String {
        guard url.scheme?.lowercased() == "http", case .v4 = address,
              var c = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        c.host = address.description
        return c.url?.absoluteString ?? url.absoluteString
    }
}
