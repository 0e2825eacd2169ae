import BookmarkIndex
import BookmarkIndexTesting
import BookmarkSync
import BookmarkSyncTesting
import Foundation
import Testing

/// An account on a fake Pixiv, an index in memory and an engine on a test clock: the screen's
/// models are driven through the real engine.
struct ScreenHarness {
    static let generator = SyntheticBookmarks(tagCount: 30, invisibleShare: 0)
    let clock = TestClock()
    let source: FakeBookmarkSource
    let store: BookmarksIndexStore
    let engine: BookmarkSyncEngine

    init() async throws {
        source = FakeBookmarkSource(clock: clock, latency: 0.05)
        store = try await BookmarksIndexStore(storage: InMemoryStorage())
        engine = BookmarkSyncEngine(store: store, source: source, clock: clock)
    }

    /// Works `first`, `first + 1`, … with generated titles and tags.
    func works(from first: Int, count: Int, seed: UInt64 = 4) -> [BookmarkedIllustSnapshot] {
        Self.generator.illusts(count: count, seed: seed, firstIllustID: first)
    }

    /// Drives the engine until it is idle.
    func run(sourceLocation: SourceLocation = #_sourceLocation) async {
        #expect(await clock.runUntilIdle(engine), "the engine never became idle", sourceLocation: sourceLocation)
    }

    /// Moves past every cooldown, so the next intent syncs.
    func later() async { await clock.advance(by: 3_600) }
}

/// Yields (never sleeps) until `condition` holds, calling `refresh` before each check; records
/// an issue after many yields.
@MainActor
func settle(sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool, refresh: () async -> Void = {}) async {
    for _ in 0..<20_000 {
        await refresh()
        if condition() { return }
        await Task.yield()
    }
    Issue.record("never got there", sourceLocation: sourceLocation)
}

extension Trait where Self == TimeLimitTrait {
    /// The time limit of a suite whose tests could hang: a bound a hang crosses, not a speed
    /// test (as BookmarkIndexTests' `hangLimit` explains: in a whole run, a test's wall time
    /// includes its wait for threads; these passed after 60–65 s in such runs).
    static var hangLimit: Self { .timeLimit(.minutes(3)) }
}
