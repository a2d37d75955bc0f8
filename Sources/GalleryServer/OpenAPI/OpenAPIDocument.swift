import Foundation
import Hummingbird

/// The API as a contract: an OpenAPI 3.1 document of every route the router registers, served
/// at `GET /api/openapi.json` (anyone may read it: it describes no data).
///
/// Hand-written, not generated from Swift types, and the server is not generated from it
/// (docs/API.md, "The contract", says why). Each route is one `Operation` below: what it takes
/// and what it answers when it succeeds. The rest is derived so that it cannot drift:
/// - security and the `x-access-rule` extension from the route's rule in `AccessRules.table`;
/// - the refusals every route shares, from that rule and the method: 421 (unknown Host) and 401
///   (an unknown or revoked bearer token) everywhere; 401 and 403 where the rule needs someone;
///   403, 415 and 507 for every write (cross-site, read-only token, a body that is not JSON,
///   multipart or zip; the database's disk full); 404 where a gallery, item or image is named; 400, 413 and 422 with a body;
///   503 (the database away) everywhere but `/healthz`.
/// `OpenAPITests` fails when a route exists that the document lacks, or the reverse; schemathesis
/// (Tests/contract/fuzz.py) fuzzes a live server against it in the test command.
public enum OpenAPIDocument {
    /// The document as JSON (UTF-8), built once.
    public static let json: [UInt8] = {
        do { return Array(try JSONIO.encoder.encode(document())) } catch { fatalError("the OpenAPI document does not encode: \(error)") }
    }()

    /// `"METHOD /path/{param}"` of every operation the document describes.
    public static var routes: [String] { operations.map { "\($0.method) \($0.path)" } }

    enum Body {
        case json(String, required: Bool = true)
        case multipart
        case zip
    }

    enum Answer {
        case json(String)
        case jsonArray(String)
        case none
        case text(String, String) // media type, description
        case binary([String], String)
        /// JSON, or with a query parameter the same content in a binary form.
        case jsonOrBinary(String, String)
    }

    struct Operation {
        var method: String
        var path: String
        var tag: String
        var summary: String
        var description: String?
        var parameters: [JSONValue] = []
        var body: Body?
        var answers: [Int: Answer]
        /// Refusals beyond those derived from the rule and the method.
        var refusals: Set<Int> = []
        var links: [String: JSONValue] = [:]
    }

    // MARK: Parameters

    static func schema(_ ref: String) -> JSONValue { .object(["$ref": .string("#/components/schemas/\(ref)")]) }
    static let id: JSONValue = schema("Id")

    static func param(_ name: String, in place: String, _ schema: JSONValue, required: Bool = false, _ description: String? = nil) -> JSONValue {
        var p: [String: JSONValue] = ["name": .string(name), "in": .string(place), "schema": schema, "required": .bool(required || place == "path")]
        if let description { p["description"] = .string(description) }
        return .object(p)
    }

    static func query(_ name: String, _ schema: JSONValue, required: Bool = false, _ description: String? = nil) -> JSONValue {
        param(name, in: "query", schema, required: required, description)
    }

    static let ifNoneMatch = param("If-None-Match", in: "header", .object(["type": .string("string")]), "An ETag of an earlier answer: 304 when it is still current.")
    static let imageName: JSONValue = .object(["type": .string("string"), "enum": .array(["grid.jpg", "detail.jpg", "original"].map(JSONValue.string))])

    /// Path parameters that are not integer ids.
    static let pathSchemas: [String: JSONValue] = [
        "hash": .object(["type": .string("string"), "pattern": .string("^[0-9a-f]{64}$"), "description": .string("SHA-256 of the original, hex.")]),
        "name": imageName,
    ]

    static func gallery(_ rest: String = "") -> String { "/api/galleries/{gallery}" + rest }

    // MARK: Links (schemathesis' stateful phase follows them)

    static func link(_ operation: String, _ parameter: String, _ expression: String) -> JSONValue {
        .object(["operationId": .string(operation), "parameters": .object([parameter: .string(expression)])])
    }

    // MARK: The operations

    static let operations: [Operation] = {
        let string: JSONValue = .object(["type": .string("string")])
        let integer: JSONValue = .object(["type": .string("integer"), "format": .string("int64")])
        let version: JSONValue = .object(["type": .string("integer"), "format": .string("int64"), "minimum": .number(0)])
        let binaryImage = Answer.binary(["image/jpeg", "image/png", "image/gif", "image/webp", "application/octet-stream"],
                                        "The image file (grid.jpg and detail.jpg are JPEG; an original is what was uploaded). ETag \"<hash>-<name>\".")
        let galleryLinks: [String: JSONValue] = [
            "snapshot": link("get_api_galleries_gallery", "gallery", "$response.body#/id"),
            "columns": link("get_api_galleries_gallery_columns", "gallery", "$response.body#/id"),
            "batch": link("post_api_galleries_gallery_batch", "gallery", "$response.body#/id"),
            "rename": link("patch_api_galleries_gallery", "gallery", "$response.body#/id"),
            "urls": link("post_api_galleries_gallery_urls", "gallery", "$response.body#/id"),
            "uploads": link("post_api_galleries_gallery_uploads", "gallery", "$response.body#/id"),
            "trash": link("get_api_galleries_gallery_trash", "gallery", "$response.body#/id"),
            "links": link("post_api_galleries_gallery_links", "gallery", "$response.body#/id"),
            "members": link("get_api_galleries_gallery_members", "gallery", "$response.body#/id"),
            "duplicate": link("post_api_galleries_gallery_duplicate", "gallery", "$response.body#/id"),
            "export": link("get_api_galleries_gallery_export", "gallery", "$response.body#/id"),
            "delete": link("delete_api_galleries_gallery", "gallery", "$response.body#/id"),
        ]
        return [
            // The page and its engine.
            Operation(method: "GET", path: "/engine.wasm", tag: "page", summary: "The grid engine compiled to WebAssembly",
                      answers: [200: .binary(["application/wasm"], "engine.wasm")], refusals: [404]),
            Operation(method: "GET", path: "/js/protocol.js", tag: "page", summary: "The engine's protocol module for the page",
                      answers: [200: .text("text/javascript", "JavaScript module")], refusals: [404]),
            Operation(method: "GET", path: "/js/page.js", tag: "page", summary: "The page's modules, bundled",
                      answers: [200: .text("text/javascript", "JavaScript module")], refusals: [404]),
            Operation(method: "GET", path: "/", tag: "page", summary: "The page (its first script written in, allowed by its hash in the answer's Content-Security-Policy)",
                      answers: [200: .text("text/html", "index.html")], refusals: [404]),
            Operation(method: "GET", path: "/index.html", tag: "page", summary: "The page, as at /",
                      answers: [200: .text("text/html", "index.html")], refusals: [404]),
            Operation(method: "GET", path: "/setup", tag: "page", summary: "The page, at the first account's form",
                      answers: [200: .text("text/html", "index.html")], refusals: [404]),
            Operation(method: "GET", path: "/s/{token}", tag: "page", summary: "The page, for a share link's visitor (it calls POST /api/links/open)",
                      parameters: [param("token", in: "path", string)], answers: [200: .text("text/html", "index.html")], refusals: [404]),

            // Operating it.
            Operation(method: "GET", path: "/healthz", tag: "operations", summary: "The process answers",
                      answers: [200: .text("text/plain", "ok")]),
            Operation(method: "GET", path: "/readyz", tag: "operations", summary: "The database answers and the images folder takes a file",
                      description: "503 names what fails (the log says why).", answers: [200: .json("Readiness")], refusals: [503]),
            Operation(method: "GET", path: "/metrics", tag: "operations", summary: "Prometheus metrics (an admin: session, or an admin's token)",
                      description: "Requests by route, method and status with latency histograms (http_server_request_duration), http_server_active_requests, gallery_batches_total, gallery_ingest_queue, gallery_live_streams.",
                      answers: [200: .text("text/plain", "Prometheus text format 0.0.4")]),
            Operation(method: "GET", path: "/api/openapi.json", tag: "operations", summary: "This document",
                      answers: [200: .json("")]),

            // Sessions and accounts.
            Operation(method: "GET", path: "/api/session", tag: "accounts", summary: "Who is asking", answers: [200: .json("Session")]),
            Operation(method: "POST", path: "/api/setup", tag: "accounts", summary: "The first account (an admin), with the token printed in the server log",
                      description: "Works once, only while no account exists (403 after). Sets the session cookie.",
                      body: .json("Setup"), answers: [201: .json("UserAnswer")], refusals: [422, 429]),
            Operation(method: "POST", path: "/api/login", tag: "accounts", summary: "Sign in: a new session cookie",
                      description: "401 \"wrong name or password\" (never which), with codeRequired when a second factor is needed.",
                      body: .json("Login"), answers: [200: .json("UserAnswer")], refusals: [401, 429]),
            Operation(method: "POST", path: "/api/logout", tag: "accounts", summary: "End this session (clears the cookie)", answers: [204: .none]),
            Operation(method: "POST", path: "/api/logout-everywhere", tag: "accounts", summary: "End every session of the account (their live streams end)", answers: [204: .none]),
            Operation(method: "GET", path: "/api/users", tag: "accounts", summary: "Every account (admin)", answers: [200: .jsonArray("Account")]),
            Operation(method: "POST", path: "/api/users", tag: "accounts", summary: "A new account (admin)",
                      body: .json("NewUser"), answers: [201: .json("Account")], refusals: [422],
                      links: ["delete": link("delete_api_users_user", "user", "$response.body#/id")]),
            Operation(method: "PATCH", path: "/api/users/{user}", tag: "accounts", summary: "A new password (one's own with current; an admin: anyone's)",
                      description: "Ends the account's other sessions; one's own gets a new cookie.",
                      parameters: [param("user", in: "path", id)], body: .json("PasswordChange"), answers: [200: .json("Account")], refusals: [404, 422, 429]),
            Operation(method: "DELETE", path: "/api/users/{user}", tag: "accounts", summary: "Remove an account (admin; not one's own, not the last admin)",
                      parameters: [param("user", in: "path", id)], answers: [204: .none], refusals: [404, 422]),
            Operation(method: "POST", path: "/api/me/totp", tag: "accounts", summary: "Start setting up (or replacing) two-factor sign-in (with the password)",
                      body: .json("Password"), answers: [200: .json("TOTPStart")], refusals: [429]),
            Operation(method: "POST", path: "/api/me/totp/confirm", tag: "accounts", summary: "Confirm it with a code: ten recovery codes, shown once",
                      body: .json("Code"), answers: [200: .json("RecoveryCodes")], refusals: [409, 422]),
            Operation(method: "DELETE", path: "/api/me/totp", tag: "accounts", summary: "Turn two-factor sign-in off (with the password)",
                      body: .json("Password"), answers: [204: .none], refusals: [429]),
            Operation(method: "GET", path: "/api/tokens", tag: "accounts", summary: "The account's API tokens", answers: [200: .jsonArray("Token")]),
            Operation(method: "POST", path: "/api/tokens", tag: "accounts", summary: "A new API token (shown once)",
                      body: .json("NewToken"), answers: [201: .json("CreatedToken")], refusals: [422],
                      links: ["delete": link("delete_api_tokens_token", "token", "$response.body#/id")]),
            Operation(method: "DELETE", path: "/api/tokens/{token}", tag: "accounts", summary: "Revoke an API token",
                      parameters: [param("token", in: "path", id)], answers: [204: .none], refusals: [404]),

            // Galleries.
            Operation(method: "GET", path: "/api/galleries", tag: "galleries", summary: "The galleries the caller may see, with its role in each",
                      answers: [200: .jsonArray("GalleryInfo")]),
            Operation(method: "GET", path: "/api/galleries/events", tag: "galleries",
                      summary: "The caller's gallery list, live (server-sent events: galleries whenever the list differs; revoked)",
                      description: "Never ends by itself while the caller may ask (a heartbeat every 15 s).",
                      parameters: [query("since", version, "The list version the caller holds: no first event when it is current.")],
                      answers: [200: .text("text/event-stream", "Server-sent events")], refusals: [400, 422]),
            Operation(method: "POST", path: "/api/galleries", tag: "galleries", summary: "A new gallery with one empty section (the caller owns it)",
                      body: .json("Name"), answers: [201: .json("GalleryInfo")], refusals: [422], links: galleryLinks),
            Operation(method: "POST", path: "/api/galleries/import", tag: "galleries", summary: "Import a gallery archive (zip from export)",
                      description: "Every image is hashed again and must match its name; all or nothing (422 with the reason).",
                      parameters: [query("name", string, "The new gallery's name (else the archive's).")],
                      body: .zip, answers: [201: .json("GalleryInfo")], refusals: [422], links: galleryLinks),
            Operation(method: "GET", path: gallery(), tag: "galleries", summary: "The gallery's snapshot: sections and items in order",
                      description: "Up to 100,000 items; a bigger gallery is 422 naming its columns route.",
                      answers: [200: .json("Snapshot")], refusals: [422]),
            Operation(method: "GET", path: gallery("/columns"), tag: "galleries", summary: "The snapshot as parallel columns (the page's first load)",
                      description: "format=binary: the GCB2 layout of docs/API.md. ETag per version and name; If-None-Match gives 304; zstd or gzip (Content-Encoding) when accepted and cached.",
                      parameters: [query("format", .object(["type": .string("string"), "enum": .array([.string("json"), .string("binary")])])), ifNoneMatch],
                      answers: [200: .jsonOrBinary("Columns", "application/octet-stream"), 304: .none], refusals: [400]),
            Operation(method: "GET", path: gallery("/changes"), tag: "galleries", summary: "Catch-up: what changed since a version",
                      parameters: [query("since", version, required: true)], answers: [200: .json("ChangesOrSnapshot")], refusals: [400, 422]),
            Operation(method: "GET", path: gallery("/events"), tag: "galleries", summary: "The live stream (server-sent events: snapshot or reload, then changes; revoked, deleted)",
                      description: "Never ends by itself while the gallery exists and the caller may see it (a heartbeat every 15 s).",
                      parameters: [query("since", version), param("Last-Event-ID", in: "header", string, "Counts as since (an EventSource reconnecting).")],
                      answers: [200: .text("text/event-stream", "Server-sent events")], refusals: [400, 422]),
            Operation(method: "PATCH", path: gallery(), tag: "galleries", summary: "Rename the gallery (a new version, streamed)",
                      body: .json("Name"), answers: [200: .json("GalleryInfo")], refusals: [422]),
            Operation(method: "DELETE", path: gallery(), tag: "galleries", summary: "Delete the gallery (open live streams get event: deleted)", answers: [204: .none]),
            Operation(method: "POST", path: gallery("/duplicate"), tag: "galleries", summary: "A copy of the gallery owned by the caller (live items, not the trash)",
                      body: .json("OptionalName", required: false), answers: [201: .json("GalleryInfo")], refusals: [422]),
            Operation(method: "GET", path: gallery("/export"), tag: "galleries", summary: "The gallery as an archive: manifest.json and images/<sha256>",
                      answers: [200: .binary(["application/zip"], "gallery-archive/1")]),
            Operation(method: "GET", path: gallery("/download"), tag: "galleries", summary: "The ready originals in the arranged order (0001-Title.ext)",
                      answers: [200: .binary(["application/zip"], "A zip of originals")]),
            Operation(method: "GET", path: gallery("/trash"), tag: "galleries", summary: "The trashed items, newest first", answers: [200: .jsonArray("Item")]),
            Operation(method: "POST", path: gallery("/batch"), tag: "galleries", summary: "Arrangement operations, all or none: one new version",
                      description: "409 when baseVersion is stale (with what changed since); 413 over the batch limit, with maxItems (--max-batch-items, 1,000; fewer past 500,000 items in the gallery; a section deleted names its live items), or holding more operations than that (with maxOperations): send it in parts; 422 when impossible.",
                      body: .json("Batch"), answers: [200: .json("BatchResult")], refusals: [409, 422]),
            Operation(method: "GET", path: gallery("/sections/{section}/order"), tag: "galleries", summary: "A section's items sorted (nothing changes; commit it as a move)",
                      parameters: [param("section", in: "path", id),
                                   query("by", .object(["type": .string("string"), "enum": .array([.string("captured"), .string("name")])]), required: true)],
                      answers: [200: .json("SectionOrder")], refusals: [400]),
            Operation(method: "POST", path: gallery("/urls"), tag: "ingestion", summary: "Drop a URL: a pending item at once, fetched in the background",
                      body: .json("URLDrop"), answers: [202: .json("Created")], refusals: [422, 503]),
            Operation(method: "POST", path: gallery("/uploads"), tag: "ingestion", summary: "Upload files: each a pending item as soon as its part is complete",
                      description: "Destination: section (with index), before or after: one place; default the end of the last section.",
                      parameters: [query("section", id, "A section of the gallery (alone: its end)."),
                                   query("index", .object(["type": .string("integer"), "minimum": .number(0)]), "With section: the index there."),
                                   query("before", id, "Before this item."), query("after", id, "After this item.")],
                      body: .multipart, answers: [201: .json("Created")], refusals: [422, 503, 507]),
            Operation(method: "GET", path: "/api/items/{item}", tag: "galleries", summary: "One item (trashed too)", answers: [200: .json("Item")]),
            Operation(method: "GET", path: "/api/items/{item}/metadata", tag: "galleries", summary: "The photo's size, EXIF and location",
                      answers: [200: .json("ItemMetadata")]),
            Operation(method: "GET", path: "/api/items/{item}/image/{name}", tag: "images", summary: "An item's image by item (immutable with its current content version)",
                      parameters: [query("v", .object(["type": .string("integer"), "minimum": .number(0)]), "The item's content version."), ifNoneMatch],
                      answers: [200: binaryImage, 304: .none], refusals: [422]),
            Operation(method: "GET", path: "/api/images/{hash}/{name}", tag: "images", summary: "An image by content hash (immutable)",
                      parameters: [ifNoneMatch], answers: [200: binaryImage, 304: .none], refusals: [422]),

            // Sharing.
            Operation(method: "GET", path: gallery("/members"), tag: "sharing", summary: "The gallery's members and their roles", answers: [200: .jsonArray("Member")]),
            Operation(method: "PUT", path: gallery("/members/{user}"), tag: "sharing", summary: "Give an account a role (by id or name)",
                      parameters: [param("user", in: "path", string, "An account id or name (URL-encoded).")],
                      body: .json("RoleBody"), answers: [200: .jsonArray("Member")], refusals: [422]),
            Operation(method: "DELETE", path: gallery("/members/{user}"), tag: "sharing", summary: "Take an account's role away",
                      parameters: [param("user", in: "path", string, "An account id or name (URL-encoded).")], answers: [204: .none], refusals: [422]),
            Operation(method: "GET", path: gallery("/links"), tag: "sharing", summary: "The gallery's share links", answers: [200: .jsonArray("ShareLink")]),
            Operation(method: "POST", path: gallery("/links"), tag: "sharing", summary: "A new share link (token and url shown once)",
                      body: .json("NewLink"), answers: [201: .json("CreatedLink")], refusals: [422],
                      links: ["revoke": .object(["operationId": .string("delete_api_galleries_gallery_links_link"),
                                                 "parameters": .object(["gallery": .string("$response.body#/gallery"), "link": .string("$response.body#/id")])])]),
            Operation(method: "DELETE", path: gallery("/links/{link}"), tag: "sharing", summary: "Revoke a share link (its visitors' streams end)",
                      answers: [204: .none]),
            Operation(method: "POST", path: "/api/links/open", tag: "sharing", summary: "A share link's visitor: a session bound to the link",
                      body: .json("OpenLink"), answers: [200: .json("OpenedLink")], refusals: [401, 404, 410, 429]),
            Operation(method: "GET", path: "/api/links/uploads", tag: "sharing", summary: "The items an uploader link added (its visitors see nothing else)",
                      answers: [200: .jsonArray("Item")]),
        ]
    }()

    // MARK: Assembly

    static func document() throws -> JSONValue {
        let components = try JSONDecoder().decode(JSONValue.self, from: Data(OpenAPISchemas.json.utf8))
        var paths: [String: [String: JSONValue]] = [:]
        for op in operations {
            paths[op.path, default: [:]][op.method.lowercased()] = try operation(op)
        }
        return .object([
            "openapi": .string("3.1.0"),
            "info": .object([
                "title": .string("Drag Gallery API"),
                "version": .string("1"),
                "description": .string("The gallery server's HTTP API. Behaviour and rules (batches, catch-up, live stream, ingestion, sharing) are in docs/API.md; the shapes are here. Errors are JSON {\"error\": {\"status\", \"message\"}}. A Host the server is not known by is 421 on every route."),
            ]),
            "jsonSchemaDialect": .string("https://spec.openapis.org/oas/3.1/dialect/base"),
            "tags": .array(["page", "operations", "accounts", "galleries", "ingestion", "images", "sharing"].map { .object(["name": .string($0)]) }),
            "paths": .object(paths.mapValues { .object($0) }),
            "components": components,
        ])
    }

    static func operationId(_ method: String, _ path: String) -> String {
        let words = path.split(whereSeparator: { "/{}.-".contains($0) }).map(String.init)
        return ([method.lowercased()] + words).joined(separator: "_")
    }

    static func operation(_ op: Operation) throws -> JSONValue {
        guard let rule = AccessRules.rule(method: op.method, path: op.path) else {
            throw APIError(.internalServerError, "no access rule for \(op.method) \(op.path)")
        }
        var out: [String: JSONValue] = [
            "operationId": .string(operationId(op.method, op.path)),
            "summary": .string(op.summary),
            "tags": .array([.string(op.tag)]),
            "x-access-rule": .string(ruleName(rule)),
        ]
        if let d = op.description { out["description"] = .string(d) }

        // Path parameters from the template, unless the operation names them itself.
        var parameters = op.parameters
        let named = Set(op.parameters.compactMap { p -> String? in
            if case let .object(o) = p, case let .string(n)? = o["name"] { return n }
            return nil
        })
        for part in op.path.split(separator: "/") where part.hasPrefix("{") {
            let name = String(part.dropFirst().dropLast())
            if !named.contains(name) { parameters.append(param(name, in: "path", pathSchemas[name] ?? id)) }
        }
        if !parameters.isEmpty { out["parameters"] = .array(parameters) }

        switch op.body {
        case let .json(ref, required)?:
            out["requestBody"] = .object(["required": .bool(required), "content": .object(["application/json": .object(["schema": schema(ref)])])])
        case .multipart?:
            out["requestBody"] = .object(["required": .bool(true), "content": .object(["multipart/form-data": .object([
                "schema": .object(["type": .string("object"), "required": .array([.string("files")]), "properties": .object([
                    "files": .object(["type": .string("array"), "minItems": .number(1), "items": .object(["type": .string("string"), "format": .string("binary")]),
                                      "description": .string("One or more file parts (filename= set); other fields are ignored.")]),
                ])]),
                "encoding": .object(["files": .object(["contentType": .string("image/png, image/jpeg, image/gif, image/webp, application/octet-stream")])]),
            ])])])
        case .zip?:
            out["requestBody"] = .object(["required": .bool(true), "content": .object(["application/zip": .object([
                "schema": .object(["type": .string("string"), "contentMediaType": .string("application/zip")]),
            ])])])
        case nil: break
        }

        var responses: [String: JSONValue] = [:]
        for (status, answer) in op.answers {
            var r: [String: JSONValue] = ["description": .string(successText[status] ?? "Success")]
            switch answer {
            case let .json(ref):
                r["content"] = .object(["application/json": .object(["schema": ref.isEmpty ? .object(["type": .string("object")]) : schema(ref)])])
            case let .jsonOrBinary(ref, binary):
                r["content"] = .object(["application/json": .object(["schema": schema(ref)]),
                                        binary: .object(["schema": .object(["type": .string("string"), "contentMediaType": .string(binary)])])])
            case let .jsonArray(ref):
                r["content"] = .object(["application/json": .object(["schema": .object(["type": .string("array"), "items": schema(ref)])])])
            case .none: break
            case let .text(type, description):
                r["description"] = .string(description)
                r["content"] = .object([type: .object(["schema": .object(["type": .string("string")])])])
            case let .binary(types, description):
                r["description"] = .string(description)
                r["content"] = .object(Dictionary(uniqueKeysWithValues: types.map {
                    ($0, JSONValue.object(["schema": .object(["type": .string("string"), "contentMediaType": .string($0)])]))
                }))
            }
            if status == 201 || status == 200, !op.links.isEmpty { r["links"] = .object(op.links) }
            // Revalidated answers name their version: ETag on the answer and on its 304.
            if (status == 200 || status == 304), op.parameters.contains(ifNoneMatch) {
                r["headers"] = .object(["ETag": .object(["required": .bool(true), "schema": .object(["type": .string("string"), "pattern": .string("^\"[^\"]+\"$")]),
                                                         "description": .string("Strong, quoted; send it back in If-None-Match.")])])
            }
            responses[String(status)] = .object(r)
        }
        for status in refusals(op, rule) {
            responses[String(status)] = .object([
                "description": .string(refusalText[status] ?? "Refused"),
                "content": .object(["application/json": .object(["schema": schema("Error")])]),
            ])
        }
        out["responses"] = .object(responses)
        out["security"] = security(rule)
        return .object(out)
    }

    static let successText: [Int: String] = [200: "OK", 201: "Created", 202: "Accepted: the rest happens in the background", 204: "Done, no body",
                                             304: "Not modified: the ETag sent is current"]

    static let refusalText: [Int: String] = [
        400: "Malformed: JSON, an id that is not an integer, a query parameter",
        401: "Not signed in, wrong credentials, or an unknown or revoked API token",
        403: "Not allowed: the caller's role, a read-only token, a share link, or a cross-site write",
        404: "No such gallery, item, section, image or user (or one the caller may not see)",
        409: "In conflict with the current state",
        410: "A share link that was revoked or has expired",
        413: "Body over the limit",
        415: "A body that is not application/json, multipart/form-data or application/zip",
        421: "A Host this server is not known by (DNS rebinding)",
        422: "Well-formed but impossible",
        429: "Too many failed attempts (retryAfter seconds)",
        503: "Unavailable, try again later: the database cannot be reached, or the images folder cannot take a file (/readyz names what fails)",
        507: "No room to store it: the images folder or the database's disk is full; nothing was stored",
    ]

    static func refusals(_ op: Operation, _ rule: AccessRule) -> Set<Int> {
        var s = Set([421, 401]).union(op.refusals)
        // The database away (PostgreSQL down): any route that looks up its caller (a cookie or a
        // token may come with any request) or reads rows answers 503; /healthz looks up nothing.
        if op.path != "/healthz" { s.insert(503) }
        let safe = op.method == "GET" || op.method == "HEAD"
        // A write meets a full disk under the database (or the images folder): 507, nothing stored.
        if !safe { s.formUnion([403, 415, 507]) }
        if rule != .anyone { s.formUnion([401, 403]) }
        switch rule {
        case .gallery, .item: s.formUnion([400, 404])
        case .image: s.formUnion([400, 403, 404])
        default: break
        }
        if op.path.contains("{user}") || op.path.contains("{token}") && op.path.hasPrefix("/api") || op.path.contains("{link}") || op.path.contains("{section}") {
            s.formUnion([400, 404])
        }
        // 422 too: on PostgreSQL a text with U+0000 in any body is refused as impossible to store.
        if op.body != nil { s.formUnion([400, 413, 422]) }
        return s
    }

    static func security(_ rule: AccessRule) -> JSONValue {
        let session: JSONValue = .object(["session": .array([])]), token: JSONValue = .object(["token": .array([])])
        switch rule {
        case .anyone: return .array([.object([:]), session, token])
        case .accountSession, .adminSession, .uploaderLink: return .array([session])
        default: return .array([session, token])
        }
    }

    static func ruleName(_ rule: AccessRule) -> String {
        switch rule {
        case .anyone: return "anyone"
        case .visitor: return "visitor (an account or a share link's visitor)"
        case .account: return "account (session or token)"
        case .accountSession: return "account in a browser session (no token)"
        case .admin: return "admin"
        case .adminSession: return "admin in a browser session (no token)"
        case let .gallery(action): return "gallery: \(action.rawValue)"
        case let .item(action): return "the item's gallery: \(action.rawValue)"
        case .image: return "a gallery holding the image"
        case .uploaderLink: return "an uploader link's visitor"
        }
    }
}

struct OpenAPIRoutes {
    func register(_ api: RouterGroup<GalleryRequestContext>) {
        api.get("openapi.json") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-cache"],
                     body: .init(byteBuffer: ByteBuffer(bytes: OpenAPIDocument.json)))
        }
    }
}
