import BookmarkIndex
import BookmarkIndexTesting
@testable import BookmarkScreen
import Foundation
import Testing

/// The feed keeps its rows where they are while the index changes around them, and misses none:
/// checked against the list read whole, after random writes above, inside and below the window.
@MainActor
@Suite("Bookmark feed", .hangLimit)
struct BookmarkFeedTests {
    nonisolated static let generator = SyntheticBookmarks(tagCount: 30, invisibleShare: 0.1)
    nonisolated static let filters: [BookmarkFilter] = [
        .all, BookmarkFilter(allOf: ["オリジナル"]), BookmarkFilter(anyOf: ["girl", "猫"]),
        BookmarkFilter(visibility: .all), BookmarkFilter(text: "sun"),
    ]

    /// A store holding `count` rows of the public list, every seventh tied with the one above.
    static func store(count: Int, seed: UInt64) async throws -> BookmarksIndexStore {
        var rows = generator.indexedBookmarks(generator.illusts(count: count, seed: seed), in: .public)
        for index in stride(from: 7, to: rows.count, by: 7) { rows[index].serverOrder = rows[index - 1].serverOrder }
        let store = try await BookmarksIndexStore(storage: InMemoryStorage())
        try await store.upsert(rows)
        return store
    }

    /// Every row of the list matching `filter`, newest first.
    static func whole(_ store: BookmarksIndexStore, _ filter: BookmarkFilter) async -> [IndexedBookmark] {
        await store.bookmarks(in: .public, matching: filter)
    }

    @Test(arguments: filters)
    func pagesReadTheListInOrderWithoutRepeats(filter: BookmarkFilter) async throws {
        let store = try await Self.store(count: 300, seed: 3)
        let feed = BookmarkFeed(store: store, list: .public, filter: filter, pageSize: 25)
        await feed.reload()
        while feed.hasMore { await feed.loadMore() }
        let expected = await Self.whole(store, filter)
        #expect(feed.bookmarks.map(\.key) == expected.map(\.key))
        #expect(!expected.isEmpty, "the filter matches something, or the check says nothing")
        #expect(feed.matchingCount == expected.count)
        #expect(feed.newerCount == 0)
    }

    /// Random writes between reads: the window is the rows from its top row (found again by
    /// key, or the next row of the window still there) down, as many as it has loaded; the rows
    /// above are counted, and in the end every row is reached.
    @Test(arguments: filters)
    func theWindowStaysAtItsTopRowWhileTheIndexChanges(filter: BookmarkFilter) async throws {
        let store = try await Self.store(count: 240, seed: 11)
        var random = SeededRandom(seed: 99)
        var nextID = 500_000_000
        let feed = BookmarkFeed(store: store, list: .public, filter: filter, pageSize: 20)
        await feed.reload()
        await feed.loadMore()
        var length = 40
        var topKey = try #require(feed.bookmarks.first?.key)
        for round in 0..<12 {
            let before = feed.bookmarks
            let all = await store.state.allBookmarks(in: .public)
            let orders = all.map(\.serverOrder)
            let (high, low) = (before.first!.serverOrder, before.last!.serverOrder)
            var changes: [BookmarkChange] = []
            // Add rows above the window, inside it and below it.
            for _ in 0..<6 {
                let illust = Self.generator.illust(id: nextID, using: &random)
                nextID += 1
                let order: Int64 = switch Int.random(in: 0..<3, using: &random) {
                case 0: (orders.max() ?? 0) + Int64.random(in: 1...5, using: &random)
                case 1: Int64.random(in: low...high, using: &random)
                default: (orders.min() ?? 0) - Int64.random(in: 1...5, using: &random)
                }
                changes.append(.upsert(IndexedBookmark(illust: illust, restrict: .public, serverOrder: order, firstIndexedAt: .now, lastSeenAt: .now)))
            }
            // Remove some rows anywhere, the window's top row now and then.
            for _ in 0..<4 { if let row = all.randomElement(using: &random) { changes.append(.remove(row.key)) } }
            if round % 3 == 1 { changes.append(.remove(topKey)) }
            // Move a row of the window up above it, as a delta re-placing the top pages does.
            if round % 4 == 2, let moved = before.dropFirst().randomElement(using: &random) {
                var row = moved
                row.serverOrder = (orders.max() ?? 0) + 100
                changes.append(.upsert(row))
            }
            // Change a row inside the window in place (its title).
            if let key = before.randomElement(using: &random)?.key, var row = await store.bookmark(for: key) {
                row.illust.title += " (edited)"
                changes.append(.upsert(row))
            }
            try await store.apply(changes)
            if round.isMultiple(of: 3) {
                // A window that is full grows a page; one that is not has room already.
                if before.count == length { length += 20 }
                await feed.loadMore()
            } else {
                await feed.reload()
            }

            // The oracle: the top row, or the first row of the window before still there.
            let state = await store.state
            let top = ([topKey] + before.map(\.key)).lazy.compactMap { state.bookmark(for: $0) }.first.map(BookmarkCursor.init)
            let whole = await Self.whole(store, filter)
            let fromTop = whole.filter { row in top.map { !BookmarkCursor(row).isAbove($0) } ?? true }
            #expect(feed.bookmarks.summary == Array(fromTop.prefix(length)).summary, "round \(round)")
            #expect(feed.hasMore == (fromTop.count > length), "round \(round)")
            let above = whole.count - fromTop.count
            #expect(feed.newerCount == min(above, BookmarkFeed.maximumNewerCount), "round \(round)")
            #expect(feed.matchingCount == whole.count)
            topKey = try #require(feed.bookmarks.first?.key)
        }
        // Misses none: the newer rows, then every page below, is the whole list.
        await feed.showNewer()
        while feed.hasMore { await feed.loadMore() }
        #expect(feed.bookmarks.map(\.key) == (await Self.whole(store, filter)).map(\.key))
        #expect(feed.newerCount == 0)
    }

    @Test func aNewFilterStartsAtTheTop() async throws {
        let store = try await Self.store(count: 200, seed: 5)
        let feed = BookmarkFeed(store: store, list: .public, pageSize: 15)
        await feed.reload()
        await feed.loadMore()
        feed.filter = BookmarkFilter(allOf: ["オリジナル"])
        await feed.reload()
        let expected = await store.bookmarks(in: .public, matching: feed.filter, limit: 15)
        #expect(Array(feed.bookmarks) == expected)
        #expect(!expected.isEmpty)
    }

    @Test func aResetStartsAgainAndAnEmptiedWindowMovesDown() async throws {
        let store = try await Self.store(count: 100, seed: 8)
        let feed = BookmarkFeed(store: store, list: .public, pageSize: 10)
        await feed.reload()
        // Every row of the window removed: the rows below it take its place.
        try await store.remove(feed.bookmarks.map(\.key))
        await feed.reload()
        #expect(Array(feed.bookmarks) == (await store.bookmarks(in: .public, matching: .all, limit: 10)))
        #expect(feed.newerCount == 0)
        #expect(feed.bookmarks.count == 10)
    }

    /// `observe()` reads again after each write to the list and each change of filter, and
    /// after a reset starts from the top.
    @Test func observingFollowsWritesFiltersAndResets() async throws {
        let store = try await Self.store(count: 80, seed: 2)
        let feed = BookmarkFeed(store: store, list: .public, pageSize: 10)
        let observing = Task { await feed.observe() }
        defer { observing.cancel() }
        try await settle(feed, store) { feed.isLoaded }
        #expect(feed.bookmarks.count == 10)

        var random = SeededRandom(seed: 1)
        var illust = Self.generator.illust(id: 900_000_000, using: &random)
        illust.vanishReason = nil
        let newest = try #require(await store.state.serverOrderBounds(in: .public)).newest
        let added = IndexedBookmark(
            illust: illust, restrict: .public,
            serverOrder: newest + 10, firstIndexedAt: .now, lastSeenAt: .now
        )
        try await store.upsert([added])
        try await settle(feed, store) { feed.newerCount == 1 }
        #expect(feed.bookmarks.first?.illust.id != 900_000_000, "the new row waits above, the rows stay")

        feed.filter = BookmarkFilter(allOf: ["オリジナル"])
        let filtered = await store.bookmarks(in: .public, matching: feed.filter, limit: 10)
        try await settle(feed, store) { Array(feed.bookmarks) == filtered }

        try await store.resetStore()
        try await settle(feed, store) { feed.bookmarks.isEmpty && feed.matchingCount == 0 }
        let fresh = Self.generator.indexedBookmarks(Self.generator.illusts(count: 30, seed: 77, firstIllustID: 1), in: .public)
        try await store.upsert(fresh)
        let expected = await store.bookmarks(in: .public, matching: feed.filter, limit: 10)
        try await settle(feed, store) { Array(feed.bookmarks) == expected && feed.newerCount == 0 }
    }
}

/// Waits, by yielding (never sleeping), until `feed` has read the store's current revision and
/// `condition` holds.
@MainActor
func settle(_ feed: BookmarkFeed, _ store: BookmarksIndexStore, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool) async throws {
    var current: UInt64 = 0
    await settle(sourceLocation: sourceLocation) {
        condition() && feed.revision == current
    } refresh: {
        current = await store.state.revision
    }
}

extension Sequence<IndexedBookmark> {
    /// Each row's ID and title, newest first: what a failed comparison prints.
    var summary: [String] { map { "\($0.illust.id) \($0.illust.title)" } }
}

extension BookmarkCursor {
    /// Whether this place comes before `other` in a list read newest first.
    func isAbove(_ other: BookmarkCursor) -> Bool {
        serverOrder != other.serverOrder ? serverOrder > other.serverOrder : illustID > other.illustID
    }
}
