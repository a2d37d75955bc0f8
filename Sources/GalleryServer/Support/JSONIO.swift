import Foundation
import Hummingbird

enum JSONIO {
    static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()

    /// Reads a JSON body up to `limit` bytes (past it: 413) and decodes it (malformed: 400 naming the problem).
    /// `fast` may read the body's bytes first (a fixed shape, without JSONDecoder); when it answers nil, JSONDecoder decodes it.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, limit: Int,
                                     fast: ((UnsafeRawBufferPointer) -> T?)? = nil) async throws -> T {
        var request = request
        let buffer = try await request.collectBody(upTo: limit)
        guard buffer.readableBytes > 0 else { throw APIError(.badRequest, "malformed JSON: empty body") }
        if let fast, let value = buffer.withUnsafeReadableBytes(fast) { return value }
        return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
    }

    /// Like `decode`, but an empty body is nil instead of an error.
    static func decodeOptional<T: Decodable>(_ type: T.Type, from request: Request, limit: Int) async throws -> T? {
        var request = request
        let buffer = try await request.collectBody(upTo: limit)
        guard buffer.readableBytes > 0 else { return nil }
        return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
    }

    /// An answer of JSON text written already (as `encoder` writes it: `AnswerJSONWriter`).
    static func response(json bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func response<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
        var h = headers
        h[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: h, body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }
}
