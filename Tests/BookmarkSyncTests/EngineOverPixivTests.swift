import BookmarkIndex
import BookmarkIndexTesting
import PixivAPITesting
import BookmarkSync
import Foundation
import PixivAPI
import Testing

/// The product's test plan for the sync engine, through `PixivBookmarkSource` and the real
/// `PixivClient` against FakePixiv (in process), on a test clock. Request counts, gaps and
/// waits are read from FakePixiv's own request log.
@Suite struct EngineOverPixivTests {
    @Test func firstSyncIndexesBothListsWithRisingProgressAndReturnsToIdle() async throws {
        let h = try await PixivHarness()
        h.pixiv.add(illusts(1_000, count: 75), to: .public)
        h.pixiv.add(illusts(5_000, count: 40), to: .private)
        let recorder = await StatusRecorder(h.engine)

        #expect(await h.engine.startAutoSync(for: .public) == .started)
        #expect(await h.engine.startAutoSync(for: .private) == .queued)
        await h.run()

        #expect(await h.indexed(.public) == h.pixiv.bookmarks(in: .public))
        #expect(await h.indexed(.private) == h.pixiv.bookmarks(in: .private))
        let newest = try #require(await h.store.bookmark(for: BookmarkKey(illustID: 1_074, restrict: .public)))
        #expect(newest.illust.tags.map(\.name) == ["t4", "common"])

        // The public walk asks user detail for the total, then three pages; private has no
        // total to ask for.
        let log = h.requests()
        #expect(log.map(\.endpoint) == [.userDetail, .bookmarks, .bookmarks, .bookmarks, .bookmarks, .bookmarks])
        #expect(log.compactMap(\.restrict) == [.public, .public, .public, .private, .private])
        log.checkGaps()

        let final = await h.engine.currentStatus()
        #expect(final.publicList.isIdle && final.privateList.isIdle)
        guard case .idle(let lastFull?, _) = final.privateList else {
            Issue.record("the private row shows its last full sync")
            return
        }
        #expect(lastFull == log.last?.timestamp)

        let statuses = await recorder.statuses(upTo: final)
        let publicProgress = statuses.compactMap(\.publicList.progress)
        #expect(publicProgress.map(\.pagesFetched) == publicProgress.map(\.pagesFetched).sorted(), "progress only rises")
        #expect(Set(publicProgress.map(\.pagesFetched)) == [0, 1, 2], "one step per page until the last")
        #expect(Set(publicProgress.map(\.indexedCount)).isSuperset(of: [0, 30, 60]))
        #expect(publicProgress.contains { $0.knownTotal == 75 }, "the total from user detail is shown")
        #expect(publicProgress.contains { $0.latestIllust?.id == 1_045 }, "the last work of page 1 is the latest indexed")
        #expect(statuses.contains { $0.publicList.progress != nil && $0.privateList == .queued })
        let privateProgress = statuses.compactMap(\.privateList.progress)
        #expect(privateProgress.allSatisfy { $0.knownTotal == nil && $0.mode == .full })
        #expect(privateProgress.last?.pagesFetched == 1)
    }

    @Test func autoSyncWithinCooldownFetchesNothingAndALaterEmptyDeltaCostsOneRequest() async throws {
        let h = try await PixivHarness()
        h.pixiv.add(illusts(1, count: 70), to: .public)
        await h.engine.startAutoSync(for: .public)
        await h.run()
        let mark = h.pixiv.requests.count

        await h.clock.advance(by: 30)
        #expect(await h.engine.startAutoSync(for: .public) == .recentlySynced(until: h.clock.now + 30))
        await h.run()
        #expect(h.requests(since: mark).isEmpty)

        await h.clock.advance(by: 31)
        #expect(await h.engine.startAutoSync(for: .public) == .started)
        await h.run()
        let delta = h.requests(since: mark)
        #expect(delta.count == 1)
        #expect(delta.first?.endpoint == .bookmarks && delta.first?.query["max_bookmark_id"] == nil)
        #expect(await h.indexedIDs(.public) == h.pixiv.ids(in: .public))
        #expect(await h.store.metadata(for: .public).lastDeltaSync == h.clock.now)
    }

    @Test(arguments: BookmarkCursorMeaning.allCases)
    func sixtyFiveNewBookmarksCostFourRequests(meaning: BookmarkCursorMeaning) async throws {
        let h = try await PixivHarness()
        h.pixiv.cursorMeaning = meaning
        h.pixiv.add(illusts(1, count: 50), to: .public)
        await h.engine.startAutoSync(for: .public)
        await h.run()
        h.pixiv.add(illusts(1_000, count: 65), to: .public)
        await h.clock.advance(by: 120)
        let mark = h.pixiv.requests.count

        await h.engine.startAutoSync(for: .public)
        await h.run()
        let delta = h.requests(since: mark)
        #expect(delta.count == 4, "30 new, 30 new, 5 new, then the page whose cursor proves known ground")
        #expect(delta.allSatisfy { $0.endpoint == .bookmarks && $0.restrict == .public })
        #expect(await h.indexedIDs(.public) == h.pixiv.ids(in: .public), "new rows land on top in Pixiv's order")
        #expect(await h.store.count(in: .public) == 115)
    }

    @Test func aWeekLaterAutoWalksFullyAndPrunesBookmarksRemovedOnTheWeb() async throws {
        let h = try await PixivHarness()
        h.pixiv.add(illusts(1, count: 95), to: .public)
        await h.engine.startAutoSync(for: .public)
        await h.run()
        for id in [3, 40, 41, 77, 95] { h.pixiv.unbookmark(illustID: id) }
        h.pixiv.hide(illustID: 10)

        await h.clock.advance(by: 6 * 86_400)
        var mark = h.pixiv.requests.count
        await h.engine.startAutoSync(for: .public)
        await h.run()
        #expect(h.requests(since: mark).count == 1, "within 7 days auto is a delta")
        #expect(await h.store.count(in: .public) == 95, "a delta prunes nothing")

        await h.clock.advance(by: 86_400 + 1)
        mark = h.pixiv.requests.count
        await h.engine.startAutoSync(for: .public)
        await h.run()
        let walk = h.requests(since: mark)
        #expect(walk.map(\.endpoint) == [.userDetail, .bookmarks, .bookmarks, .bookmarks])
        // Pixiv's list, but for the hidden work: the index keeps what it knew of it.
        var expected = h.pixiv.bookmarks(in: .public)
        let hidden = try #require(expected.firstIndex { $0.id == 10 })
        #expect(!expected[hidden].isVisible)
        expected[hidden] = try #require(h.pixiv.content(ofIllustID: 10))
        expected[hidden].vanishReason = .unknown
        #expect(await h.indexed(.public) == expected)
        #expect(await h.store.count(in: .public) == 90)
        let row = try #require(await h.store.bookmark(for: BookmarkKey(illustID: 10, restrict: .public)))
        #expect(row.illust.vanishReason == .unknown && row.illust.title == "work 10", "a work hidden on the web is kept, with its content")
        #expect(row.vanishedAt == row.lastSeenAt, "it vanished at the walk that first saw it hidden")
    }

    @Test func aFullWalkFailingMidwayPrunesNothingAndResumesFromItsCursorAfterARestart() async throws {
        let h = try await PixivHarness()
        h.pixiv.add(illusts(1, count: 100), to: .public)
        await h.engine.startAutoSync(for: .public)
        await h.run()
        for id in [2, 50, 99] { h.pixiv.unbookmark(illustID: id) }
        h.pixiv.add(illusts(500, count: 4), to: .public)

        // The walk gets user detail and two pages, then the third page arrives cut short.
        await h.clock.advance(by: 3_600)
        let mark = h.pixiv.requests.count
        let first = h.transport.startedCount
        h.transport.setFaultRule { number, _ in number == first + 3 ? .truncatedBody : nil }
        #expect(await h.engine.refresh(.public) == .started)
        await h.run()
        let failed = h.requests(since: mark)
        #expect(failed.map(\.endpoint) == [.userDetail, .bookmarks, .bookmarks, .bookmarks])
        #expect(await h.store.count(in: .public) == 104, "nothing is pruned before the walk completes")
        let cursor = try #require(await h.store.metadata(for: .public).fullWalkPosition)
        #expect(cursor.pagesFetched == 2)
        guard case .failed(let error) = await h.engine.currentStatus().publicList else {
            Issue.record("the failure is shown")
            return
        }
        #expect(error.code == .undecodable)
        #expect(failed.count == 4, "an undecodable page is not retried")

        // Restart: a new client and engine on the same storage resume the walk from its cursor.
        h.transport.setFaultRule(nil)
        let restarted = try await h.restarted()
        let resumeMark = h.pixiv.requests.count
        #expect(await restarted.engine.startAutoSync(for: .public) == .started, "auto resumes an unfinished walk")
        await restarted.run()
        let resumed = h.requests(since: resumeMark)
        #expect(resumed.map(\.endpoint) == [.userDetail, .bookmarks, .bookmarks])
        let resumedAt = URLComponents(string: cursor.nextPage)?.queryItems?.first { $0.name == "max_bookmark_id" }?.value
        #expect(resumedAt != nil && resumed[1].query["max_bookmark_id"] == resumedAt,
                "the walk goes on from the saved next_url, not from page 1")
        #expect(resumed[1].query["max_bookmark_id"] == failed[3].query["max_bookmark_id"], "the failed page is asked again")
        #expect(await restarted.indexed(.public) == h.pixiv.bookmarks(in: .public))
        #expect(await restarted.store.metadata(for: .public).fullWalkPosition == nil)
        #expect(await restarted.store.count(in: .public) == 101)
    }

    @Test func recordBookmarkAddsTheRowWithItsTagsAndRestrict() async throws {
        let h = try await PixivHarness()
        h.pixiv.add(illusts(1, count: 40), to: .public)
        await h.syncBoth()
        let mark = h.pixiv.requests.count

        let made = illust(9_001, tags: ["オリジナル", "sky"])
        h.pixiv.bookmark(made, restrict: .private)
        try await h.engine.recordBookmark(made, restrict: .private)
        let row = try #require(await h.store.bookmark(for: BookmarkKey(illustID: 9_001, restrict: .private)))
        #expect(row.restrict == .private)
        #expect(row.illust.tags == [ArtworkTag(name: "オリジナル"), ArtworkTag(name: "sky")])
        #expect(await h.store.bookmark(for: BookmarkKey(illustID: 9_001, restrict: .public)) == nil)
        #expect(h.requests(since: mark).isEmpty, "recording costs no request")

        // The next delta finds it known on page 1: one request, nothing else changes.
        await h.clock.advance(by: 61)
        await h.engine.startAutoSync(for: .private)
        await h.run()
        #expect(h.requests(since: mark).count == 1)
        #expect(await h.indexedIDs(.private) == [9_001])
    }

    @Test func anUnbookmarkedWorkIsNotReAddedByAStalePageThatStillHoldsIt() async throws {
        let h = try await PixivHarness()
        h.pixiv.add(illusts(1, count: 40), to: .public)
        await h.syncBoth()

        // The app unbookmarked 40 and 38, but Pixiv still serves the old first page.
        try await h.engine.recordUnbookmark(illustID: 40, restrict: .public)
        try await h.engine.recordUnbookmark(illustID: 38, restrict: .public)
        #expect(await h.store.contains(BookmarkKey(illustID: 40, restrict: .public)) == false)
        #expect(h.pixiv.ids(in: .public).prefix(3) == [40, 39, 38])

        await h.clock.advance(by: 61)
        let mark = h.pixiv.requests.count
        await h.engine.startAutoSync(for: .public)
        await h.run()
        let delta = h.requests(since: mark)
        #expect(delta.count == 1)
        #expect(delta.first?.status == 200)
        #expect(await h.store.contains(BookmarkKey(illustID: 40, restrict: .public)) == false)
        #expect(await h.store.contains(BookmarkKey(illustID: 38, restrict: .public)) == false)
        #expect(await h.store.count(in: .public) == 38)

        // A refresh walks the stale list and still keeps them out; once Pixiv catches up the
        // index equals it.
        await h.engine.refresh(.public)
        await h.run()
        #expect(await h.store.contains(BookmarkKey(illustID: 40, restrict: .public)) == false)
        h.pixiv.unbookmark(illustID: 40)
        h.pixiv.unbookmark(illustID: 38)
        await h.clock.advance(by: 3_600)
        await h.engine.refresh(.public)
        await h.run()
        #expect(await h.indexed(.public) == h.pixiv.bookmarks(in: .public))
    }

    @Test func unbookmarkingANewWorkTheIndexNeverHadDoesNotCutADeltaShort() async throws {
        let h = try await PixivHarness()
        h.pixiv.add(illusts(1, count: 10), to: .public)
        await h.syncBoth()

        // 40 bookmarks made on the web; the app then unbookmarks the newest, which the index
        // never held, while Pixiv still serves it on page 1.
        h.pixiv.add(illusts(1_000, count: 40), to: .public)
        try await h.engine.recordUnbookmark(illustID: 1_039, restrict: .public)
        await h.clock.advance(by: 61)
        let mark = h.pixiv.requests.count
        await h.engine.startAutoSync(for: .public)
        await h.run()

        #expect(h.requests(since: mark).count == 2, "page 1 holds only new works and the unbookmarked one")
        #expect(await h.store.contains(BookmarkKey(illustID: 1_039, restrict: .public)) == false)
        h.pixiv.unbookmark(illustID: 1_039)
        #expect(await h.indexedIDs(.public) == h.pixiv.ids(in: .public), "the works on page 2 are not lost")
    }

    @Test func privateRequestedWhilePublicSyncsIsQueuedAndRequestsNeverOverlapOrCrowd() async throws {
        let h = try await PixivHarness(latency: 0.2)
        h.pixiv.add(illusts(1, count: 130), to: .public)
        h.pixiv.add(illusts(1_000, count: 70), to: .private)

        #expect(await h.engine.startAutoSync(for: .public) == .started)
        #expect(await h.engine.startAutoSync(for: .private) == .queued)
        #expect(await h.engine.startAutoSync(for: .private) == .alreadyScheduled, "the queue holds a list once")
        let status = await h.engine.currentStatus()
        #expect(status.publicList.progress?.mode == .full)
        #expect(status.privateList == .queued)

        // Part-way through the public walk, private still waits.
        await h.clock.run(whileBusy: { h.pixiv.requests.count < 3 })
        #expect(await h.engine.currentStatus().privateList == .queued)
        await h.run()

        let log = h.requests()
        let lists = log.map { $0.restrict ?? .public }
        let firstPrivate = try #require(lists.firstIndex(of: .private))
        #expect(log[..<firstPrivate].allSatisfy { $0.restrict == .public || $0.endpoint == .userDetail })
        #expect(lists[firstPrivate...].allSatisfy { $0 == .private }, "private runs after public, not interleaved")
        #expect(log.count == 1 + 5 + 3)
        #expect(h.transport.maxConcurrentRequests == 1)
        log.checkGaps(atLeast: 0.150 + 0.2)
        h.transport.exchanges.checkPacing()
        #expect(await h.indexed(.private) == h.pixiv.bookmarks(in: .private))
    }

    @Test func aWalkStoppedByTheKillSwitchResumesFromItsCursorWhenSwitchedBackOn() async throws {
        let h = try await PixivHarness(latency: 0.1)
        h.pixiv.add(illusts(1, count: 100), to: .public)
        await h.engine.startAutoSync(for: .public)
        await h.clock.run(whileBusy: { h.transport.startedCount < 4 })
        await h.engine.setIndexingEnabled(false)
        await h.run()
        let stopped = h.requests()
        #expect(stopped.map(\.endpoint) == [.userDetail, .bookmarks, .bookmarks, .bookmarks])
        let cursor = try #require(await h.store.metadata(for: .public).fullWalkPosition)
        #expect(cursor.pagesFetched == 2, "the page in flight when switched off is discarded")

        await h.engine.setIndexingEnabled(true)
        #expect(await h.engine.startAutoSync(for: .public) == .started)
        await h.run()
        let resumed = Array(h.requests().dropFirst(stopped.count))
        #expect(resumed.map(\.endpoint) == [.userDetail, .bookmarks, .bookmarks])
        #expect(resumed[1].query["max_bookmark_id"] == stopped[3].query["max_bookmark_id"])
        #expect(await h.indexed(.public) == h.pixiv.bookmarks(in: .public))
    }

    @Test func theKillSwitchFetchesNothing() async throws {
        let h = try await PixivHarness()
        h.pixiv.add(illusts(1, count: 10), to: .public)
        await h.engine.setIndexingEnabled(false)
        #expect(await h.engine.startAutoSync(for: .public) == .disabled)
        #expect(await h.engine.refresh(.private) == .disabled)
        await h.run()
        #expect(h.pixiv.requests.isEmpty)
        let off = await h.engine.currentStatus()
        #expect(off.publicList == .disabled && off.privateList == .disabled)

        // Switched off in the middle of a walk: it stops after the request in flight.
        let latent = try await PixivHarness(latency: 0.1)
        latent.pixiv.add(illusts(100, count: 80), to: .public)
        await latent.engine.startAutoSync(for: .public)
        await latent.clock.run(whileBusy: { latent.transport.startedCount < 2 })
        #expect(latent.transport.requestsInFlight == 1)
        await latent.engine.setIndexingEnabled(false)
        await latent.run()
        #expect(latent.requests().map(\.endpoint) == [.userDetail, .bookmarks], "user detail, then the page in flight; nothing after")
        #expect(await latent.store.count(in: .public) == 0, "the answer in flight is discarded")
        #expect(await latent.engine.startAutoSync(for: .public) == .disabled)
        await latent.clock.advance(by: 3_600)
        await latent.run()
        #expect(latent.pixiv.requests.count == 2)
        #expect(await latent.engine.currentStatus().publicList == .disabled)
    }
}
