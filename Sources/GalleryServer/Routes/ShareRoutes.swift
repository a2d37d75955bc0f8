import Foundation
import Hummingbird
import GalleryCore
import GalleryStore

/// Members and share links of a gallery (owner), and a link's visitor opening it (B8).
struct ShareRoutes {
    let server: GalleryServer
    var access: AccessControl { server.access }
    var store: GalleryStore { server.store }

    struct RoleBody: Decodable { var role: GalleryRole }
    struct NewLink: Decodable {
        var role: LinkRole
        var password: String?
        /// Absent: 30 days. null: never. A number: that many days.
        var expiresInDays: Double?
        var allowDownload: Bool?
        var showMetadata: Bool?

        enum CodingKeys: String, CodingKey { case role, password, expiresInDays, allowDownload, showMetadata }
        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            role = try c.decode(LinkRole.self, forKey: .role)
            password = try c.decodeIfPresent(String.self, forKey: .password)
            allowDownload = try c.decodeIfPresent(Bool.self, forKey: .allowDownload)
            showMetadata = try c.decodeIfPresent(Bool.self, forKey: .showMetadata)
            if !c.contains(.expiresInDays) { expiresInDays = 30 } else { expiresInDays = try c.decodeIfPresent(Double.self, forKey: .expiresInDays) }
        }
    }
    struct CreatedLink: Encodable {
        var link: ShareLink
        var token: String
        var url: String
        func encode(to encoder: Encoder) throws {
            try link.encode(to: encoder)
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(token, forKey: .token)
            try c.encode(url, forKey: .url)
        }
        enum Keys: String, CodingKey { case token, url }
    }
    struct OpenBody: Decodable { var token: String; var password: String? }
    struct Opened: Encodable {
        var gallery: Int64, galleryName: String, role: LinkRole, allowDownload: Bool, showMetadata: Bool
    }

    /// The `:user` of a member route: an account id, or a name (an owner who is no admin
    /// cannot list users, so the Share dialog adds people by name). Names are never all digits.
    func member(_ context: GalleryRequestContext) async throws -> Int64 {
        let raw = context.parameters.get("user") ?? "", text = raw.removingPercentEncoding ?? raw
        if let id = Int64(text) {
            guard try await store.account(id) != nil else { throw APIError(.notFound, "unknown user \(id)") }
            return id
        }
        guard let account = try await store.account(named: text) else { throw APIError(.notFound, "unknown user \"\(text)\"") }
        return account.id
    }

    func register(_ api: RouterGroup<GalleryRequestContext>) {
        api.get("galleries/:gallery/members") { _, context in try JSONIO.response(try await store.members(gallery: try context.id("gallery"))) }
        api.put("galleries/:gallery/members/:user") { request, context in
            let gallery = try context.id("gallery"), user = try await member(context)
            let body = try await JSONIO.decode(RoleBody.self, from: request, limit: 4 << 10)
            try await store.setMember(gallery: gallery, account: user, role: body.role)
            access.accessChanged()
            return try JSONIO.response(try await store.members(gallery: gallery))
        }
        api.delete("galleries/:gallery/members/:user") { _, context in
            let gallery = try context.id("gallery"), user = try await member(context)
            guard try await store.role(account: user, gallery: gallery) != nil else { throw APIError(.notFound, "\(context.parameters.get("user") ?? "") is not a member") }
            try await store.setMember(gallery: gallery, account: user, role: nil)
            access.accessChanged()
            return Response(status: .noContent)
        }

        api.get("galleries/:gallery/links") { _, context in try JSONIO.response(try await store.links(gallery: try context.id("gallery"))) }
        api.post("galleries/:gallery/links") { request, context in
            let gallery = try context.id("gallery")
            let body = try await JSONIO.decode(NewLink.self, from: request, limit: 16 << 10)
            let options = LinkOptions(allowDownload: body.allowDownload ?? false, showMetadata: body.showMetadata ?? false)
            if options.allowDownload && !options.showMetadata {
                throw APIError(.unprocessableContent, "a link that hides metadata cannot allow downloads: originals carry their EXIF and GPS")
            }
            var passwordHash: String?
            if let p = body.password, !p.isEmpty {
                if let problem = Secrets.passwordProblem(p) { throw APIError(.unprocessableContent, problem) }
                passwordHash = try await Secrets.hashPassword(p)
            }
            let days = body.expiresInDays
            if let d = days, !(d > 0 && d <= 3650) { throw APIError(.unprocessableContent, "expiresInDays must be between 0 and 3650, or null for never") }
            let token = Secrets.token()
            let link = try await store.createLink(gallery: gallery, createdBy: try context.caller.account?.id, role: body.role, tokenHash: Secrets.digest(token),
                                                  passwordHash: passwordHash, expiresAt: days.map { GalleryStoreClock.now() + $0 * 86400 }, options: options)
            return try JSONIO.response(CreatedLink(link: link, token: token, url: "/s/\(token)"), status: .created)
        }
        api.delete("galleries/:gallery/links/:link") { _, context in
            let gallery = try context.id("gallery"), link = try context.id("link")
            guard try await store.revokeLink(link, gallery: gallery) else { throw APIError(.notFound, "unknown link \(link)") }
            access.accessChanged()
            return Response(status: .noContent)
        }

        api.post("links/open") { request, context in
            let body = try await JSONIO.decode(OpenBody.self, from: request, limit: 16 << 10)
            let ipKey = "ip:" + context.clientAddress
            try access.refuseWhileThrottled([ipKey])
            guard let (link, passwordHash) = try await store.link(tokenHash: Secrets.digest(body.token)) else {
                access.throttle.failed([ipKey])
                throw APIError(.notFound, "this share link does not exist")
            }
            guard !link.revoked else { throw APIError(.gone, "this share link was revoked") }
            guard link.isUsable(at: GalleryStoreClock.now()) else { throw APIError(.gone, "this share link has expired") }
            let keys = ["link:\(link.id)", ipKey]
            if let passwordHash {
                try access.refuseWhileThrottled(keys)
                guard let p = body.password, !p.isEmpty else {
                    throw APIError(.unauthorized, "this link needs a password", extra: ["passwordRequired": .bool(true)])
                }
                guard try await Secrets.verifyPassword(p, hash: passwordHash) else {
                    access.throttle.failed(keys)
                    throw APIError(.unauthorized, "wrong password", extra: ["passwordRequired": .bool(true)])
                }
                access.throttle.succeeded(keys[0])
            }
            try await store.touchLink(link.id, at: GalleryStoreClock.now())
            let session = try await access.startSession(.link(link.id))
            let g = try await store.gallery(link.gallery)
            return try JSONIO.response(Opened(gallery: g.id, galleryName: g.name, role: link.role, allowDownload: link.options.allowsDownload,
                                              showMetadata: link.showMetadata),
                                       headers: [.setCookie: access.cookie(session), .cacheControl: "no-store"])
        }
        api.get("links/uploads") { _, context in
            let link = try context.caller.link!
            var items: [ItemJSON] = []
            for id in try await store.linkItemIds(link: link.id) {
                if let item = try? await store.item(id) { items.append(item) }
            }
            return try JSONIO.response(items)
        }
    }

}
