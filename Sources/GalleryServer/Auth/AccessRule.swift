import GalleryCore

/// The authorization rule of one route. `AccessRules.table` holds one per registered route;
/// `AccessMiddleware` refuses a route without one (and a test enumerates the router against it).
public enum AccessRule: Sendable, Equatable {
    /// Anyone, signed in or not: the page, sign-in, the session's own state, opening a link.
    case anyone
    /// A signed-in account or a share link's visitor (what they see is filtered by the handler).
    case visitor
    /// A signed-in account (session or API token).
    case account
    /// A signed-in account in a browser session: managing credentials (tokens, second factor)
    /// is not something a token may do, so a leaked read token cannot mint a write token.
    case accountSession
    /// An admin account (reading the users, the metrics).
    case admin
    /// An admin account in a browser session: making and removing accounts is managing
    /// credentials too, so an admin's API token cannot make an admin of its own and sign in as
    /// it (the attacker review of session 27).
    case adminSession
    /// The action on the gallery named by the route's `:gallery`.
    case gallery(GalleryAction)
    /// The action on the gallery holding the route's `:item`.
    case item(GalleryAction)
    /// Someone who may see a gallery holding the route's `:hash`.
    case image
    /// The visitor of an uploader link.
    case uploaderLink
}

/// Every route's rule, in one table a reviewer reads top to bottom. Keys are Hummingbird's
/// route descriptions: method and path with `{parameter}` captures.
public enum AccessRules {
    public static let table: [String: AccessRule] = [
        // The page and its engine.
        "GET /engine.wasm": .anyone,
        "GET /js/protocol.js": .anyone,
        "GET /js/page.js": .anyone,
        "GET /": .anyone,
        "GET /index.html": .anyone,
        "GET /setup": .anyone,
        "GET /s/{token}": .anyone,
        // Health checks for load balancers and orchestrators (nothing about galleries).
        "GET /healthz": .anyone,
        "GET /readyz": .anyone,
        // Prometheus scrapes with an admin's API token (request counts are nobody else's business).
        "GET /metrics": .admin,
        // The API's contract (OpenAPI 3.1): it describes no data.
        "GET /api/openapi.json": .anyone,
        // Sessions and accounts.
        "GET /api/session": .anyone,
        "POST /api/setup": .anyone,
        "POST /api/login": .anyone,
        "POST /api/logout": .anyone,
        "POST /api/logout-everywhere": .accountSession,
        "GET /api/users": .admin,
        "POST /api/users": .adminSession,
        "PATCH /api/users/{user}": .accountSession, // self with the current password, or an admin
        "DELETE /api/users/{user}": .adminSession,
        "POST /api/me/totp": .accountSession,
        "POST /api/me/totp/confirm": .accountSession,
        "DELETE /api/me/totp": .accountSession,
        "GET /api/tokens": .accountSession,
        "POST /api/tokens": .accountSession,
        "DELETE /api/tokens/{token}": .accountSession,
        // Galleries as documents.
        "GET /api/galleries": .visitor,
        // The caller's list, live: the handler sends only what the list route would (same rule).
        "GET /api/galleries/events": .visitor,
        "POST /api/galleries": .account,
        "POST /api/galleries/import": .account,
        "GET /api/galleries/{gallery}": .gallery(.view),
        "GET /api/galleries/{gallery}/columns": .gallery(.view),
        "GET /api/galleries/{gallery}/changes": .gallery(.view),
        "GET /api/galleries/{gallery}/events": .gallery(.view),
        "PATCH /api/galleries/{gallery}": .gallery(.rename),
        "DELETE /api/galleries/{gallery}": .gallery(.delete),
        "POST /api/galleries/{gallery}/duplicate": .gallery(.duplicate),
        "GET /api/galleries/{gallery}/export": .gallery(.duplicate),
        "GET /api/galleries/{gallery}/download": .gallery(.download),
        "GET /api/galleries/{gallery}/trash": .gallery(.trash),
        "POST /api/galleries/{gallery}/batch": .gallery(.arrange),
        // A section's items sorted (the page commits the order as a batch); by capture date also needs viewMetadata.
        "GET /api/galleries/{gallery}/sections/{section}/order": .gallery(.arrange),
        "POST /api/galleries/{gallery}/urls": .gallery(.add),
        "POST /api/galleries/{gallery}/uploads": .gallery(.add),
        "GET /api/items/{item}": .item(.view),
        "GET /api/items/{item}/metadata": .item(.view), // EXIF and location filtered for links (showMetadata)
        "GET /api/items/{item}/image/{name}": .item(.view), // original refused to links without downloads
        "GET /api/images/{hash}/{name}": .image,
        // Sharing.
        "GET /api/galleries/{gallery}/members": .gallery(.share),
        "PUT /api/galleries/{gallery}/members/{user}": .gallery(.share),
        "DELETE /api/galleries/{gallery}/members/{user}": .gallery(.share),
        "GET /api/galleries/{gallery}/links": .gallery(.share),
        "POST /api/galleries/{gallery}/links": .gallery(.share),
        "DELETE /api/galleries/{gallery}/links/{link}": .gallery(.share),
        "POST /api/links/open": .anyone,
        "GET /api/links/uploads": .uploaderLink,
    ]

    /// A route's rule; HEAD (which the router answers wherever GET is) has GET's.
    public static func rule(method: String, path: String) -> AccessRule? {
        table["\(method) \(path)"] ?? (method == "HEAD" ? table["GET \(path)"] : nil)
    }

    /// The methods of the routes whose template matches a request path (`/api/galleries/7` matches
    /// `/api/galleries/{gallery}`); empty when none does. A request whose path is a route's with a
    /// method no route has is answered 405 with these in `Allow`.
    /// As the router does, a literal segment wins over a parameter: `/api/galleries/import` is
    /// its own resource (POST), not a gallery named "import".
    public static func methods(forPath path: String) -> Set<String> {
        let parts = path.split(separator: "/")
        var best: [Bool] = [], found: Set<String> = []
        for (method, template) in templates where template.count == parts.count {
            guard zip(template, parts).allSatisfy({ t, p in t.hasPrefix("{") || t == p }) else { continue }
            let literal = template.map { !$0.hasPrefix("{") }
            if found.isEmpty || moreLiteral(literal, than: best) {
                best = literal; found = [method]
            } else if literal == best {
                found.insert(method)
            }
        }
        return found
    }

    /// Whether `a` has a literal segment at the first position where the two differ.
    private static func moreLiteral(_ a: [Bool], than b: [Bool]) -> Bool {
        for (x, y) in zip(a, b) where x != y { return x }
        return false
    }

    private static let templates: [(method: String, segments: [Substring])] = table.keys.map { key in
        let parts = key.split(separator: " ", maxSplits: 1)
        return (String(parts[0]), parts[1].split(separator: "/"))
    }
}
