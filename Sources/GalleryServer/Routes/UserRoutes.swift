import Foundation
import Hummingbird
import GalleryCore
import GalleryStore

/// Accounts (admin) and one's own password; API tokens for scripts (B8).
struct UserRoutes {
    let server: GalleryServer
    var access: AccessControl { server.access }
    var store: GalleryStore { server.store }

    struct NewUser: Decodable { var name: String; var password: String; var admin: Bool? }
    struct PasswordChange: Decodable { var password: String; var current: String? }
    struct NewToken: Decodable { var name: String; var scope: APIToken.Scope }
    struct CreatedToken: Encodable { var id: Int64; var name: String; var scope: APIToken.Scope; var createdAt: Double; var token: String }

    func register(_ api: RouterGroup<GalleryRequestContext>) {
        api.get("users") { _, _ in try JSONIO.response(try await store.accounts()) }
        api.post("users") { request, _ in
            let body = try await JSONIO.decode(NewUser.self, from: request, limit: 16 << 10)
            try SessionRoutes.checkPassword(body.password)
            let account = try await store.createAccount(name: body.name, passwordHash: try await Secrets.hashPassword(body.password), admin: body.admin ?? false)
            return try JSONIO.response(account, status: .created)
        }
        api.patch("users/:user") { request, context in
            let id = try context.id("user")
            let me = try context.caller.account!
            let body = try await JSONIO.decode(PasswordChange.self, from: request, limit: 16 << 10)
            if id == me.id {
                // One's own password: the current one first, so a borrowed session cannot take over the account.
                try await access.checkCurrentPassword(body.current, of: me, session: context.identity?.sessionHash, client: context.clientAddress,
                                                      refusal: APIError(.forbidden, "the current password is wrong"))
            } else if !me.admin {
                throw APIError(.forbidden, "only an admin may change another user's password")
            }
            guard let account = try await store.account(id) else { throw APIError(.notFound, "unknown user \(id)") }
            try SessionRoutes.checkPassword(body.password)
            try await store.setPassword(account: id, passwordHash: try await Secrets.hashPassword(body.password))
            // A new password ends the account's other sessions.
            try await store.deleteSessions(account: id)
            access.accessChanged()
            if id == me.id {
                let cookie = try await access.startSession(.account(id))
                return try JSONIO.response(account, headers: [.setCookie: access.cookie(cookie)])
            }
            return try JSONIO.response(account)
        }
        api.delete("users/:user") { _, context in
            let id = try context.id("user")
            guard try await store.account(id) != nil else { throw APIError(.notFound, "unknown user \(id)") }
            // Not one's own: an admin (or a script with an admin's token) cannot lock itself out; another admin or `gallery user remove` can.
            if id == (try context.caller.account?.id) {
                throw APIError(.unprocessableContent, "you cannot remove your own account: another admin can, or `gallery user remove` beside the server")
            }
            try await store.deleteAccount(id)
            access.accessChanged()
            return Response(status: .noContent)
        }

        api.get("tokens") { _, context in try JSONIO.response(try await store.tokens(account: try context.caller.account!.id)) }
        api.post("tokens") { request, context in
            let me = try context.caller.account!
            let body = try await JSONIO.decode(NewToken.self, from: request, limit: 16 << 10)
            let secret = "gat_" + Secrets.token()
            let t = try await store.createToken(account: me.id, name: body.name, scope: body.scope, tokenHash: Secrets.digest(secret))
            return try JSONIO.response(CreatedToken(id: t.id, name: t.name, scope: t.scope, createdAt: t.createdAt, token: secret), status: .created)
        }
        api.delete("tokens/:token") { _, context in
            let id = try context.id("token")
            guard try await store.deleteToken(id, account: try context.caller.account!.id) else { throw APIError(.notFound, "unknown token \(id)") }
            access.accessChanged()
            return Response(status: .noContent)
        }
    }
}
