import BookmarkIndex
@testable import BookmarkScreen
import Foundation
import Testing

/// The feed while the real engine writes: the first walk fills it from the top, a delta puts
/// new bookmarks above it (counted, not shown), a full walk prunes inside and below it, and the
/// rows it shows never move.
@MainActor
@Suite("Feed during a sync", .hangLimit)
struct FeedDuringSyncTests {
    @Test func theFeedStaysPutThroughAWalkADeltaAndAPrune() async throws {
        let harness = try await ScreenHarness()
        harness.source.add(harness.works(from: 1_000, count: 150), to: .public)
        let feed = BookmarkFeed(store: harness.store, list: .public, pageSize: 20)
        let observing = Task { await feed.observe() }
        defer { observing.cancel() }

        // The first walk: the feed shows the first page as soon as it is written, and keeps it.
        await harness.engine.startAutoSync(for: .public)
        await harness.run()
        try await settle(feed, harness.store) { feed.bookmarks.count == 20 }
        let server = harness.source.illusts(in: .public).map(\.id)
        #expect(feed.bookmarks.map(\.illust.id) == Array(server.prefix(20)))
        #expect(feed.hasMore && feed.newerCount == 0)
        await feed.loadMore()
        let shown = feed.bookmarks.map(\.illust.id)
        #expect(shown == Array(server.prefix(40)))

        // Five new bookmarks on Pixiv, found by a delta: above the feed, counted, not shown.
        harness.source.add(harness.works(from: 9_000, count: 5, seed: 9), to: .public)
        await harness.later()
        #expect(await harness.engine.startAutoSync(for: .public) == .started)
        await harness.run()
        try await settle(feed, harness.store) { feed.newerCount == 5 }
        #expect(feed.bookmarks.map(\.illust.id) == shown, "the rows shown did not move")

        // Three works unbookmarked inside the window and three below it, on the web; a full
        // walk prunes them: the window loses its three and the rows below move up into it.
        let inside = [shown[3], shown[17], shown[39]]
        let below = Array(server[60..<63])
        for id in inside + below { harness.source.remove(illustID: id, from: .public) }
        await harness.later()
        #expect(await harness.engine.refresh(.public) == .started)
        await harness.run()
        let remaining = harness.source.illusts(in: .public).map(\.id).drop { !shown.contains($0) }
        try await settle(feed, harness.store) { feed.bookmarks.map(\.illust.id) == Array(remaining.prefix(40)) }
        #expect(Array(feed.bookmarks.map(\.illust.id).prefix(37)) == shown.filter { !inside.contains($0) }, "the rows shown kept their order")
        #expect(feed.newerCount == 5)

        // "5 new": the new ones on top, and every row that was shown still there below them.
        let beforeNewer = feed.bookmarks
        await feed.showNewer()
        #expect(feed.bookmarks.count == beforeNewer.count + 5)
        #expect(Array(feed.bookmarks.dropFirst(5)) == Array(beforeNewer))
        #expect(feed.newerCount == 0)
        // Misses none: then every page is the list on Pixiv.
        while feed.hasMore { await feed.loadMore() }
        #expect(feed.bookmarks.map(\.illust.id) == harness.source.illusts(in: .public).map(\.id))
    }
}
