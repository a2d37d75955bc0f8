import Foundation
import Testing
import GalleryCore
@testable import GalleryStore
import StoreTestSupport

/// The store's access rows — accounts, members, sessions, API tokens, share links — on both
/// backends, as the rest of the store suite (issue 14, point 1: "accounts/sessions/links where
/// they exist"). The authorization matrix and the session tests drive them through the server on
/// SQLite; on PostgreSQL they were reached only through the binaries (MigrateTests, the fuzzer).
/// What differs between the backends is checked here: names unique whatever their case (a
/// `lower(name)` index against `COLLATE NOCASE`), the foreign keys' cascades when an account
/// goes, booleans as 0/1, ids from `INSERT … RETURNING`, and the rows after a reopen.
@Suite struct AccountStoreTests {
    @Test(arguments: Backend.tested) func accountsMembersSessionsTokensAndLinksBehaveTheSame(_ backend: Backend) async throws {
        let (store, place) = try await makeStore(backend)
        let ana = try await store.createAccount(name: "Ana", passwordHash: "hash-a", admin: true)
        let bob = try await store.createAccount(name: "bob", passwordHash: "hash-b", admin: false)
        await #expect(throws: (any Error).self, "a second Ana, whatever the case") {
            _ = try await store.createAccount(name: "ANA", passwordHash: "hash-c", admin: false)
        }
        await #expect(throws: (any Error).self, "only the first account") {
            _ = try await store.createAccount(name: "carol", passwordHash: "hash-c", admin: true, onlyIfFirst: true)
        }
        #expect(try await store.account(named: "aNA")?.id == ana.id)
        #expect(try await store.secrets(named: "BOB")?.passwordHash == "hash-b")
        #expect(try await store.accountCount() == 2)
        #expect(try await store.accounts().map(\.admin) == [true, false])

        let g = try await store.createGallery(name: "G", owner: bob.id)
        try await store.setMember(gallery: g.id, account: ana.id, role: .viewer)
        try await store.setMember(gallery: g.id, account: ana.id, role: .editor) // ON CONFLICT … DO UPDATE
        #expect(try await store.role(account: ana.id, gallery: g.id) == .editor)
        #expect(try await store.roles(account: bob.id) == [g.id: .owner])

        try await store.createSession(idHash: "session-b", owner: .account(bob.id))
        let token = try await store.createToken(account: bob.id, name: "ci", scope: .write, tokenHash: "token-b")
        #expect(try await store.token(hash: "token-b").map { [$0.token.id, $0.account] } == [token.id, bob.id])
        let link = try await store.createLink(gallery: g.id, createdBy: bob.id, role: .uploader, tokenHash: "link-g", passwordHash: "pw",
                                              expiresAt: 4_000_000_000, options: LinkOptions(allowDownload: false, showMetadata: true))
        try await store.createSession(idHash: "session-link", owner: .link(link.id))
        #expect(link.hasPassword && !link.allowDownload && link.showMetadata && link.role == .uploader && !link.revoked)

        // The same rows after a reopen (another process on the same database).
        try store.close()
        let again = try await place.open()
        #expect(try await again.session(idHash: "session-b")?.owner == .account(bob.id))
        #expect(try await again.session(idHash: "session-link")?.owner == .link(link.id))
        #expect(try await again.link(tokenHash: "link-g").map { [$0.link.id] } == [link.id])
        #expect(try await again.link(tokenHash: "link-g")?.passwordHash == "pw")
        #expect(try await again.links(gallery: g.id) == [link])

        // Revoked and deleted.
        #expect(try await again.revokeLink(link.id, gallery: g.id))
        #expect(try await again.link(link.id)?.revoked == true)
        #expect(try await again.deleteToken(token.id, account: ana.id) == false, "another account's token")
        #expect(try await again.deleteToken(token.id, account: bob.id))
        #expect(try await again.token(hash: "token-b") == nil)

        // An account removed takes its sessions and memberships with it (foreign keys); the
        // gallery it alone owned goes to the remaining admin; the last admin stays.
        try await again.deleteAccount(bob.id)
        #expect(try await again.session(idHash: "session-b") == nil)
        #expect(try await again.members(gallery: g.id).map(\.user.id) == [ana.id])
        #expect(try await again.role(account: ana.id, gallery: g.id) == .owner)
        await #expect(throws: StoreError.self) { try await again.deleteAccount(ana.id) }
        #expect(try await again.accountCount() == 1)
        try again.close()
    }
}
