import BookmarkIndex
import BookmarkIndexTesting
import PixivAPITesting
import BookmarkSyncTesting
import BookmarkSync
import Foundation
import Synchronization
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

    /// The README's pull to refresh and write-through unbookmark, over the real client.
    @Test func theReadmesRefreshAndUnbookmarkWorkOverPixiv() async throws {
        let store = try await BookmarksIndexStore(storage: InMemoryStorage())
        let clock = TestClock()
        let pixiv = FakePixiv(userID: 7, now: { clock.now }, sleep: clock.sleep(for:))
        let client = PixivClient(transport: pixiv, tokens: StaticAccessToken(pixiv.issueAccessToken(lifetime: nil)), now: { clock.now })
        let engine = BookmarkSyncEngine(store: store, source: PixivBookmarkSource(client: client, userID: 7), clock: clock)
        pixiv.add(illusts(1, count: 45), to: .private)
        let harness = ClockDriver(clock: clock)
        // Pull to refresh: a full walk; returns once the first page is written (the walk goes on).
        let outcome = await harness.driving { await engine.refresh(.private, until: .firstPage) }
        #expect(outcome == .firstPageWritten)
        await clock.runUntilIdle(engine)
        #expect(await store.count(in: .private) == 45)
        // The user's tap: the index changes at once, the POST goes before the next page of any
        // sync, and a refused one rolls back and throws.
        let unbookmarked: Bool? = await harness.driving {
            (try? await engine.unbookmark(illustID: 45)) != nil
        }
        #expect(unbookmarked == true)
        #expect(pixiv.requests.last?.endpoint == .deleteBookmark)
        #expect(await !store.contains(BookmarkKey(illustID: 45, restrict: .private)))
        #expect(!pixiv.ids(in: .private).contains(45))
    }
}

/// Drives a clock while a task runs, for tests that own no harness.
struct ClockDriver {
    let clock: TestClock

    func driving<Value: Sendable>(_ body: @escaping @Sendable () async -> Value) async -> Value? {
        let result = Mutex<Value?>(nil)
        let task = Task {
            let value = await body()
            result.withLock { $0 = value }
        }
        _ = await clock.run(whileBusy: { result.withLock { $0 == nil } }, maxSteps: 1_000_000)
        await task.value
        return result.withLock { $0 }
    }
}
