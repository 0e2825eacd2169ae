import BookmarkIndex
import BookmarkIndexTesting
import BookmarkSync
import Foundation
import Synchronization
import Testing

/// The product's test plan for the sync engine, against the fake source and a test clock.
@Suite struct BookmarkSyncEngineTests {
    @Test func firstSyncIndexesBothListsWithRisingProgressAndReturnsToIdle() async throws {
        let h = try await Harness()
        h.source.add(illusts(1_000, count: 75), to: .public)
        h.source.add(illusts(5_000, count: 40), to: .private)
        let recorder = await StatusRecorder(h.engine)

        #expect(await h.engine.startAutoSync(for: .public) == .started)
        #expect(await h.engine.startAutoSync(for: .private) == .queued)
        await h.run()

        #expect(await h.indexedIDs(.public) == h.serverIDs(.public))
        #expect(await h.indexedIDs(.private) == h.serverIDs(.private))
        let rowOfNewest = await h.store.bookmark(for: BookmarkKey(illustID: 1_074, restrict: .public))
        #expect(rowOfNewest?.illust.tags.map(\.name) == ["t4", "common"])

        let final = await h.engine.currentStatus()
        #expect(final.publicList.isIdle && final.privateList.isIdle)
        guard case .idle(let lastFull, _) = final.publicList else { return }
        #expect(lastFull != nil)

        let statuses = await recorder.statuses(upTo: final)
        let publicPages = statuses.compactMap { $0.publicList.progress?.pagesFetched }
        #expect(publicPages.first == 0)
        #expect(publicPages.last == 2, "the third and last of 75 bookmarks' pages ends the sync")
        #expect(publicPages == publicPages.sorted(), "progress only rises")
        let publicIndexed = statuses.compactMap { $0.publicList.progress?.indexedCount }
        #expect(publicIndexed.contains(30) && publicIndexed.contains(60))
        #expect(statuses.contains { $0.publicList.progress?.knownTotal == 75 }, "the public total is shown")
        #expect(statuses.contains { $0.publicList.progress?.latestIllust != nil })
        #expect(statuses.contains { $0.publicList.progress != nil && $0.privateList == .queued })
        #expect(statuses.compactMap { $0.privateList.progress?.pagesFetched }.last == 1)
        h.source.requests.checkPacing()
    }

    @Test func autoSyncWithinCooldownFetchesNothingAndALaterEmptyDeltaCostsOneRequest() async throws {
        let h = try await Harness()
        h.source.add(illusts(1, count: 70), to: .public)
        await h.engine.startAutoSync(for: .public)
        await h.run()
        h.source.clearLog()

        await h.clock.advance(by: 30)
        #expect(await h.engine.startAutoSync(for: .public) == .recentlySynced(until: h.clock.now + 30))
        await h.run()
        #expect(h.source.requests.isEmpty)

        await h.clock.advance(by: 31)
        #expect(await h.engine.startAutoSync(for: .public) == .started)
        await h.run()
        #expect(h.source.requests.map(\.kind) == [.firstPage])
        #expect(await h.indexedIDs(.public) == h.serverIDs(.public))
        #expect(await h.store.metadata(for: .public).lastDeltaSync == h.clock.now)
    }

    @Test func aWeekLaterAutoWalksFullyAndPrunesBookmarksRemovedOnTheWeb() async throws {
        let h = try await Harness()
        h.source.add(illusts(1, count: 95), to: .public)
        await h.engine.startAutoSync(for: .public)
        await h.run()
        for id in [3, 40, 41, 77, 95] { h.source.remove(illustID: id, from: .public) }
        h.source.clearLog()

        await h.clock.advance(by: 6 * 86_400)
        await h.engine.startAutoSync(for: .public)
        await h.run()
        #expect(h.source.requests.map(\.kind) == [.firstPage], "within 7 days auto is a delta")
        #expect(await h.store.count(in: .public) == 95, "a delta prunes nothing")

        h.source.clearLog()
        await h.clock.advance(by: 86_400 + 1)
        await h.engine.startAutoSync(for: .public)
        await h.run()
        #expect(h.source.requests.first?.kind == .total)
        #expect(h.source.requests.filter { $0.kind != .total }.count == 3)
        #expect(await h.indexedIDs(.public) == h.serverIDs(.public))
        #expect(await h.store.count(in: .public) == 90)
    }

    @Test func aFullWalkFailingMidwayPrunesNothingAndResumesFromItsCursorAfterARestart() async throws {
        let h = try await Harness()
        h.source.add(illusts(1, count: 100), to: .public)
        await h.engine.startAutoSync(for: .public)
        await h.run()
        for id in [2, 50, 99] { h.source.remove(illustID: id, from: .public) }
        h.source.add(illusts(500, count: 4), to: .public)

        // The walk gets its first two pages, then the server says the response is garbage.
        await h.clock.advance(by: 3_600)
        let calls = Counter()
        h.source.setFaultRule { kind, _ in
            guard case .nextPage = kind else { return nil }
            return calls.next() == 1 ? BookmarkSyncError(.undecodable, "truncated body") : nil
        }
        h.source.clearLog()
        #expect(await h.engine.refresh(.public) == .started)
        await h.run()
        #expect(h.source.requests.count == 4, "total, page 1, page 2, failed page 3")
        #expect(await h.store.count(in: .public) == 104, "nothing is pruned before the walk completes")
        let cursor = try #require(await h.store.metadata(for: .public).fullWalkPosition)
        #expect(cursor.pagesFetched == 2)
        guard case .failed(let error) = await h.engine.currentStatus().publicList else {
            Issue.record("the failure is shown")
            return
        }
        #expect(error.code == .undecodable)

        // Restart: a new engine on the same storage resumes the walk from its cursor.
        h.source.setFaultRule(nil)
        h.source.clearLog()
        let restarted = try await h.restarted()
        #expect(await restarted.engine.startAutoSync(for: .public) == .started, "an unfinished walk is resumed by auto")
        await restarted.run()
        let kinds = h.source.requests.map(\.kind)
        #expect(kinds.first == .total)
        #expect(!kinds.contains(.firstPage), "the walk resumes, it does not start over")
        #expect(kinds.dropFirst().first == .nextPage(cursor.nextPage))
        #expect(await restarted.indexedIDs(.public) == h.serverIDs(.public))
        #expect(await restarted.store.metadata(for: .public).fullWalkPosition == nil)
    }

    @Test func inAppMutationsUpdateTheIndexAndATombstoneKeepsAStalePageFromReAdding() async throws {
        let h = try await Harness()
        h.source.add(illusts(1, count: 40), to: .public)
        await h.syncBoth()

        let made = illust(9_001, tags: ["オリジナル", "sky"])
        h.source.add([made], to: .private)
        try await h.engine.recordBookmark(made, restrict: .private)
        let row = try #require(await h.store.bookmark(for: BookmarkKey(illustID: 9_001, restrict: .private)))
        #expect(row.restrict == .private)
        #expect(row.illust.tags == [ArtworkTag(name: "オリジナル"), ArtworkTag(name: "sky")])
        #expect(await h.store.bookmark(for: BookmarkKey(illustID: 9_001, restrict: .public)) == nil)

        // Unbookmark the newest public work; the server's cache still serves the old first page.
        h.source.serveStaleFirstPage(of: .public)
        h.source.remove(illustID: 40, from: .public)
        try await h.engine.recordUnbookmark(illustID: 40, restrict: .public)
        #expect(await h.store.contains(BookmarkKey(illustID: 40, restrict: .public)) == false)

        await h.clock.advance(by: 61)
        h.source.clearLog()
        await h.engine.startAutoSync(for: .public)
        await h.run()
        #expect(h.source.requests.map(\.kind) == [.firstPage])
        #expect(await h.store.contains(BookmarkKey(illustID: 40, restrict: .public)) == false)
        #expect(await h.indexedIDs(.public) == h.serverIDs(.public))
    }

    /// The tombstone is kept with the index: an app restarted within its lifetime still keeps
    /// a stale page from re-adding the work; once it has expired the server's page wins.
    @Test func aTombstoneSurvivesARestart() async throws {
        let h = try await Harness()
        h.source.add(illusts(1, count: 40), to: .public)
        await h.syncBoth()
        // The cache goes on serving the old first page, with work 40, for both syncs below.
        h.source.serveStaleFirstPage(of: .public, times: 2)
        h.source.remove(illustID: 40, from: .public)
        try await h.engine.recordUnbookmark(illustID: 40, restrict: .public)

        await h.clock.advance(by: 61)
        let restarted = try await h.restarted()
        h.source.clearLog()
        await restarted.engine.startAutoSync(for: .public)
        await restarted.run()
        #expect(h.source.requests.map(\.kind) == [.firstPage])
        #expect(await restarted.store.contains(BookmarkKey(illustID: 40, restrict: .public)) == false)
        #expect(await restarted.store.metadata(for: .public).unbookmarkedInApp.keys.sorted() == [40])

        // Ten minutes on, a page that still holds the work is believed again.
        await h.clock.advance(by: 600)
        let later = try await restarted.restarted()
        await later.engine.startAutoSync(for: .public)
        await later.run()
        #expect(await later.store.contains(BookmarkKey(illustID: 40, restrict: .public)), "the stale page re-adds it once the tombstone expired")
        #expect(await later.store.metadata(for: .public).unbookmarkedInApp.isEmpty)
    }

    /// A pause is kept with the index: a process started again during it (a cron job running
    /// `bookmarks sync`, an app relaunched) sends nothing until it ends.
    @Test func aPauseSurvivesARestart() async throws {
        let h = try await Harness()
        h.source.add(illusts(1, count: 40), to: .public)
        await h.syncBoth()
        await h.clock.advance(by: 61)
        h.source.setFaultRule { _, _ in BookmarkSyncError(.rateLimited, "429", retryAfter: 7_200) }
        #expect(await h.engine.startAutoSync(for: .public) == .started)
        await h.run()
        let pausedAt = h.clock.now
        guard case .paused(let until, let reason) = await h.engine.currentStatus().publicList else {
            Issue.record("a two-hour Retry-After pauses the list")
            return
        }
        #expect(until == pausedAt + 7_200)
        // The pause as an app reads it from the list's record.
        let pause = try #require(ListSyncRecord(await h.store.metadata(for: .public)).pause)
        #expect(pause.until == until && pause.code == "rateLimited" && pause.message == reason.message)

        h.source.setFaultRule(nil)
        h.source.clearLog()
        let restarted = try await h.restarted()
        #expect(await restarted.engine.currentStatus().publicList == .paused(until: until, reason: BookmarkSyncError(.rateLimited, reason.message)))
        #expect(await restarted.engine.startAutoSync(for: .public) == .paused(until: until))
        await restarted.run()
        #expect(h.source.requests.isEmpty, "nothing is sent during the pause")

        // Once it has passed, the next sync runs and its first page clears the record.
        await h.clock.advance(by: 7_200)
        #expect(await restarted.engine.startAutoSync(for: .public) == .started)
        await restarted.run()
        #expect(h.source.requests.map(\.kind) == [.firstPage])
        #expect(await restarted.store.metadata(for: .public).pause == nil)
    }

    @Test func privateRequestedWhilePublicSyncsIsQueuedAndRequestsNeverOverlapOrCrowd() async throws {
        let h = try await Harness(latency: 0.2)
        h.source.add(illusts(1, count: 130), to: .public)
        h.source.add(illusts(1_000, count: 70), to: .private)

        await h.engine.startAutoSync(for: .public)
        #expect(await h.engine.startAutoSync(for: .private) == .queued)
        #expect(await h.engine.startAutoSync(for: .private) == .alreadyScheduled, "the queue holds a list once")
        let status = await h.engine.currentStatus()
        #expect(status.publicList.progress?.mode == .full)
        #expect(status.privateList == .queued)
        await h.run()

        let requests = h.source.requests
        let restricts = requests.map(\.restrict)
        let firstPrivate = try #require(restricts.firstIndex(of: .private))
        #expect(restricts[..<firstPrivate].allSatisfy { $0 == .public })
        #expect(restricts[firstPrivate...].allSatisfy { $0 == .private }, "private runs after public, not interleaved")
        #expect(h.source.maxConcurrentRequests == 1)
        requests.checkPacing()
        #expect(await h.indexedIDs(.private) == h.serverIDs(.private))
    }

    /// A rate-limit answer cools the account down for five minutes (and slows the pace: one
    /// request per 3.6 s, the halved rate), a server error backs off, and three such failures
    /// in a row pause the list for an hour.
    @Test func aRateLimitCoolsDownAServerErrorBacksOffAndThreeInARowPause() async throws {
        let h = try await Harness()
        h.source.add(illusts(1, count: 10), to: .public)
        await h.syncBoth()
        await h.clock.advance(by: 61)
        h.source.clearLog()
        let recorder = await StatusRecorder(h.engine)

        h.source.failNext(BookmarkSyncError(.rateLimited, "429"))
        h.source.failNext(BookmarkSyncError(.server, "503"))
        h.source.failNext(BookmarkSyncError(.rateLimited, "Rate Limit"))
        await h.engine.startAutoSync(for: .public)
        await h.run()

        let failed = h.source.requests
        #expect(failed.count == 3)
        #expect(failed[1].startedAt.timeIntervalSince(failed[0].endedAt) == 300, "a cooldown, not a quick retry")
        // The 2 s backoff is shorter than the halved rate's 3.6 s between request starts.
        #expect(abs(failed[2].startedAt.timeIntervalSince(failed[1].startedAt) - 3.6) < 1e-6)
        let pausedUntil = failed[2].endedAt + 3_600
        let status = await h.engine.currentStatus()
        #expect(status.publicList == .paused(until: pausedUntil, reason: BookmarkSyncError(.rateLimited, "Rate Limit")))
        let statuses = await recorder.statuses(upTo: status)
        #expect(statuses.contains { $0.publicList == .coolingDown(until: failed[0].endedAt + 300) })
        #expect(statuses.contains { $0.publicList == .backingOff(until: failed[1].endedAt + 2, attempt: 2) })

        // During the pause a user intent fetches nothing; after it, the intent runs again.
        await h.clock.advance(by: 1_800)
        #expect(await h.engine.startAutoSync(for: .public) == .paused(until: pausedUntil))
        #expect(await h.engine.refresh(.public) == .paused(until: pausedUntil))
        await h.run()
        #expect(h.source.requests.count == 3)
        await h.clock.advance(to: pausedUntil)
        #expect(await h.engine.startAutoSync(for: .public) == .started)
        await h.run()
        #expect(h.source.requests.count == 4)
        #expect(h.source.requests[3].fault == nil)
        #expect(await h.engine.currentStatus().publicList.isIdle)
    }

    @Test func aLongerRetryAfterLengthensTheCooldown() async throws {
        let h = try await Harness()
        h.source.add(illusts(1, count: 10), to: .public)
        h.source.failNext(BookmarkSyncError(.rateLimited, "429", retryAfter: 600))
        await h.engine.startAutoSync(for: .public)
        await h.run()
        let requests = h.source.requests
        #expect(requests.count == 3, "total fails, then total and one page")
        #expect(requests[1].startedAt.timeIntervalSince(requests[0].endedAt) == 600)
        #expect(await h.indexedIDs(.public) == h.serverIDs(.public))
    }

    @Test func anAuthFailureIsNotRetriedAndTheStatusShowsIt() async throws {
        let h = try await Harness()
        h.source.add(illusts(1, count: 10), to: .private)
        h.source.failNext(BookmarkSyncError(.unauthorized, "invalid_grant"))
        await h.engine.startAutoSync(for: .private)
        await h.run()
        #expect(h.source.requests.count == 1)
        #expect(await h.engine.currentStatus().privateList == .failed(BookmarkSyncError(.unauthorized, "invalid_grant")))
        #expect(await h.store.count(in: .private) == 0)
    }

    @Test func theKillSwitchFetchesNothing() async throws {
        let h = try await Harness()
        h.source.add(illusts(1, count: 10), to: .public)
        await h.engine.setIndexingEnabled(false)
        #expect(await h.engine.startAutoSync(for: .public) == .disabled)
        #expect(await h.engine.refresh(.private) == .disabled)
        await h.run()
        #expect(h.source.requests.isEmpty)
        let off = await h.engine.currentStatus()
        #expect(off.publicList == .disabled && off.privateList == .disabled)

        // Switched off in the middle of a walk: it stops after the request in flight.
        await h.engine.setIndexingEnabled(true)
        h.source.add(illusts(100, count: 80), to: .public)
        await h.engine.startAutoSync(for: .public)
        await h.clock.run(whileBusy: { h.source.requests.count < 2 })
        await h.engine.setIndexingEnabled(false)
        await h.run()
        let made = h.source.requests.count
        #expect(made <= 3)
        #expect(await h.store.count(in: .public) < 90)
        #expect(await h.engine.startAutoSync(for: .public) == .disabled)
        await h.run()
        #expect(h.source.requests.count == made)
    }

    /// 65 new works fill three pages; the fourth page's cursor proves known ground.
    @Test(arguments: BookmarkCursorMeaning.allCases)
    func sixtyFiveNewBookmarksCostFourRequests(meaning: BookmarkCursorMeaning) async throws {
        let h = try await Harness()
        h.source.cursorMeaning = meaning
        await h.syncInFull(publicCount: 50)
        h.source.add(illusts(1_000, count: 65), to: .public)
        await h.clock.advance(by: 120)
        h.source.clearLog()

        await h.engine.startAutoSync(for: .public)
        await h.run()
        let kinds = h.source.requests.map(\.kind)
        #expect(kinds.count == 4)
        #expect(kinds.first == .firstPage)
        #expect(await h.indexedIDs(.public) == h.serverIDs(.public), "new rows land on top in Pixiv's order")
    }
}

/// A thread-safe counter for fault rules.
final class Counter: Sendable {
    private let value = Mutex(0)
    /// Returns the next value, starting at 0.
    func next() -> Int {
        value.withLock { value in
            defer { value += 1 }
            return value
        }
    }
}
