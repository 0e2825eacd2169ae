import BookmarkIndex
import BookmarkIndexTesting
import PixivAPITesting
import BookmarkSync
import Foundation
import Testing

/// A delta stops only where Pixiv's bookmark IDs prove it has met every new bookmark, and each
/// work is in one list: the traps other Pixiv tools document, over FakePixiv and the real
/// client, under both meanings of `max_bookmark_id`.
@Suite struct KnownGroundTests {
    /// An account whose public list holds `count` works, synced in full, under `meaning`.
    private func synced(publicCount count: Int, privateCount: Int = 0, meaning: BookmarkCursorMeaning) async throws -> PixivHarness {
        let h = try await PixivHarness()
        h.pixiv.cursorMeaning = meaning
        h.pixiv.add(illusts(1, count: count), to: .public)
        if privateCount > 0 { h.pixiv.add(illusts(100_000, count: privateCount), to: .private) }
        await h.syncBoth()
        #expect(await h.indexedIDs(.public) == h.pixiv.ids(in: .public))
        return h
    }

    /// Deltas of both lists a minute apart, then the index must be Pixiv's lists exactly.
    private func deltasMatchPixiv(_ h: PixivHarness, sourceLocation: SourceLocation = #_sourceLocation) async {
        await h.clock.advance(by: 61)
        await h.engine.startAutoSync(for: .public)
        await h.engine.startAutoSync(for: .private)
        await h.run()
        for restrict in Restrict.allCases {
            let indexed = await h.indexedIDs(restrict), truth = h.pixiv.ids(in: restrict)
            #expect(indexed == truth, "\(restrict): \(indexed.prefix(50)) vs \(truth.prefix(50))", sourceLocation: sourceLocation)
        }
    }

    /// The trap of the issue: one new work, an old one bookmarked again, 29 more new works.
    /// Page 1 is 29 new works with the old one at its bottom; the first new work is on page 2.
    @Test(arguments: BookmarkCursorMeaning.allCases)
    func aReBookmarkedWorkAtTheBottomOfPageOneDoesNotHideANewWorkOnPageTwo(meaning: BookmarkCursorMeaning) async throws {
        let h = try await synced(publicCount: 600, meaning: meaning)
        h.pixiv.add([illust(5_000)], to: .public)
        h.pixiv.bookmark(illust(300), restrict: .public)
        h.pixiv.add(illusts(5_001, count: 29), to: .public)
        let mark = h.pixiv.requests.count
        await deltasMatchPixiv(h)
        #expect(await h.store.count(in: .public) == 630)
        let pages = h.requests(since: mark).filter { $0.restrict == .public }.count
        #expect(pages == 3, "31 changed bookmarks fill two pages; the third one's cursor proves known ground")
    }

    /// Pixiv-Bookmarks-Sync's trap: unmark A, mark B and C, mark A again.
    @Test(arguments: BookmarkCursorMeaning.allCases)
    func unmarkAMarkBAndCThenMarkAAgain(meaning: BookmarkCursorMeaning) async throws {
        let h = try await synced(publicCount: 100, meaning: meaning)
        h.pixiv.unbookmark(illustID: 40)
        h.pixiv.add([illust(9_001), illust(9_002)], to: .public)
        h.pixiv.bookmark(illust(40), restrict: .public)
        await deltasMatchPixiv(h)
        #expect(await h.indexedIDs(.public).prefix(3) == [40, 9_002, 9_001])
    }

    /// Two pages of new works under a re-bookmarked one: every new work is placed.
    @Test(arguments: BookmarkCursorMeaning.allCases)
    func twoPagesOfNewWorksUnderAReBookmarkedOne(meaning: BookmarkCursorMeaning) async throws {
        let h = try await synced(publicCount: 100, meaning: meaning)
        h.pixiv.add(illusts(7_000, count: 60), to: .public)
        h.pixiv.bookmark(illust(12), restrict: .public)
        let mark = h.pixiv.requests.count
        await deltasMatchPixiv(h)
        #expect(h.requests(since: mark).filter { $0.restrict == .public }.count <= 4, "61 changed bookmarks fill three pages, at most one more proves ground")
    }

    /// Nothing changed: one request, and again after a delta that moved the ground up.
    @Test(arguments: BookmarkCursorMeaning.allCases)
    func anUnchangedListCostsOneRequestEvenAfterADeltaThatChangedIt(meaning: BookmarkCursorMeaning) async throws {
        let h = try await synced(publicCount: 100, meaning: meaning)
        for change in 0..<3 {
            if change > 0 { h.pixiv.add(illusts(20_000 + 100 * change, count: 10 * change), to: .public) }
            await deltasMatchPixiv(h)
            let mark = h.pixiv.requests.count
            await deltasMatchPixiv(h)
            #expect(h.requests(since: mark).filter { $0.restrict == .public }.count == 1, "after change \(change)")
        }
    }

    /// Moved public → private → public on the web: after the deltas each work is in one list.
    @Test(arguments: BookmarkCursorMeaning.allCases)
    func aWorkMovedBetweenListsIsInOneListAfterTheDeltas(meaning: BookmarkCursorMeaning) async throws {
        let h = try await synced(publicCount: 50, privateCount: 20, meaning: meaning)
        let moved = try #require(h.pixiv.bookmarks(in: .public).first { $0.id == 25 })
        h.pixiv.bookmark(moved, restrict: .private)
        await deltasMatchPixiv(h)
        #expect(await !h.store.contains(BookmarkKey(illustID: 25, restrict: .public)))
        #expect(await h.indexedIDs(.private).first == 25)
        h.pixiv.bookmark(moved, restrict: .public)
        await deltasMatchPixiv(h)
        #expect(await !h.store.contains(BookmarkKey(illustID: 25, restrict: .private)))
        #expect(await h.indexedIDs(.public).first == 25)
    }

    /// Moved in the app: the row leaves the other list at once, and a page of that list from
    /// before Pixiv saw the move cannot bring it back.
    @Test func aWorkBookmarkedInTheAppWithTheOtherListMovesThere() async throws {
        let h = try await synced(publicCount: 50, privateCount: 20, meaning: .firstOfNextPage)
        let work = try #require(h.pixiv.bookmarks(in: .public).first { $0.id == 10 })
        try await h.engine.recordBookmark(work, restrict: .private)
        #expect(await !h.store.contains(BookmarkKey(illustID: 10, restrict: .public)))
        #expect(await h.indexedIDs(.private).first == 10)
        // Pixiv has not seen the move yet: the public list still holds the work.
        await h.clock.advance(by: 61)
        await h.engine.refresh(.public)
        await h.run()
        #expect(await !h.store.contains(BookmarkKey(illustID: 10, restrict: .public)), "the stale public page did not bring it back")
        #expect(await h.store.contains(BookmarkKey(illustID: 10, restrict: .private)))
    }

    /// Random web changes (new works, works bookmarked again, moves between lists) between
    /// deltas: after every round of deltas the index is Pixiv's lists exactly.
    @Test(arguments: [(UInt64(1), BookmarkCursorMeaning.firstOfNextPage), (2, .lastOfThisPage), (3, .firstOfNextPage), (4, .lastOfThisPage)])
    func randomReBookmarksAndMovesConvergeAfterEveryDelta(seed: UInt64, meaning: BookmarkCursorMeaning) async throws {
        let h = try await synced(publicCount: 90, privateCount: 40, meaning: meaning)
        var random = SeededRandom(seed: seed)
        var nextID = 50_000
        for _ in 0..<25 {
            for _ in 0..<Int(random.next() % 40) {
                let restrict: Restrict = random.next() % 3 == 0 ? .private : .public
                switch random.next() % 4 {
                case 0:
                    h.pixiv.add([illust(nextID)], to: restrict)
                    nextID += 1
                default:
                    // Bookmarked again, in the same list or the other: it moves to that list's top.
                    let works = h.pixiv.bookmarks(in: random.next() % 2 == 0 ? .public : .private)
                    if !works.isEmpty { h.pixiv.bookmark(works[Int(random.next() % UInt64(works.count))], restrict: restrict) }
                }
            }
            await deltasMatchPixiv(h)
        }
    }

    /// A work posted minutes ago that Pixiv sends as a sanity-level placeholder (which can be
    /// transient: the work shows some minutes later) is read again by the next delta, even
    /// below page 1; an old work's sanity placeholder is final, and costs nothing more.
    @Test func aFreshSanityPlaceholderIsReadAgainByTheNextDelta() async throws {
        let h = try await synced(publicCount: 100, meaning: .firstOfNextPage)
        var fresh = illust(8_000)
        fresh.createDate = h.clock.now - 300
        let old = illust(8_100)
        h.pixiv.add([old, fresh], to: .public)
        h.pixiv.withhold(illustID: 8_000, reason: .sanityLimited)
        h.pixiv.withhold(illustID: 8_100, reason: .sanityLimited)
        h.pixiv.add(illusts(8_001, count: 40), to: .public)  // both on page 2 now
        await deltasMatchPixiv(h)
        #expect(await h.store.bookmark(for: BookmarkKey(illustID: 8_000, restrict: .public))?.illust.vanishReason == .sanityLimited)
        // Minutes later Pixiv shows the fresh one; the old one stays hidden.
        h.pixiv.restore(illustID: 8_000)
        let mark = h.pixiv.requests.count
        await deltasMatchPixiv(h)
        #expect(await h.store.bookmark(for: BookmarkKey(illustID: 8_000, restrict: .public))?.illust.isVisible == true)
        #expect(h.requests(since: mark).filter { $0.restrict == .public }.count == 2, "page 1, then page 2 where the placeholder was")
        // Nothing transient left: the next delta is one request again.
        let after = h.pixiv.requests.count
        await deltasMatchPixiv(h)
        #expect(h.requests(since: after).filter { $0.restrict == .public }.count == 1)
        #expect(await h.store.bookmark(for: BookmarkKey(illustID: 8_100, restrict: .public))?.illust.vanishReason == .sanityLimited)
    }
}
