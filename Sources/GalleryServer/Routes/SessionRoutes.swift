import Foundation
import Hummingbird
import HTTPTypes
import HummingbirdOTP
import GalleryCore
import GalleryStore

/// Signing in and out, the first account, and the second factor (B8).
struct SessionRoutes {
    let server: GalleryServer
    var access: AccessControl { server.access }
    var store: GalleryStore { server.store }

    struct SessionAnswer: Encodable {
        struct LinkInfo: Encodable {
            var id: Int64, gallery: Int64, galleryName: String, role: LinkRole, allowDownload: Bool, showMetadata: Bool
        }
        var user: Account?
        var link: LinkInfo?
        var setup: Bool
    }
    struct UserAnswer: Encodable { var user: Account }
    struct Credentials: Decodable { var name: String; var password: String; var code: String? }
    struct SetupBody: Decodable { var token: String; var name: String; var password: String }
    struct CodeBody: Decodable { var code: String }
    struct PasswordBody: Decodable { var password: String }

    func register(_ api: RouterGroup<GalleryRequestContext>) {
        api.get("session") { _, context in
            var answer = SessionAnswer(user: context.identity?.account, link: nil, setup: try await store.accountCount() == 0)
            if let l = context.identity?.link {
                let g = try await store.gallery(l.gallery)
                answer.link = .init(id: l.id, gallery: l.gallery, galleryName: g.name, role: l.role,
                                    allowDownload: l.options.allowsDownload, showMetadata: l.showMetadata)
            }
            return try JSONIO.response(answer, headers: [.cacheControl: "no-store"])
        }
        api.post("setup") { request, context in
            let body = try await JSONIO.decode(SetupBody.self, from: request, limit: 16 << 10)
            guard try await store.accountCount() == 0 else {
                throw APIError(.forbidden, "the first account exists already: sign in instead")
            }
            try Self.checkPassword(body.password)
            let keys = ["setup", "ip:" + context.clientAddress]
            try access.refuseWhileThrottled(keys)
            guard try await access.spendSetupToken(body.token) else {
                access.throttle.failed(keys)
                throw APIError(.forbidden, "this setup link is not valid (used already, or from an earlier start)")
            }
            do {
                let account = try await store.createAccount(name: body.name, passwordHash: try await Secrets.hashPassword(body.password),
                                                            admin: true, onlyIfFirst: true)
                server.logger.notice("first account created", metadata: ["user": "\(account.name)"])
                return try await signedIn(account, status: .created)
            } catch {
                await access.restoreSetupToken(body.token)
                throw error
            }
        }
        api.post("login") { request, context in
            let body = try await JSONIO.decode(Credentials.self, from: request, limit: 16 << 10)
            let name = body.name.trimmingCharacters(in: .whitespacesAndNewlines)
            // A browser that signed in as this account before counts its failures on its own (DeviceCookies).
            let keys = access.devices.throttleKey(AccessMiddleware.cookie(request, DeviceCookies.name), signingInAs: body.name)
                .map { [$0, "ip:" + context.clientAddress] } ?? LoginThrottle.keys(name: body.name, client: context.clientAddress)
            try access.refuseWhileThrottled(keys)
            let secrets = try await store.secrets(named: name)
            // An unknown name costs a bcrypt verify too: the answer's time does not tell which part was wrong.
            let passwordOK = try await Secrets.verifyPassword(body.password, hash: secrets?.passwordHash ?? Secrets.decoyHash)
            guard let secrets, passwordOK else {
                access.throttle.failed(keys)
                throw APIError(.unauthorized, "wrong name or password")
            }
            if let secret = secrets.totpSecret {
                guard let code = body.code?.trimmingCharacters(in: .whitespaces), !code.isEmpty else {
                    throw APIError(.unauthorized, "enter the code from your authenticator app (or a recovery code)", extra: ["codeRequired": .bool(true)])
                }
                guard try await secondFactor(code, secret: secret, account: secrets.account.id) else {
                    access.throttle.failed(keys)
                    throw APIError(.unauthorized, "wrong name, password or code", extra: ["codeRequired": .bool(true)])
                }
            }
            access.throttle.succeeded(keys[0])
            return try await signedIn(secrets.account)
        }
        api.post("logout") { request, context in
            if let hash = context.identity?.sessionHash {
                try await store.deleteSession(idHash: hash)
                access.accessChanged()
            }
            return Response(status: .noContent, headers: [.setCookie: access.cookie(nil)])
        }
        api.post("logout-everywhere") { _, context in
            let account = try context.caller.account!
            try await store.deleteSessions(account: account.id)
            access.accessChanged()
            return Response(status: .noContent, headers: [.setCookie: access.cookie(nil)])
        }
        registerSecondFactor(api)
    }

    func registerSecondFactor(_ api: RouterGroup<GalleryRequestContext>) {
        api.post("me/totp") { request, context in
            let account = try context.caller.account!
            // The password first, as for turning it off: a borrowed session could otherwise turn
            // the second factor on (or replace it) and lock the owner out with the only recovery
            // codes (the attacker review of session 27).
            let body = try await JSONIO.decode(PasswordBody.self, from: request, limit: 4 << 10)
            try await access.checkCurrentPassword(body.password, of: account, session: context.identity?.sessionHash, client: context.clientAddress,
                                                  refusal: APIError(.forbidden, "wrong password"))
            let secret = Secrets.token(bytes: 20)
            try await store.setPendingTOTP(account: account.id, secret: secret)
            let uri = TOTP(secret: secret).createAuthenticatorURL(label: account.name, issuer: "Drag Gallery")
            let base32 = URLComponents(string: uri)?.queryItems?.first(where: { $0.name == "secret" })?.value ?? ""
            return try JSONIO.response(["secret": base32, "uri": uri])
        }
        api.post("me/totp/confirm") { request, context in
            let account = try context.caller.account!
            let body = try await JSONIO.decode(CodeBody.self, from: request, limit: 4 << 10)
            guard let pending = try await store.secrets(account.id)?.totpPending else {
                throw APIError(.conflict, "start with POST /api/me/totp: no second factor is being set up")
            }
            guard let step = Self.matchingStep(body.code, secret: pending, now: Date()) else {
                throw APIError(.unprocessableContent, "the code does not match: check the time of your device and try the next code")
            }
            let codes = (0..<10).map { _ in Self.recoveryCode() }
            try await store.confirmTOTP(account: account.id, step: step, recoveryCodeHashes: codes.map(Self.recoveryHash))
            access.accessChanged()
            return try JSONIO.response(["recoveryCodes": codes])
        }
        api.delete("me/totp") { request, context in
            let account = try context.caller.account!
            let body = try await JSONIO.decode(PasswordBody.self, from: request, limit: 4 << 10)
            try await access.checkCurrentPassword(body.password, of: account, session: context.identity?.sessionHash, client: context.clientAddress,
                                                  refusal: APIError(.forbidden, "wrong password"))
            try await store.disableTOTP(account: account.id)
            access.accessChanged()
            return Response(status: .noContent)
        }
    }

    /// A new session (a new id: no fixation) and its cookie.
    func signedIn(_ account: Account, status: HTTPResponse.Status = .ok) async throws -> Response {
        let id = try await access.startSession(.account(account.id))
        var headers: HTTPFields = [.setCookie: access.cookie(id), .cacheControl: "no-store"]
        headers.append(HTTPField(name: .setCookie, value: access.deviceCookie(access.devices.issue(for: account.name))))
        return try JSONIO.response(UserAnswer(user: account), status: status, headers: headers)
    }


    /// A TOTP code (this, the previous or the next 30-s step, each usable once) or an unused recovery code.
    func secondFactor(_ code: String, secret: String, account: Int64) async throws -> Bool {
        if let step = Self.matchingStep(code, secret: secret, now: Date()) {
            return try await store.useTOTPStep(account: account, step: step)
        }
        return try await store.useRecoveryCode(account: account, codeHash: Self.recoveryHash(code))
    }

    static func matchingStep(_ code: String, secret: String, now: Date) -> Int64? {
        let digits = code.filter(\.isNumber)
        guard digits.count == 6, let value = Int(digits) else { return nil }
        let totp = TOTP(secret: secret)
        let step = Int64(now.timeIntervalSince1970) / 30
        var found: Int64?
        for s in [step - 1, step, step + 1] {
            // Every candidate is computed: the time taken does not depend on which one matched.
            if totp.compute(date: Date(timeIntervalSince1970: Double(s * 30))) == value { found = s }
        }
        return found
    }

    /// Ten letters and digits in two groups ("k3j9x-72mqp"): 50 bits, single use.
    static func recoveryCode() -> String {
        let alphabet = Array("abcdefghijkmnpqrstuvwxyz23456789")
        var rng = SystemRandomNumberGenerator()
        let chars = (0..<10).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &rng)] }
        return String(chars[0..<5]) + "-" + String(chars[5...])
    }

    static func recoveryHash(_ code: String) -> String {
        Secrets.digest(code.lowercased().filter { $0.isLetter || $0.isNumber })
    }

    static func checkPassword(_ password: String) throws {
        if let problem = Secrets.passwordProblem(password) { throw APIError(.unprocessableContent, problem) }
    }
}
