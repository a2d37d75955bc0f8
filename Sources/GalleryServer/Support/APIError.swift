import Foundation
import Hummingbird
import GalleryCore
import GalleryStore
import Imaging

/// An error answered as JSON: `{"error": {"status": 404, "message": "unknown item 17"}}`, plus
/// extra fields where they help (a 409 carries what changed since the client's version).
public struct APIError: HTTPResponseError {
    public var status: HTTPResponse.Status
    public var message: String
    public var extra: [String: JSONValue] = [:]
    /// Headers of the answer beyond its content type (`Allow` with a 405).
    public var headers: HTTPFields = [:]

    public init(_ status: HTTPResponse.Status, _ message: String, extra: [String: JSONValue] = [:], headers: HTTPFields = [:]) {
        self.status = status; self.message = message; self.extra = extra; self.headers = headers
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var body: [String: JSONValue] = ["status": .number(Double(status.code)), "message": .string(message)]
        for (k, v) in extra { body[k] = v }
        let data = try JSONEncoder().encode(["error": JSONValue.object(body)])
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The API's answer for any error a handler throws.
    static func from(_ error: Error) -> Error {
        // The database's disk is full: nothing of the request was stored, it works again once there
        // is room, and whoever sent it is not at fault — 507, as for the images folder, not a 500.
        if StoreError.isStorageFull(error) { return storageFull }
        switch error {
        case let e as APIError: return e
        case let e as StoreError:
            switch e {
            case .galleryNotFound, .itemNotFound, .sectionNotFound: return APIError(.notFound, e.message)
            case .invalid: return APIError(.unprocessableContent, e.message)
            case let .stale(base, current):
                return APIError(.conflict, e.message, extra: ["baseVersion": .number(Double(base)), "currentVersion": .number(Double(current))])
            case let .tooManyItems(limit, _): return APIError(.contentTooLarge, e.message, extra: ["maxItems": .number(Double(limit))])
            case .corrupt, .database: return APIError(.internalServerError, Self.internalMessage)
            case .storageFull: return storageFull
            case .unavailable:
                // Anyone may meet an outage (sign-in, the session's state, a link): the answer says what
                // is wrong; where the database is and what its driver said go to the server's log
                // (APIErrorMiddleware), as the images folder's path does.
                return APIError(.serviceUnavailable, "database unavailable: the server cannot reach its database; try again later")
            }
        case let e as ImageFiles.StorageError:
            // The server's images folder (read-only, full, gone): nothing the client sent is at fault,
            // and it works again without a restart once the folder takes files. The path stays in
            // the server's log and /readyz's log line, not in the answer.
            return APIError(e.isFull ? HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage") : .serviceUnavailable,
                            "the server's images folder cannot take a file (\(e.reason)): nothing was stored; try again later")
        case let e as DecodingError: return APIError(.badRequest, "malformed JSON: " + describe(e))
        case let e as HTTPError:
            if e.status == .contentTooLarge { return APIError(.contentTooLarge, e.body ?? "request body too large") }
            return APIError(e.status, e.body ?? e.status.reasonPhrase)
        case let e as HTTPResponseError:
            // Hummingbird's own refusals (a body over the collect limit is NIOTooManyBytesError → 413) get the JSON shape too.
            if e.status == .contentTooLarge { return APIError(.contentTooLarge, "request body too large") }
            return APIError(e.status, e.status.reasonPhrase)
        default: return APIError(.internalServerError, Self.internalMessage)
        }
    }

    static let storageFull = APIError(HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"),
                                      "the server's database has no room to write (its disk is full): nothing was stored; try again later")

    /// What a 500 says: the database's or the runtime's own words (table names, a driver's codes,
    /// a path) go to the server's log (APIErrorMiddleware), not to whoever sent the request.
    static let internalMessage = "internal error: the request was not completed; the server's log says what failed"

    static func describe(_ e: DecodingError) -> String {
        func path(_ c: [CodingKey]) -> String {
            let p = c.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return p.isEmpty ? "body" : String(p.drop(while: { $0 == "." }))
        }
        switch e {
        case let .keyNotFound(key, ctx): return "missing \"\(key.stringValue)\" at \(path(ctx.codingPath))"
        case let .typeMismatch(type, ctx): return "\(path(ctx.codingPath)): expected \(type)"
        case let .valueNotFound(type, ctx): return "\(path(ctx.codingPath)): expected \(type), found null"
        case let .dataCorrupted(ctx):
            if ctx.codingPath.isEmpty { return "not valid JSON" }
            return "\(path(ctx.codingPath)): \(ctx.debugDescription)"
        @unknown default: return "\(e)"
        }
    }
}

/// Minimal JSON value for error extras.
public enum JSONValue: Codable, Sendable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case object([String: JSONValue])
    case array([JSONValue])
    case raw(String)
    case null

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case let .string(s): try c.encode(s)
        case let .number(n): if n == n.rounded() && abs(n) < 1e15 { try c.encode(Int64(n)) } else { try c.encode(n) }
        case let .bool(b): try c.encode(b)
        case let .object(o): try c.encode(o)
        case let .array(a): try c.encode(a)
        case let .raw(s): try c.encode(s)
        case .null: try c.encodeNil()
        }
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null } else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) } else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) } else { self = .object(try c.decode([String: JSONValue].self)) }
    }
}

/// Turns every thrown error into the JSON error shape.
struct APIErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do { return try await next(request, context) } catch {
            if case let StoreError.unavailable(detail) = error {
                context.logger.error("database unavailable", metadata: ["reason": "\(detail)"])
            }
            if StoreError.isStorageFull(error) {
                context.logger.error("the database's disk is full: a write was refused (507)", metadata: ["reason": "\(error)", "path": "\(request.uri.path)"])
            }
            let answer = APIError.from(error)
            if let api = answer as? APIError, api.status == .internalServerError {
                context.logger.error("internal error", metadata: ["reason": "\(error)", "path": "\(request.uri.path)"])
            }
            throw answer
        }
    }
}
