import BookmarkIndex
import BookmarkIndexTesting
import PixivAPITesting
import BookmarkSyncTesting
import BookmarkSync
import Foundation
import PixivAPI
import Testing

/// The wiring shown in the README and the DocC article, kept compiling and working here.
@Suite struct DocumentationExampleTests {
    @Test func theProductionWiringBuildsWithoutARequest() async throws {
        let (refreshToken, userID) = ("refresh", 4242)
        let configuration = PixivClient.Configuration()
        let tokens = RefreshTokenProvider(
            refreshToken: refreshToken, configuration: configuration, transport: URLSessionTransport()
        )
        let client = PixivClient(configuration: configuration, tokens: tokens)
        let store = try await BookmarksIndexStore(storage: InMemoryStorage())
        let engine = BookmarkSyncEngine(
            store: store,
            source: PixivBookmarkSource(client: client, userID: userID)
        )
        #expect(engine.configuration == SyncConfiguration())
    }

    @Test func theTestWiringSyncsOnTheTestClock() async throws {
        let store = try await BookmarksIndexStore(storage: InMemoryStorage())
        let clock = TestClock()
        let pixiv = FakePixiv(userID: 7, now: { clock.now }, sleep: clock.sleep(for:))
        let client = PixivClient(transport: pixiv, tokens: StaticAccessToken(pixiv.issueAccessToken(lifetime: nil)), now: { clock.now })
        let engine = BookmarkSyncEngine(store: store, source: PixivBookmarkSource(client: client, userID: 7), clock: clock)
        pixiv.add(illusts(1, count: 31), to: .public)
        await engine.startAutoSync(for: .public)
        await clock.runUntilIdle(engine)
        let log = pixiv.requests
        #expect(log.map(\.endpoint) == [.userDetail, .bookmarks, .bookmarks])
        #expect(await store.count(in: .public) == 31)
    }
}
