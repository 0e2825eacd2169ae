import BookmarkIndex
import BookmarkIndexTesting
import PixivAPITesting
import BookmarkSyncTesting
import BookmarkSync
import Foundation
import PixivAPI
import Testing

/// Works that vanish from Pixiv after a sync, end to end: FakePixiv serves their placeholders,
/// the real PixivClient decodes them, the engine writes them, and the index keeps what it knew.
@Suite struct VanishedWorksSyncTests {
    /// 95 public bookmarks, works 1…95 (95 the newest, on page 1), fully synced.
    func synced() async throws -> PixivHarness {
        let h = try await PixivHarness()
        h.pixiv.add(illusts(1, count: 95), to: .public)
        await h.engine.startAutoSync(for: .public)
        await h.run()
        #expect(await h.store.count(in: .public) == 95)
        return h
    }

    func key(_ id: Int) -> BookmarkKey { BookmarkKey(illustID: id, restrict: .public) }

    @Test func aDeletedWorkKeepsItsTitleArtistAndTagsThroughAFullWalkAndADelta() async throws {
        let h = try await synced()
        let before = try #require(await h.store.bookmark(for: key(10)))
        h.pixiv.delete(illustID: 10)   // deep in the list: only a full walk reaches it

        await h.clock.advance(by: 3_600)
        #expect(await h.engine.refresh(.public) == .started)
        await h.run()
        let walkedAt = h.clock.now
        let deleted = try #require(await h.store.bookmark(for: key(10)))
        #expect(deleted.illust.vanishReason == .deleted)
        #expect(deleted.illust.title == "work 10" && deleted.illust.artistName == "artist" && deleted.illust.tags == before.illust.tags)
        var content = before.illust
        content.vanishReason = .deleted
        #expect(deleted.illust == content, "every field as last seen: thumbnail, size, pages, counts, dates")
        #expect(deleted.vanishedAt != nil && deleted.vanishedAt! <= walkedAt && deleted.vanishedAt == deleted.lastSeenAt)
        let vanishedAt = deleted.vanishedAt

        // A delta sees work 94's placeholder on page 1 (it is known ground): kept, and dated then.
        h.pixiv.delete(illustID: 94)
        await h.clock.advance(by: 3_600)
        await h.engine.startAutoSync(for: .public)
        await h.run()
        let onPage1 = try #require(await h.store.bookmark(for: key(94)))
        #expect(onPage1.illust.title == "work 94" && onPage1.illust.vanishReason == .deleted)
        #expect(onPage1.vanishedAt != nil && onPage1.vanishedAt! > walkedAt, "first seen vanished by the delta")
        #expect(onPage1.vanishedAt == onPage1.lastSeenAt)

        // Another full walk: still kept, still the first vanish date.
        await h.clock.advance(by: 8 * 86_400)
        await h.engine.startAutoSync(for: .public)
        await h.run()
        let later = try #require(await h.store.bookmark(for: key(10)))
        #expect(later.illust.title == "work 10" && later.vanishedAt == vanishedAt && later.lastSeenAt > walkedAt)
        #expect(await h.store.count(in: .public) == 95, "a vanished work Pixiv still lists is not pruned")

        // A tag filter finds it only when asked for vanished works.
        let tag = try #require(before.illust.tags.first?.name)
        #expect(!(await h.store.bookmarks(in: .public, matching: BookmarkFilter(allOf: [tag]))).contains { $0.illust.id == 10 })
        #expect(await h.store.bookmarks(in: .public, matching: BookmarkFilter(allOf: [tag], visibility: .vanished)).map(\.illust.id).contains(10))
        #expect(await h.store.bookmarks(in: .public, matching: BookmarkFilter(allOf: [tag], visibility: .all)).map(\.illust.id).contains(10))
        #expect(await h.store.count(in: .public, matching: BookmarkFilter(visibility: .vanished)) == 2)
        #expect(await h.store.count(in: .public, matching: .all) == 93)
    }

    @Test(arguments: PixivIllust.InvisibleReason.allCases)
    func eachKindOfPlaceholderGetsItsReason(kind: PixivIllust.InvisibleReason) async throws {
        let h = try await synced()
        h.pixiv.withhold(illustID: 50, reason: kind)
        await h.clock.advance(by: 3_600)
        await h.engine.refresh(.public)
        await h.run()
        let row = try #require(await h.store.bookmark(for: key(50)))
        #expect(row.illust.vanishReason == VanishReason(kind))
        #expect(row.illust.vanishReason?.rawValue == kind.rawValue)
        #expect(row.illust.title == "work 50", "kept whatever the reason")

        // The reason may change; the vanish date stays.
        let other = PixivIllust.InvisibleReason.allCases.first { $0 != kind }!
        h.pixiv.withhold(illustID: 50, reason: other)
        await h.clock.advance(by: 3_600)
        await h.engine.refresh(.public)
        await h.run()
        let again = try #require(await h.store.bookmark(for: key(50)))
        #expect(again.illust.vanishReason == VanishReason(other) && again.vanishedAt == row.vanishedAt)
    }

    @Test func aVanishedWorkThatReappearsIsRestoredWithPixivsFreshData() async throws {
        let h = try await synced()
        h.pixiv.withhold(illustID: 20, reason: .myPixivOnly)
        await h.clock.advance(by: 3_600)
        await h.engine.refresh(.public)
        await h.run()
        #expect(await h.store.bookmark(for: key(20))?.illust.vanishReason == .myPixivOnly)

        // Back on Pixiv, retitled and retagged by its artist meanwhile.
        var fresh = try #require(h.pixiv.content(ofIllustID: 20))
        fresh.title = "work 20, revised"
        fresh.tags = [ArtworkTag(name: "改訂", translatedName: "revised")]
        h.pixiv.addWork(fresh)
        h.pixiv.restore(illustID: 20)
        await h.clock.advance(by: 3_600)
        await h.engine.refresh(.public)
        await h.run()
        let row = try #require(await h.store.bookmark(for: key(20)))
        #expect(row.illust == fresh && row.vanishedAt == nil)
        #expect(await h.store.bookmarks(in: .public, matching: BookmarkFilter(allOf: ["revised"])).map(\.illust.id) == [20])
        #expect(await h.store.count(in: .public, matching: BookmarkFilter(visibility: .vanished)) == 0)
    }

    @Test func aFullWalkKeepsAVanishedRowPixivStillListsAndPrunesAnUnbookmarkedOne() async throws {
        let h = try await synced()
        h.pixiv.delete(illustID: 30)
        h.pixiv.unbookmark(illustID: 31)
        await h.clock.advance(by: 8 * 86_400)
        await h.engine.startAutoSync(for: .public)
        await h.run()
        #expect(await h.store.contains(key(30)), "its placeholder was on a page of the walk: seen, not pruned")
        #expect(await h.store.bookmark(for: key(30))?.illust.title == "work 30")
        #expect(await !h.store.contains(key(31)), "a work the user unbookmarked disappears as before")
        #expect(await h.store.count(in: .public) == 94)

        // Unbookmarked once vanished: gone too.
        h.pixiv.unbookmark(illustID: 30)
        await h.clock.advance(by: 8 * 86_400)
        await h.engine.startAutoSync(for: .public)
        await h.run()
        #expect(await !h.store.contains(key(30)))
        // And one the app unbookmarks goes at once.
        h.pixiv.delete(illustID: 40)
        await h.clock.advance(by: 3_600)
        await h.engine.refresh(.public)
        await h.run()
        #expect(await h.store.bookmark(for: key(40))?.vanishedAt != nil)
        try await h.engine.recordUnbookmark(illustID: 40, restrict: .public)
        #expect(await !h.store.contains(key(40)))
    }

    @Test func aWorkFirstSeenAsAPlaceholderIsStoredAsSentWithItsReasonAndNoDate() async throws {
        let h = try await synced()
        let newcomer = BookmarkedIllustSnapshot(id: 500, title: "gone before we met", artistID: 8, artistName: "x", tags: [ArtworkTag(name: "t")])
        h.pixiv.bookmark(newcomer, restrict: .public)
        h.pixiv.withhold(illustID: 500, reason: .sanityLimited)
        await h.clock.advance(by: 3_600)
        await h.engine.startAutoSync(for: .public)
        await h.run()
        let row = try #require(await h.store.bookmark(for: key(500)))
        #expect(row.illust.vanishReason == .sanityLimited && row.vanishedAt == nil)
        #expect(row.illust.title.isEmpty && row.illust.tags.isEmpty, "nothing to keep: the index never saw its content")
    }

    @Test func whatTheIndexKeptSurvivesARestartAndACompactionOfTheJournal() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("VanishedWorksSyncTests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = TestClock()
        let pixiv = FakePixiv(userID: PixivHarness.userID, now: { clock.now }, sleep: clock.sleep(for:))
        pixiv.add(illusts(1, count: 40), to: .public)
        func engine(_ store: BookmarksIndexStore) -> BookmarkSyncEngine {
            let client = PixivClient(transport: pixiv, tokens: StaticAccessToken(pixiv.issueAccessToken(lifetime: nil)), now: { clock.now })
            return BookmarkSyncEngine(store: store, source: PixivBookmarkSource(client: client, userID: pixiv.userID), clock: clock)
        }
        var options = JournalStorage.Options()
        options.checkpointMinimumBytes = 0
        do {
            let store = try await BookmarksIndexStore.open(directory: directory, options: options)
            let sync = engine(store)
            await sync.startAutoSync(for: .public)
            #expect(await clock.runUntilIdle(sync))
            pixiv.delete(illustID: 5)
            pixiv.withhold(illustID: 6, reason: .unviewable)
            await clock.advance(by: 3_600)
            await sync.refresh(.public)
            #expect(await clock.runUntilIdle(sync))
            try await store.close()
        }
        let reopened = try await BookmarksIndexStore.open(directory: directory, options: options)
        let expected = await reopened.bookmarks(in: .public, matching: BookmarkFilter(visibility: .vanished))
        #expect(expected.map(\.illust.id) == [6, 5])
        #expect(expected.map(\.illust.vanishReason) == [.unviewable, .deleted])
        #expect(expected.allSatisfy { $0.vanishedAt != nil && $0.illust.title.hasPrefix("work ") && !$0.illust.tags.isEmpty })
        try await reopened.compact()
        try await reopened.close()
        let compacted = try await BookmarksIndexStore.open(directory: directory, options: options)
        #expect(await compacted.bookmarks(in: .public, matching: BookmarkFilter(visibility: .vanished)) == expected, "after compaction, from its checkpoint")
        #expect(await compacted.tagHistogram(in: .public, visibility: .vanished).map(\.name).contains("common"))
        try await compacted.close()
    }
}
