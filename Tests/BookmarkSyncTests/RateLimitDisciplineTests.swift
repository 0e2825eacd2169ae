import BookmarkIndex
import BookmarkIndexTesting
import PixivAPITesting
import BookmarkSyncTesting
import BookmarkSync
import Foundation
import PixivAPI
import Testing

/// The engine against FakePixiv's model of Pixiv's rate limit, on the test clock: the defaults
/// stay under what Pixiv's users report, and a stricter limit is learned.
@Suite struct RateLimitDisciplineTests {
    /// A walk of 12,000 bookmarks against 100 requests per 120 s (a 300 s penalty): at most one
    /// rate-limit answer, no pause, and at most twice the time the limit itself allows.
    @Test func aLargeWalkWithTheDefaultsStaysUnderTheReportedLimit() async throws {
        let h = try await PixivHarness()
        h.pixiv.add(illusts(1, count: 12_000), to: .public)
        let limit = FakePixiv.RateLimit(maxRequests: 100, window: .seconds(120), penalty: .seconds(300))
        h.pixiv.limitRequests(limit)
        await h.engine.startAutoSync(for: .public)
        await h.run()

        let log = h.requests()
        let answered = log.filter { $0.status == 200 }
        #expect(answered.count == 401, "the total, then 400 pages")
        #expect(h.pixiv.rateLimitTrips.isEmpty, "the defaults never trip it: \(h.pixiv.rateLimitTrips)")
        // In any window of two minutes (one minute) at most 87 (54) requests start.
        let starts = log.map(\.timestamp)
        #expect(mostWithin(120, of: starts) <= 87, "\(mostWithin(120, of: starts))")
        #expect(mostWithin(60, of: starts) <= 54, "\(mostWithin(60, of: starts))")
        #expect(await h.engine.currentStatus().publicList.isIdle, "no pause: the walk completed")
        #expect(await h.store.count(in: .public) == 12_000)
        let took = try #require(log.last).timestamp.timeIntervalSince(try #require(log.first).timestamp)
        let optimum = limit.optimalSchedule(requests: 401, minimumSpacing: .milliseconds(150)).timeInterval
        #expect(took <= 2 * optimum, "\(took) s against the limit's \(optimum) s")
        log.checkGaps(atLeast: 0.150)
    }

    /// A walk of 100,000 bookmarks with the defaults against the reported limit: it never sends
    /// more than the day's 3,000 requests in any 24 hours, waits for the day once, lets a delta
    /// asked for meanwhile go out, completes, and ends equal to the server.
    @Test func aHundredThousandBookmarkWalkKeepsTheDaysBudget() async throws {
        let h = try await PixivHarness()
        h.pixiv.add(illusts(1, count: 100_000), to: .public)
        h.pixiv.limitRequests(FakePixiv.RateLimit(maxRequests: 100, window: .seconds(120), penalty: .seconds(300)))
        await h.engine.startAutoSync(for: .public)
        let parked = await h.clock.run(whileBusy: { await !h.engine.currentStatus().publicList.isWaitingForTheDay }, maxSteps: 100_000_000)
        #expect(parked, "the walk reaches the day's budget")
        #expect(h.requests().count == 2_700, "all but the 300 kept for deltas")

        // Meanwhile the user bookmarks two works and opens the app: the delta goes out.
        await h.clock.advance(by: 600)
        h.pixiv.add(illusts(200_001, count: 2), to: .public)
        let mark = h.requests().count
        #expect(await h.engine.startAutoSync(for: .public) == .started)
        _ = await h.clock.run(whileBusy: { await !h.engine.currentStatus().publicList.isWaitingForTheDay })
        #expect(h.requests(since: mark).count == 2, "a page, and the next one's cursor to prove the ground")
        let top = await h.store.bookmarks(in: .public, matching: BookmarkFilter(visibility: .all), limit: 2).map(\.illust.id)
        #expect(top == [200_002, 200_001])

        // Thousands of pages: more steps than the harness's default allows.
        #expect(await h.clock.runUntilIdle(h.engine, maxSteps: 100_000_000), "the walk completes")
        let starts = h.requests().map(\.timestamp)
        #expect(mostWithin(86_400, of: starts) <= 3_000, "\(mostWithin(86_400, of: starts))")
        #expect(h.pixiv.rateLimitTrips.isEmpty)
        #expect(h.requests().count == 3_335 + 2, "the walk's total and 3,334 pages, and the delta's two")
        #expect(await h.indexedIDs(.public) == h.pixiv.ids(in: .public), "complete, equal to the server")
        let took = try #require(starts.last).timeIntervalSince(try #require(starts.first))
        #expect(took > 86_400 && took < 2 * 86_400, "two days' budgets: \(took / 3_600) h")
    }

    /// A limit stricter than the defaults (20 per 60 s) is learned in a few trips; then none,
    /// and no hour-long pause.
    @Test func aStricterLimitIsLearnedInAFewTrips() async throws {
        let h = try await PixivHarness()
        h.pixiv.add(illusts(1, count: 6_000), to: .public)
        h.pixiv.limitRequests(FakePixiv.RateLimit(maxRequests: 20, window: .seconds(60), penalty: .seconds(300)))
        let recorder = await StatusRecorder(h.engine)
        await h.engine.startAutoSync(for: .public)
        await h.run()

        let trips = h.pixiv.rateLimitTrips
        #expect((1...3).contains(trips.count), "\(trips.count) trips")
        let status = await h.engine.currentStatus()
        #expect(status.publicList.isIdle, "\(status.publicList)")
        #expect(await h.store.count(in: .public) == 6_000)
        let log = h.requests()
        let lastTrip = try #require(trips.last)
        let afterLearning = log.filter { $0.timestamp > lastTrip && $0.status == 200 }
        #expect(afterLearning.count > 100, "most of the walk ran after the last trip, without one")
        // Each trip cooled the account down: no request inside five minutes after it.
        for trip in trips {
            #expect(!log.contains { $0.timestamp > trip && $0.timestamp < trip + 300 })
        }
        let statuses = await recorder.statuses(upTo: status)
        #expect(statuses.contains { if case .coolingDown = $0.publicList { true } else { false } })
        #expect(!statuses.contains { if case .paused = $0.publicList { true } else { false } })
    }

    /// A rate limit is the account's: the other list waits out the cooldown too, even when the
    /// list that tripped it has stopped (here it pauses at once).
    @Test func aCooldownHoldsBothLists() async throws {
        let h = try await PixivHarness(configuration: SyncConfiguration(failuresBeforePause: 1))
        h.pixiv.add(illusts(1, count: 90), to: .public)
        h.pixiv.add(illusts(1_000, count: 90), to: .private)
        let first = h.transport.startedCount
        h.transport.setFaultRule { number, _ in number == first + 2 ? .rateLimitBody(status: 403) : nil }
        await h.engine.startAutoSync(for: .public)
        await h.engine.startAutoSync(for: .private)
        let recorder = await StatusRecorder(h.engine)
        await h.run()
        let log = h.requests()
        let trip = try #require(log.first { $0.status == 403 }).timestamp
        let firstPrivate = try #require(log.first { $0.restrict == .private }).timestamp
        #expect(firstPrivate >= trip + 300, "the private list waited out the public list's cooldown")
        guard case .paused = await h.engine.currentStatus().publicList else {
            Issue.record("the public list paused at its first trip")
            return
        }
        #expect(await h.indexed(.private) == h.pixiv.bookmarks(in: .private))
        let statuses = await recorder.statuses(upTo: await h.engine.currentStatus())
        #expect(statuses.contains { $0.privateList == .coolingDown(until: trip + 300) }, "the waiting list says why")
    }

    /// A walk's time left is the pages left at the current pace, for a list whose total is known.
    @Test func aWalkShowsItsTimeLeft() async throws {
        let h = try await PixivHarness()
        h.pixiv.add(illusts(1, count: 3_000), to: .public)
        let recorder = await StatusRecorder(h.engine)
        await h.engine.startAutoSync(for: .public)
        await h.run()
        let statuses = await recorder.statuses(upTo: await h.engine.currentStatus())
        let estimates = statuses.compactMap { status -> (Int, TimeInterval)? in
            guard case .syncing(let progress) = status.publicList, let left = progress.estimatedTimeLeft else { return nil }
            return (progress.pagesFetched, left)
        }
        // After the total and one page: 99 pages left, 18 of the burst at the floor, 81 at 1.8 s.
        let early = try #require(estimates.first { $0.0 == 1 })
        #expect(abs(early.1 - (0.15 + 18 * 0.15 + 80 * 1.8)) < 2, "\(early.1)")
        // It shrinks as the walk goes (within the floor's wobble between a request and its answer).
        #expect(zip(estimates, estimates.dropFirst()).allSatisfy { $1.1 <= $0.1 + 2 })
        #expect(estimates.count > 90)
        #expect((estimates.last?.1 ?? 99) < 2)
    }

    /// The retry after a refreshed token goes through the engine's budget like any other
    /// request: after the burst it waits the sustained interval, and it counts as no failure.
    @Test func theRetryAfterARefreshedTokenIsPacedByTheBudget() async throws {
        let clock = TestClock()
        let pixiv = FakePixiv(userID: PixivHarness.userID, now: { clock.now }, sleep: clock.sleep(for:))
        let tokens = RefreshTokenProvider(refreshToken: pixiv.refreshToken, transport: pixiv, now: { clock.now })
        let h = try await PixivHarness(clock: clock, pixiv: pixiv, tokens: tokens)
        h.pixiv.add(illusts(1, count: 30 * 25), to: .public)
        let first = h.transport.startedCount
        // The 23rd request (past the burst of 20) finds its token expired.
        h.transport.setFaultRule { number, _ in number == first + 22 ? .accessTokenExpired : nil }
        await h.engine.startAutoSync(for: .public)
        await h.run()
        let pages = h.requests().filter { $0.endpoint == .bookmarks }
        let rejected = try #require(pages.firstIndex { $0.status == 400 })
        #expect(pages[rejected + 1].status == 200)
        let gap = pages[rejected + 1].timestamp.timeIntervalSince(pages[rejected].timestamp)
        #expect(gap >= 1.8 - dateTolerance, "paced at the sustained interval, not 150 ms: \(gap)")
        #expect(await h.engine.currentStatus().publicList.isIdle)
        #expect(await h.store.count(in: .public) == 750)
    }

    /// A token refused again right after a refresh is a credential to renew, not a loop.
    @Test func aFreshTokenRefusedTooStopsAsUnauthorized() async throws {
        let clock = TestClock()
        let pixiv = FakePixiv(userID: PixivHarness.userID, now: { clock.now }, sleep: clock.sleep(for:))
        let tokens = RefreshTokenProvider(refreshToken: pixiv.refreshToken, transport: pixiv, now: { clock.now })
        let h = try await PixivHarness(clock: clock, pixiv: pixiv, tokens: tokens)
        h.pixiv.add(illusts(1, count: 60), to: .public)
        h.pixiv.enqueue(.accessTokenExpired, for: .bookmarks, count: 5)
        await h.engine.startAutoSync(for: .public)
        await h.run()
        guard case .failed(let error) = await h.engine.currentStatus().publicList else {
            Issue.record("the sync stops")
            return
        }
        #expect(error.code == .unauthorized)
        #expect(h.requests().filter { $0.endpoint == .bookmarks }.count == 2, "one retry with the fresh token, no more")
    }
}
