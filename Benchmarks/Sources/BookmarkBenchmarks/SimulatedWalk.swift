import BookmarkIndex
import BookmarkIndexTesting
import PixivAPITesting
import BookmarkSync
import Foundation
import PixivAPI

/// `sync_walk_12k_simulated`: the virtual time a full walk of 12,000 bookmarks takes with the
/// engine's default pacing against FakePixiv's model of Pixiv's limit (100 requests per 120 s,
/// 300 s penalty), beside the limit's own optimum (every request as early as the window lets it).
///
/// Deterministic: the engine's clock and FakePixiv's are one instant clock, so the figure is
/// the engine's decisions, not this machine's speed.
struct SimulatedWalk {
    static let bookmarks = 12_000
    static let limit = FakePixiv.RateLimit(maxRequests: 100, window: .seconds(120), penalty: .seconds(300))

    struct Outcome {
        var seconds: Double
        var optimumSeconds: Double
        var requests: Int
        var trips: Int
        var paused: Bool
    }

    func run() async throws -> Outcome {
        let clock = InstantClock()
        let illusts = SyntheticBookmarks().illusts(count: Self.bookmarks, seed: 12)
        let pixiv = FakePixiv(userID: 1, public: illusts, now: { clock.now })
        pixiv.limitRequests(Self.limit)
        let client = PixivClient(transport: pixiv, tokens: StaticAccessToken(pixiv.issueAccessToken(lifetime: nil)), now: { clock.now })
        let store = try await BookmarksIndexStore(storage: InMemoryStorage())
        let engine = BookmarkSyncEngine(store: store, source: PixivBookmarkSource(client: client, userID: pixiv.userID), clock: clock)
        guard await engine.startAutoSync(for: .public) == .started else { throw HarnessError("the simulated walk did not start") }
        await engine.waitUntilIdle()
        guard await store.count(in: .public) == Self.bookmarks else {
            throw HarnessError("the simulated walk indexed \(await store.count(in: .public)) bookmarks, not \(Self.bookmarks)")
        }
        let log = pixiv.requests
        guard let first = log.first, let last = log.last else { throw HarnessError("the simulated walk sent nothing") }
        var paused = false
        if case .paused = await engine.currentStatus().publicList { paused = true }
        let optimum = Self.limit.optimalSchedule(requests: log.filter { $0.status == 200 }.count, minimumSpacing: .milliseconds(150))
        return Outcome(
            seconds: last.timestamp.timeIntervalSince(first.timestamp),
            optimumSeconds: Double(optimum.components.seconds) + Double(optimum.components.attoseconds) / 1e18,
            requests: log.count, trips: pixiv.rateLimitTrips.count, paused: paused
        )
    }
}
