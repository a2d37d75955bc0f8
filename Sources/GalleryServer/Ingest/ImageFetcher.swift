import Foundation
import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// Fetches a dropped URL's bytes: redirects followed by hand (each hop passes the guard again),
/// one deadline for the whole fetch, and a size limit checked on the header and while streaming.
///
/// DNS rebinding: each hop connects only to addresses the guard checked. The host name is
/// resolved once (by the guard); the hop's connection is made by a client whose `dnsOverride`
/// maps that name to a checked address, so AsyncHTTPClient never resolves it again — for http
/// and https alike, IPv4 and IPv6 — while the request keeps the name in its Host header and, for
/// https, in the TLS SNI and certificate check. When an address does not answer, the next
/// checked one is tried (a name with ::1 and 127.0.0.1 reaches a server on either). Literal-address
/// hosts need no resolution at all.
struct ImageFetcher: Sendable {
    /// The base client configuration (timeouts, no automatic redirects); each hop adds its pin.
    let configuration: HTTPClient.Configuration
    let urlGuard: URLGuard
    let maxBytes: Int
    let timeout: Duration
    /// The client's read timeout (no byte for this long), reported as such.
    var silence: Duration = .seconds(10)
    static let maxRedirects = 5

    struct Failure: Error, Sendable { var reason: String }

    enum Hop { case redirect(URL), bytes([UInt8]) }

    func fetch(_ start: URL) async throws(Failure) -> [UInt8] {
        let deadline = NIODeadline.now() + .nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000)
        var current = start
        for hop in 0...Self.maxRedirects {
            do {
                if hop > 0 { current = try urlGuard.checkSyntax(current.absoluteString) }
                let addresses = try await urlGuard.resolve(current)
                let result = try await self.hop(current, addresses: addresses, deadline: deadline)
                switch result {
                case let .bytes(bytes): return bytes
                case let .redirect(next): current = next
                }
            } catch let f as Failure {
                throw f
            } catch let r as URLGuard.Refusal {
                throw Failure(reason: hop > 0 ? "redirect \(r.reason)" : r.reason)
            } catch let e as HTTPClientError where e == .connectTimeout {
                throw Failure(reason: "no answer from \(current.host ?? "the server") (connection timed out)")
            } catch let e as HTTPClientError where e == .readTimeout {
                throw Failure(reason: "\(current.host ?? "the server") sent nothing for \(silence.components.seconds) s")
            } catch let e as HTTPClientError where e == .deadlineExceeded {
                throw Failure(reason: "timed out after \(timeout.components.seconds) s")
            } catch is CancellationError {
                throw Failure(reason: "cancelled")
            } catch {
                throw Failure(reason: "fetch failed: \(error)")
            }
        }
        throw Failure(reason: "too many redirects (more than \(Self.maxRedirects))")
    }

    /// No answer from this address (refused, unreachable, TLS failed…): the next checked one is tried.
    struct NoAnswer: Error { var underlying: Error }

    /// One hop: the checked addresses in order until one answers (IPv6 first where the resolver
    /// says so, then IPv4, as a connection to the name would); never an address that was not checked.
    func hop(_ url: URL, addresses: [IPAddress], deadline: NIODeadline) async throws -> Hop {
        var last: Error = Failure(reason: "no address for \(url.host ?? "")")
        for address in addresses {
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: pinned(url, to: address))
            do {
                let result = try await hop(url, client: client, deadline: deadline)
                try? await client.shutdown()
                return result
            } catch let e as NoAnswer {
                try? await client.shutdown()
                last = e.underlying
                if NIODeadline.now() >= deadline { break }
            } catch {
                try? await client.shutdown()
                throw error
            }
        }
        throw last
    }

    /// One request on a client pinned to one checked address: the bytes, or where a redirect points.
    func hop(_ url: URL, client: HTTPClient, deadline: NIODeadline) async throws -> Hop {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "User-Agent", value: "gallery-server")
        request.headers.add(name: "Accept", value: "image/*")
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, deadline: deadline)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw NoAnswer(underlying: error)
        }
        let status = response.status.code
        if (300..<400).contains(status), let location = response.headers.first(name: "Location") {
            guard let next = URL(string: location, relativeTo: url)?.absoluteURL else {
                throw Failure(reason: "redirect to an invalid location \"\(location)\"")
            }
            return .redirect(next)
        }
        guard status == 200 else { throw Failure(reason: "HTTP \(status) from \(url.host ?? "")") }
        if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > maxBytes {
            throw Failure(reason: "too large: \(length) bytes (limit \(maxBytes))")
        }
        return .bytes(try await body(of: response, deadline: deadline))
    }

    /// The response's body, read against the whole fetch's deadline: AsyncHTTPClient's deadline
    /// covers the response head only, and its read timeout starts again with every byte, so a
    /// server sending a byte a second would hold an ingestion worker for as long as it liked (the
    /// attacker review of session 27: 22 minutes against a 15 s timeout, four of them stopping all
    /// ingestion). Past the deadline the read is cancelled (the connection closed) and the fetch
    /// fails as timed out.
    func body(of response: HTTPClientResponse, deadline: NIODeadline) async throws -> [UInt8] {
        let maxBytes = self.maxBytes
        return try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
            group.addTask {
                var bytes: [UInt8] = []
                for try await chunk in response.body {
                    bytes.append(contentsOf: chunk.readableBytesView)
                    if bytes.count > maxBytes { throw Failure(reason: "too large: more than \(maxBytes) bytes") }
                }
                return bytes
            }
            group.addTask {
                let left = deadline - NIODeadline.now()
                if left.nanoseconds > 0 { try await Task.sleep(nanoseconds: UInt64(left.nanoseconds)) }
                return nil
            }
            defer { group.cancelAll() }
            guard case let bytes?? = try await group.next() else { throw HTTPClientError.deadlineExceeded }
            return bytes
        }
    }

    /// The client configuration for one hop: a host name is mapped to the address the guard
    /// checked (AsyncHTTPClient then connects there, sending the name as Host and SNI); a literal
    /// address is connected to as it is.
    func pinned(_ url: URL, to address: IPAddress) -> HTTPClient.Configuration {
        var c = configuration
        if let host = url.host, URLGuard.parseLiteral(host) == nil {
            c.dnsOverride = [host: address.description]
        }
        return c
    }
}
