@testable import BookmarkSync
import BookmarkIndex
import Foundation
import Testing

/// Edge cases of the decision core found in review: deltas around re-bookmarks and in-app
/// bookmarks, refreshes queued behind a delta, saved cursors that cannot be followed.
@Suite struct SyncStateMachineEdgeTests {
    let t0 = Date(timeIntervalSince1970: 1_780_000_000)

    private func index(publicIDs: [Int], lastFullSync: Date, seenAt: Date) -> BookmarkIndexState {
        var state = BookmarkIndexState()
        for (i, id) in publicIDs.enumerated() {
            state.apply(.upsert(IndexedBookmark(
                illust: illust(id), restrict: .public, serverOrder: ServerOrder.walkOrder(index: i, below: nil),
                firstIndexedAt: seenAt, lastSeenAt: seenAt
            )))
        }
        state.apply(.setMetadata(withKnownGround(BookmarkIndexMetadata(lastFullSync: lastFullSync), publicIDs: publicIDs), for: .public))
        return state
    }

    /// Pages whose bookmark IDs are their illust IDs, the cursor naming the page's last.
    private func page(_ ids: [Int], next: String?) -> BookmarkPage {
        BookmarkPage(illusts: ids.map { illust($0) }, nextPage: next, nextPageBookmarkID: next == nil ? nil : ids.last)
    }

    /// On the web: 30 new bookmarks, then work 8 bookmarked again (it moves to the top). Page 1
    /// is [8, 40…12]: its only known row is out of place, so it is no sign the delta is done.
    @Test func aReBookmarkedWorkOnTopOfNewWorksDoesNotEndTheDelta() {
        var machine = SyncStateMachine()
        var state = index(publicIDs: [10, 9, 8, 7], lastFullSync: t0, seenAt: t0)
        #expect(machine.request(.public, intent: .auto, index: state, now: t0 + 100) == .started)
        _ = machine.nextAction(index: state, now: t0 + 100)
        state.apply(machine.pageFetched(page([8] + Array((12...40).reversed()), next: "p2"), index: state, now: t0 + 100))
        #expect(machine.nextAction(index: state, now: t0 + 101) == .fetch(.nextPage("p2", .public)))
        state.apply(machine.pageFetched(page([11, 10, 9, 7], next: nil), index: state, now: t0 + 101))
        #expect(state.allBookmarks(in: .public).map(\.illust.id) == [8] + Array((9...40).reversed()).filter { $0 != 8 } + [7])
    }

    /// A bookmark the app records while a delta of its list runs is not confirmed by that delta.
    @Test func aBookmarkRecordedDuringADeltaStaysUnconfirmed() {
        var machine = SyncStateMachine()
        var state = index(publicIDs: [10, 9, 8], lastFullSync: t0, seenAt: t0)
        _ = machine.request(.public, intent: .auto, index: state, now: t0 + 100)
        _ = machine.nextAction(index: state, now: t0 + 100)
        state.apply(machine.pageFetched(page([20, 19, 18], next: "a"), index: state, now: t0 + 100))
        state.apply(machine.recordBookmark(illust(50), restrict: .public, index: state, now: t0 + 100.1))
        _ = machine.nextAction(index: state, now: t0 + 100.2)
        state.apply(machine.pageFetched(page([17, 10, 9], next: "b"), index: state, now: t0 + 100.2))
        #expect(!machine.hasWork)
        // The next delta: page 1 is [60, 50]; 45, bookmarked on the web before 50, is on page 2.
        #expect(machine.request(.public, intent: .auto, index: state, now: t0 + 300) == .started)
        _ = machine.nextAction(index: state, now: t0 + 300)
        state.apply(machine.pageFetched(page([60, 50], next: "c"), index: state, now: t0 + 300))
        #expect(machine.nextAction(index: state, now: t0 + 301) == .fetch(.nextPage("c", .public)))
    }

    /// A refresh queued behind a delta that then pauses the list does not run during the pause.
    @Test func aRefreshQueuedBehindAPausedDeltaWaitsOutThePause() {
        var machine = SyncStateMachine()
        let state = index(publicIDs: [3, 2, 1], lastFullSync: t0 - 3_600, seenAt: t0 - 3_600)
        #expect(machine.request(.public, intent: .auto, index: state, now: t0) == .started)
        #expect(machine.nextAction(index: state, now: t0) == .fetch(.firstPage(.public)))
        #expect(machine.request(.public, intent: .manual, index: state, now: t0) == .queued)
        var now = t0
        machine.fetchFailed(BookmarkSyncError(.rateLimited, "429"), now: now)
        for _ in 0..<2 {
            if case .wait(let until) = machine.nextAction(index: state, now: now) { now = until }
            #expect(machine.nextAction(index: state, now: now) == .fetch(.firstPage(.public)))
            machine.fetchFailed(BookmarkSyncError(.rateLimited, "429"), now: now)
        }
        guard case .paused = machine.status(index: state, now: now + 1).publicList else {
            Issue.record("expected a pause")
            return
        }
        #expect(machine.nextAction(index: state, now: now + 1) == .idle)
        #expect(machine.request(.public, intent: .manual, index: state, now: now + 1) == .paused(until: now + 3_600))
    }

    /// After an error retrying would not fix, nothing of the list runs until the user asks
    /// again, and the status shows the error; the next sync that completes clears it.
    @Test func aRefreshQueuedBehindAFailingDeltaIsDroppedAndTheFailureShows() {
        var machine = SyncStateMachine()
        var state = index(publicIDs: [3, 2, 1], lastFullSync: t0 - 3_600, seenAt: t0 - 3_600)
        _ = machine.request(.public, intent: .auto, index: state, now: t0)
        _ = machine.nextAction(index: state, now: t0)
        #expect(machine.request(.public, intent: .manual, index: state, now: t0) == .queued)
        machine.fetchFailed(BookmarkSyncError(.unauthorized, "401"), now: t0)
        #expect(machine.nextAction(index: state, now: t0 + 1) == .idle)
        guard case .failed = machine.status(index: state, now: t0 + 1).publicList else {
            Issue.record("expected the failure to show")
            return
        }
        #expect(machine.request(.public, intent: .manual, index: state, now: t0 + 2) == .started)
        #expect(machine.nextAction(index: state, now: t0 + 2) == .fetch(.total(.public)))
        machine.totalFetched(3, now: t0 + 2)
        _ = machine.nextAction(index: state, now: t0 + 3)
        state.apply(machine.pageFetched(page([3, 2, 1], next: nil), index: state, now: t0 + 3))
        #expect(machine.status(index: state, now: t0 + 4).publicList.isIdle)
    }

    /// A refresh asked for during a delta, but within the refresh cooldown, says so instead of
    /// claiming to be queued and never running.
    @Test func aRefreshDuringADeltaWithinItsCooldownSaysSo() {
        var machine = SyncStateMachine(configuration: SyncConfiguration(deltaCooldown: 60, refreshCooldown: 600))
        let state = index(publicIDs: [3, 2, 1], lastFullSync: t0, seenAt: t0)
        #expect(machine.request(.public, intent: .auto, index: state, now: t0 + 100) == .started)
        _ = machine.nextAction(index: state, now: t0 + 100)
        #expect(machine.request(.public, intent: .manual, index: state, now: t0 + 100) == .recentlySynced(until: t0 + 600))
    }

    /// A saved cursor that fails in a way retrying will not fix (a URL on another host, say)
    /// is abandoned: the next walk starts from the first page.
    @Test func aCursorThatCannotBeFollowedIsAbandoned() {
        var machine = SyncStateMachine()
        var state = index(publicIDs: [3, 2, 1], lastFullSync: t0 - 8 * 86_400, seenAt: t0 - 8 * 86_400)
        var metadata = state.metadata(for: .public)
        metadata.fullWalkPosition = FullWalkPosition(nextPage: "https://elsewhere.example/next", startedAt: t0 - 100, pagesFetched: 4, nextServerOrder: -200)
        state.apply(.setMetadata(metadata, for: .public))
        #expect(machine.request(.public, intent: .auto, index: state, now: t0) == .started)
        #expect(machine.nextAction(index: state, now: t0) == .fetch(.total(.public)))
        machine.totalFetched(3, now: t0)
        #expect(machine.nextAction(index: state, now: t0 + 1) == .fetch(.nextPage("https://elsewhere.example/next", .public)))
        machine.fetchFailed(BookmarkSyncError(.other, "refused: another host"), now: t0 + 1)

        #expect(machine.request(.public, intent: .auto, index: state, now: t0 + 2) == .started)
        #expect(machine.nextAction(index: state, now: t0 + 2) == .fetch(.total(.public)))
        machine.totalFetched(3, now: t0 + 2)
        #expect(machine.nextAction(index: state, now: t0 + 3) == .fetch(.firstPage(.public)), "a fresh walk")
    }

    /// The kill switch flipped off and on while a page is written in the store's turn: the
    /// page's outcome comes back as an event, the job ends, and the next intent runs — no
    /// request is left in flight forever.
    @Test func theKillSwitchFlippedDuringAPageWriteLeavesAWorkingMachine() {
        var machine = SyncStateMachine()
        var state = index(publicIDs: [3, 2, 1], lastFullSync: t0, seenAt: t0)
        _ = machine.request(.public, intent: .auto, index: state, now: t0 + 100)
        #expect(machine.nextAction(index: state, now: t0 + 100) == .fetch(.firstPage(.public)))
        guard case .write(let work) = machine.pageArrived(facts: AccountFacts(state), now: t0 + 101) else {
            Issue.record("an answer to a running job is written")
            return
        }
        let (changes, outcome) = work.decide(page([4, 3, 2, 1], next: nil), index: state, now: t0 + 101)  // the store's turn
        state.apply(changes)
        machine.setEnabled(false)                   // meanwhile, on the engine
        machine.setEnabled(true)
        #expect(machine.request(.public, intent: .manual, index: state, now: t0 + 101) == .queued)
        machine.pageWritten(outcome, now: t0 + 101)
        #expect(machine.nextAction(index: state, now: t0 + 102) == .fetch(.total(.public)), "the refresh asked for meanwhile runs")
        #expect(state.allBookmarks(in: .public).map(\.illust.id) == [4, 3, 2, 1], "the page written stays")
    }

    /// Waits are on the monotonic clock: a wall clock stepped back an hour does not stretch a 1 s
    /// backoff, or a cooldown, into an hour's wait, and one stepped forward a day does not cut
    /// one short; the status shows each wait's end on the wall clock as it now reads.
    @Test func aSteppedWallClockNeitherStretchesNorCutsAWait() {
        var machine = SyncStateMachine()
        let state = index(publicIDs: [3, 2, 1], lastFullSync: t0, seenAt: t0)
        var (wall, monotonic) = (t0 + 100, t0 + 100)
        func now() -> SyncMoment { SyncMoment(instant: monotonic.moment.instant, date: wall) }
        _ = machine.request(.public, intent: .auto, index: state, now: wall)
        _ = machine.nextAction(index: state, moment: now())
        machine.fetchFailed(BookmarkSyncError(.server, "502"), now: now())
        wall -= 3_600
        #expect(machine.nextAction(index: state, moment: now()) == .wait(until: monotonic + 1))
        #expect(machine.status(index: state, moment: now()).publicList == .backingOff(until: wall + 1, attempt: 1))
        (wall, monotonic) = (wall + 1, monotonic + 1)
        #expect(machine.nextAction(index: state, moment: now()) == .fetch(.firstPage(.public)))
        machine.fetchFailed(BookmarkSyncError(.rateLimited, "Rate Limit"), now: now())
        wall -= 7_200
        #expect(machine.nextAction(index: state, moment: now()) == .wait(until: monotonic + 300))
        #expect(machine.status(index: state, moment: now()).publicList == .coolingDown(until: wall + 300))
        wall += 86_400
        #expect(machine.nextAction(index: state, moment: now()) == .wait(until: monotonic + 300), "a day forward cuts nothing")
        (wall, monotonic) = (wall + 300, monotonic + 300)
        #expect(machine.nextAction(index: state, moment: now()) == .fetch(.firstPage(.public)))
    }
}

/// The engine's reads of the store can complete out of order; what it decides and shows is
/// built on the newest.
@Suite struct NewestFactsTests {
    @Test func aReadOlderThanOneTakenIsAnsweredWithTheNewer() {
        var older = BookmarkIndexState()
        older.apply(.setMetadata(BookmarkIndexMetadata(lastFullSync: Date(timeIntervalSince1970: 1)), for: .public))
        var newer = older
        newer.apply(.setMetadata(BookmarkIndexMetadata(lastFullSync: Date(timeIntervalSince1970: 2)), for: .public))
        var newest = NewestFacts()
        #expect(newest.offer(AccountFacts(newer)).publicList.metadata.lastFullSync == Date(timeIntervalSince1970: 2))
        let answered = newest.offer(AccountFacts(older))
        #expect(answered.publicList.metadata.lastFullSync == Date(timeIntervalSince1970: 2), "the stale read is not used")
        #expect(answered.revision == newer.revision)
        var later = newer
        later.apply(.setMetadata(BookmarkIndexMetadata(lastFullSync: Date(timeIntervalSince1970: 3)), for: .public))
        #expect(newest.offer(AccountFacts(later)).publicList.metadata.lastFullSync == Date(timeIntervalSince1970: 3))
    }

    @Test func theRecordCacheDecodesAgainOnlyWhenTheBytesChange() {
        var record = ListSyncRecord()
        record.unbookmarkedInApp = [7: Date(timeIntervalSince1970: 10)]
        var state = BookmarkIndexState()
        state.apply(.setMetadata(record.stored(in: BookmarkIndexMetadata()), for: .private))
        var cache = SyncRecordCache()
        #expect(cache.facts(of: state).privateList.record.unbookmarkedInApp == [7: Date(timeIntervalSince1970: 10)])
        record.unbookmarkedInApp = [8: Date(timeIntervalSince1970: 20)]
        state.apply(.setMetadata(record.stored(in: BookmarkIndexMetadata()), for: .private))
        #expect(cache.facts(of: state).privateList.record.unbookmarkedInApp == [8: Date(timeIntervalSince1970: 20)], "new bytes, new record")
        state.apply(.setMetadata(BookmarkIndexMetadata(), for: .private))
        #expect(cache.facts(of: state).privateList.record.unbookmarkedInApp.isEmpty, "a reset record reads empty")
    }
}
