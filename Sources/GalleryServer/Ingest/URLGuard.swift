import Foundation
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// Server-side request forgery guard for dropped URLs: only http(s), and only to public
/// addresses. Every redirect hop is checked again, and the connection (http and https) goes to
/// the address that was checked, so a second DNS answer cannot swap it for an internal one
/// (DNS rebinding; see ImageFetcher).
///
/// Always refused: link-local (169.254/16, fe80::/10, where cloud metadata lives), the
/// metadata addresses themselves, unspecified and multicast addresses. Refused unless
/// `allowPrivate`: loopback, RFC 1918, CGNAT, unique-local IPv6.
public struct URLGuard: Sendable {
    public var allowPrivate: Bool
    /// Host name → addresses; the system's getaddrinfo unless told otherwise (tests give names
    /// that only they know, to show that the fetch does not resolve the name a second time).
    public var resolver: @Sendable (String) -> [IPAddress]

    public init(allowPrivate: Bool, resolver: @escaping @Sendable (String) -> [IPAddress] = URLGuard.lookup) {
        self.allowPrivate = allowPrivate
        self.resolver = resolver
    }

    public struct Refusal: Error, Equatable, Sendable {
        public var reason: String
    }

    /// Syntax, scheme, port and (for literal IP hosts) address checks, without any network traffic.
    public func checkSyntax(_ text: String) throws(Refusal) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else {
            throw Refusal(reason: "refused: \"\(text)\" is not a URL")
        }
        guard scheme == "http" || scheme == "https" else { throw Refusal(reason: "refused: scheme \"\(scheme)\" (only http and https)") }
        guard let host = url.host, !host.isEmpty else { throw Refusal(reason: "refused: URL has no host") }
        if url.user != nil || url.password != nil { throw Refusal(reason: "refused: URL carries credentials") }
        if let literal = URLGuard.parseLiteral(host) { try check(literal, host: host) }
        return url
    }

    /// Resolves the host and checks every address it resolves to; returns them all, in the
    /// resolver's order (a fetch connects to them, and only them, one after the other).
    public func resolve(_ url: URL) async throws(Refusal) -> [IPAddress] {
        let host = url.host ?? ""
        if let literal = URLGuard.parseLiteral(host) { try check(literal, host: host); return [literal] }
        // getaddrinfo blocks: on NIO's blocking pool, not a cooperative thread.
        let resolver = self.resolver
        let addresses = (try? await NIOThreadPool.singleton.runIfActive { resolver(host) }) ?? []
        guard !addresses.isEmpty else { throw Refusal(reason: "could not resolve host \(host)") }
        for a in addresses { try check(a, host: host) }
        var distinct: [IPAddress] = []
        for a in addresses where !distinct.contains(a) { distinct.append(a) }
        return distinct
    }

    func check(_ address: IPAddress, host: String) throws(Refusal) {
        let kind = address.kind
        switch kind {
        case .publicAddress: return
        case .loopback, .privateNetwork:
            if allowPrivate { return }
        case .linkLocal, .metadata, .unspecified, .multicast:
            break
        }
        let shown = host == address.description ? host : "\(host) (\(address))"
        throw Refusal(reason: "refused: \(shown) is a \(kind.rawValue) address")
    }

    public static func parseLiteral(_ host: String) -> IPAddress? {
        var h = host
        if h.hasPrefix("[") && h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, h, &v4) == 1 { return .v4(withUnsafeBytes(of: v4.s_addr) { Array($0) }) }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, h, &v6) == 1 { return .v6(withUnsafeBytes(of: v6) { Array($0) }) }
        return nil
    }

    /// getaddrinfo (which also understands forms like 0x7f000001 or 2130706433).
    public static func lookup(_ host: String) -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result else { return [] }
        defer { freeaddrinfo(first) }
        var out: [IPAddress] = []
        var p: UnsafeMutablePointer<addrinfo>? = first
        while let info = p {
            if info.pointee.ai_family == AF_INET, let sa = info.pointee.ai_addr {
                sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { s in
                    out.append(.v4(withUnsafeBytes(of: s.pointee.sin_addr.s_addr) { Array($0) }))
                }
            } else if info.pointee.ai_family == AF_INET6, let sa = info.pointee.ai_addr {
                sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { s in
                    out.append(.v6(withUnsafeBytes(of: s.pointee.sin6_addr) { Array($0) }))
                }
            }
            p = info.pointee.ai_next
        }
        return out
    }
}

public enum IPAddress: Equatable, Sendable, CustomStringConvertible {
    case v4([UInt8])
    case v6([UInt8])

    public enum Kind: String, Sendable {
        case publicAddress = "public"
        case loopback
        case privateNetwork = "private"
        case linkLocal = "link-local"
        case metadata = "cloud metadata"
        case unspecified
        case multicast
    }

    public var kind: Kind {
        switch self {
        case let .v4(b):
            if b == [169, 254, 169, 254] || b == [100, 100, 100, 200] { return .metadata }
            switch (b[0], b[1]) {
            case (0, _): return .unspecified
            case (127, _): return .loopback
            case (10, _), (192, 168): return .privateNetwork
            case (172, 16...31): return .privateNetwork
            case (100, 64...127): return .privateNetwork
            case (169, 254): return .linkLocal
            case (224...239, _): return .multicast
            case (240...255, _): return .unspecified
            default: return .publicAddress
            }
        case let .v6(b):
            if b.allSatisfy({ $0 == 0 }) { return .unspecified }
            if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return .loopback }
            // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible forms are judged by their IPv4 address.
            if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xff && b[11] == 0xff { return IPAddress.v4(Array(b[12..<16])).kind }
            if b[0..<12].allSatisfy({ $0 == 0 }) { return IPAddress.v4(Array(b[12..<16])).kind }
            // NAT64 (64:ff9b::/96, RFC 6052) reaches the IPv4 address in its last 32 bits through the
            // translator: judged by it. 64:ff9b:1::/48 is for local networks (RFC 8215).
            if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b {
                if b[4..<12].allSatisfy({ $0 == 0 }) { return IPAddress.v4(Array(b[12..<16])).kind }
                if b[4] == 0x00 && b[5] == 0x01 { return .privateNetwork }
            }
            // 6to4 (2002::/16) carries an IPv4 address in bits 16–47: an internal one makes it internal.
            if b[0] == 0x20 && b[1] == 0x02 {
                let embedded = IPAddress.v4(Array(b[2..<6])).kind
                if embedded != .publicAddress { return embedded }
            }
            // fd00:ec2::254, the AWS metadata address over IPv6.
            if b[0] == 0xfd && b[1] == 0x00 && b[2] == 0x0e && b[3] == 0xc2 && b[4..<14].allSatisfy({ $0 == 0 }) && b[14] == 0x02 && b[15] == 0x54 { return .metadata }
            if b[0] & 0xfe == 0xfc { return .privateNetwork }
            if b[0] == 0xfe && b[1] & 0xc0 == 0x80 { return .linkLocal }
            // fec0::/10, site-local (deprecated by RFC 3879, still routed inside some networks).
            if b[0] == 0xfe && b[1] & 0xc0 == 0xc0 { return .privateNetwork }
            if b[0] == 0xff { return .multicast }
            return .publicAddress
        }
    }

    public var description: String {
        switch self {
        case let .v4(b): return b.map(String.init).joined(separator: ".")
        case let .v6(b):
            var words: [String] = []
            for i in stride(from: 0, to: 16, by: 2) { words.append(String(UInt16(b[i]) << 8 | UInt16(b[i + 1]), radix: 16)) }
            return words.joined(separator: ":")
        }
    }

    /// The form to put in a URL's host.
    public var urlHost: String {
        if case .v6 = self { return "[\(description)]" }
        return description
    }
}
