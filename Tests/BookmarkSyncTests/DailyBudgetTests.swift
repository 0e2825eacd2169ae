import BookmarkIndex
import BookmarkIndexTesting
@testable import BookmarkSync
import Foundation
import Testing

/// The day's request budget, counted in quarter hours.
@Suite struct DailyRequestLedgerTests {
    let t0 = Date(timeIntervalSinceReferenceDate: 900 * 2_000_000 + 100)

    @Test func aDayIsCountedAndFreedBucketByBucket() throws {
        var ledger = DailyRequestLedger()
        for second in stride(from: 0.0, to: 10, by: 1) { ledger.record(at: t0 + second) }
        ledger.record(at: t0 + 3_600)
        #expect(ledger.spent(at: t0 + 3_600) == 11)
        #expect(ledger.nextAllowed(limit: 12, now: t0 + 3_600) == t0 + 3_600, "under the limit: now")
        // At the limit: the first ten leave the window once their bucket is a day behind.
        let next = try #require(ledger.nextAllowed(limit: 11, now: t0 + 3_600))
        let bucketStart = Date(timeIntervalSinceReferenceDate: 900 * 2_000_000)
        #expect(next == bucketStart + 86_400 + 900)
        #expect(next.timeIntervalSince(t0) >= 86_400, "never fewer than 24 hours after the requests it frees")
        #expect(ledger.spent(at: next) == 1)
        #expect(ledger.nextAllowed(limit: 0, now: t0) == nil)
    }

    @Test func theBoundHoldsInEveryWindowOfADay() {
        // Requests as fast as the ledger allows at a limit of 50, over three days.
        var ledger = DailyRequestLedger()
        var starts: [Date] = []
        var now = t0
        while now < t0 + 3 * 86_400 {
            guard let allowed = ledger.nextAllowed(limit: 50, now: now) else { break }
            now = max(now, allowed)
            ledger.record(at: now)
            starts.append(now)
            now += 97
        }
        #expect(starts.count > 100, "it keeps going day after day: \(starts.count)")
        #expect(mostWithin(86_400, of: starts) <= 50)
    }

    @Test func itRoundTripsAndMergesWithoutLosingARequest() throws {
        var a = DailyRequestLedger()
        a.record(at: t0)
        a.record(at: t0 + 1)
        var b = a
        b.record(at: t0 + 2_000)
        a.record(at: t0 + 4_000)
        // Saved with the list's record, and read back from it.
        var record = ListSyncRecord()
        record.dailySpend = a
        let data = try #require(record.json())
        #expect(ListSyncRecord(record.stored(in: BookmarkIndexMetadata())).dailySpend == a)
        #expect(try JSONDecoder().decode([String: DailyRequestLedger].self, from: data)["spend"] == a)
        #expect(a.merged(with: b).spent(at: t0 + 4_000) == 4, "2 in the first bucket (in both), 1 in b's, 1 in a's")
        #expect(throws: (any Error).self) { try JSONDecoder().decode(DailyRequestLedger.self, from: Data(#"{"start":1,"counts":[-1]}"#.utf8)) }
    }

    @Test func aClockSteppedBackStillCountsWhatWasSpent() {
        var ledger = DailyRequestLedger()
        for second in 0..<5 { ledger.record(at: t0 + 86_400 + Double(second)) }
        // The clock goes back a day: the requests "ahead" still count, and fold into now's bucket.
        #expect(ledger.spent(at: t0) == 5)
        ledger.record(at: t0)
        #expect(ledger.spent(at: t0) == 6)
        #expect(ledger.counts.keys.count == 1)
    }
}

/// The engine against the day's budget, with a small one so the tests read quickly.
@Suite struct DailyBudgetTests {
    /// 20 requests a day, 5 of them kept for deltas.
    let small = SyncConfiguration(dailyRequestLimit: 20, dailyRequestsKeptForDeltas: 5)

    @Test func aWalkWaitsForTheDayResumesAndCompletesWithinTheBound() async throws {
        let h = try await Harness(configuration: small)
        h.source.add(illusts(1, count: 30 * 40), to: .public)
        #expect(await h.engine.startAutoSync(for: .public) == .started)
        // Run until the walk has spent the walks' share and waits.
        let waiting = await h.clock.run(whileBusy: { await !h.engine.currentStatus().publicList.isWaitingForTheDay })
        #expect(waiting)
        #expect(h.source.requests.count == 15, "the total and 14 pages: 20 less the 5 kept for deltas")
        let status = await h.engine.currentStatus()
        guard case .waitingForDailyBudget(let until, let progress) = status.publicList else {
            Issue.record("\(status.publicList)")
            return
        }
        let first = try #require(h.source.requests.first).startedAt
        #expect(until.timeIntervalSince(first) >= 86_400, "not before the first request is a day old")
        #expect(until.timeIntervalSince(first) <= 86_400 + 900)
        #expect(progress.pagesFetched == 14)
        #expect(status.dailyRequests == DailyRequestUsage(spent: 15, limit: 20, keptForDeltas: 5))
        #expect(!(await h.engine.isIdle), "the walk is still under way")
        #expect(await h.engine.refresh(.public) == .alreadyScheduled)

        await h.run()
        #expect(await h.indexedIDs(.public) == h.serverIDs(.public), "the walk completed, equal to the server")
        #expect(mostWithin(86_400, of: h.source.requests.map(\.startedAt)) <= 15, "a walk never spends the deltas' share")
        #expect(h.source.requests.count == 41, "the total and 40 pages, each once")
    }

    @Test func aDeltaAskedForWhileTheWalkWaitsGoesOut() async throws {
        let h = try await Harness(configuration: small)
        // The private list synced once; the public one walks and waits for the day.
        h.source.add(illusts(100_000, count: 10), to: .private)
        h.source.add(illusts(1, count: 30 * 40), to: .public)
        await h.engine.startAutoSync(for: .private)
        await h.run()
        await h.engine.startAutoSync(for: .public)
        _ = await h.clock.run(whileBusy: { await !h.engine.currentStatus().publicList.isWaitingForTheDay })
        let spentByWalks = h.source.requests.count
        // The private list's total is counted though Pixiv tells it without a request (the
        // engine cannot know): the error is on the safe side.
        #expect(spentByWalks == 14)

        // New works on both lists: each list's delta goes out from the share kept for deltas.
        await h.clock.advance(by: 120)
        h.source.add(illusts(200_000, count: 3), to: .private)
        h.source.add(illusts(300_000, count: 3), to: .public)
        #expect(await h.engine.startAutoSync(for: .private) == .started)
        _ = await h.clock.run(whileBusy: { await h.store.count(in: .private) < 13 })
        #expect(await h.indexedIDs(.private) == h.serverIDs(.private))
        #expect(await h.engine.startAutoSync(for: .public) == .started, "what's new in the walking list too")
        _ = await h.clock.run(whileBusy: { await !h.engine.currentStatus().publicList.isWaitingForTheDay })
        let top = await h.store.bookmarks(in: .public, matching: BookmarkFilter(visibility: .all), limit: 3).map(\.illust.id)
        #expect(top == [300_002, 300_001, 300_000], "the new works are on top of the feed")
        #expect(h.source.requests.count == spentByWalks + 3, "a page for the private list; two for the public one, the second proving the ground")

        await h.run()
        #expect(await h.indexedIDs(.public) == h.serverIDs(.public))
        #expect(mostWithin(86_400, of: h.source.requests.map(\.startedAt)) <= 20)
    }

    @Test func theSpendOutlivesARelaunch() async throws {
        let h = try await Harness(configuration: small)
        h.source.add(illusts(1, count: 30 * 40), to: .public)
        await h.engine.startAutoSync(for: .public)
        _ = await h.clock.run(whileBusy: { await !h.engine.currentStatus().publicList.isWaitingForTheDay })
        await shutDown(h.engine, on: h.clock)

        let relaunched = try await h.restarted()
        #expect(await relaunched.engine.currentStatus().dailyRequests?.spent == 15, "the spend was saved")
        await h.clock.advance(by: 3_600)
        #expect(await relaunched.engine.refresh(.public) == .started)
        await relaunched.run()
        #expect(await relaunched.indexedIDs(.public) == h.serverIDs(.public))
        #expect(mostWithin(86_400, of: h.source.requests.map(\.startedAt)) <= 15)
    }

    @Test func theCostOfAWalkIsToldBeforeItStarts() async throws {
        let h = try await Harness()
        #expect(await h.engine.fullWalkCost(of: .public) == nil, "nothing tells how many")
        let cost = try #require(await h.engine.fullWalkCost(of: .public, bookmarkCount: 100_000))
        #expect(cost.requests == 3_335)
        #expect(cost.basis == .given)
        #expect(cost.requestsLeftToday == 2_700)
        #expect(cost.waitsForDailyBudget)
        #expect(cost.duration > 86_400 && cost.duration < 2 * 86_400, "two days' budgets: \(cost.duration)")
        let small = try #require(await h.engine.fullWalkCost(of: .public, bookmarkCount: 570))
        #expect(small.requests == 20 && !small.waitsForDailyBudget)
        #expect(abs(small.duration - 19 * 0.150) < 0.01, "the burst at the floor: \(small.duration)")

        h.source.add(illusts(1, count: 95), to: .public)
        await h.engine.startAutoSync(for: .public)
        await h.run()
        let after = try #require(await h.engine.fullWalkCost(of: .public))
        #expect(after.bookmarks == 95 && after.requests == 5)
        guard case .pixivTotal = after.basis else {
            Issue.record("the total Pixiv told: \(after.basis)")
            return
        }
        let unbounded = try await Harness(configuration: SyncConfiguration(dailyRequestLimit: nil))
        let free = try #require(await unbounded.engine.fullWalkCost(of: .public, bookmarkCount: 100_000))
        #expect(free.requestsLeftToday == nil && !free.waitsForDailyBudget && free.duration < 86_400)
    }
}

extension ListSyncStatus {
    var isWaitingForTheDay: Bool {
        if case .waitingForDailyBudget = self { return true }
        return false
    }
}
