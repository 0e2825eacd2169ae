import BookmarkHost
import BookmarkIndex
import BookmarkSync
import Foundation
import PixivAPI
import Testing

/// The README's "Serving many accounts" wiring and the DocC article's, kept compiling: the host
/// and its accounts are made as shown; nothing is fetched (no request goes out until a sync).
@Suite struct HostDocumentationExampleTests {
    struct LinkedUser {
        var id: String
        var refreshToken: String
        var pixivUserID: Int
    }

    @Test func theServerWiringTakesTheAccountsOnWithoutARequest() async throws {
        let directory = try TemporaryDirectory()
        let indexes = directory.url
        let linkedUsers = [LinkedUser(id: "alice", refreshToken: "r1", pixivUserID: 11), LinkedUser(id: "bob", refreshToken: "r2", pixivUserID: 12)]

        let host = BookmarkHost(configuration: .init(maximumOpenStores: 100))
        for user in linkedUsers {   // your records: an ID, a refresh token, a Pixiv user ID
            try await host.add(HostedAccount(id: AccountID(user.id), directory: indexes.appending(path: user.id)) {
                let configuration = PixivClient.Configuration()
                let tokens = RefreshTokenProvider(
                    refreshToken: user.refreshToken, configuration: configuration, transport: URLSessionTransport()
                )
                return PixivBookmarkSource(client: PixivClient(configuration: configuration, tokens: tokens), userID: user.pixivUserID)
            })
        }
        #expect(await host.accountIDs == ["alice", "bob"])
        #expect(await host.openStoreCount == 0)
        // Queries open the store without a request: an empty index answers at once.
        let feed = try await host.withStore(AccountID("alice")) { store in
            await store.bookmarks(in: .public, matching: BookmarkFilter(allOf: ["original"]), limit: 30)
        }
        #expect(feed.isEmpty)
        let runner = Task { await host.run() }
        runner.cancel()
        await runner.value
        #expect(await host.openStoreCount == 0)
    }
}
