@testable import BookmarkSync
import BookmarkIndex
import Foundation
import Testing

/// The decision core, driven synchronously: every event carries its `now`, no clock exists.
@Suite struct SyncStateMachineTests {
    let t0 = Date(timeIntervalSince1970: 1_780_000_000)

    private func index(publicIDs: [Int] = [], metadata: BookmarkIndexMetadata = BookmarkIndexMetadata(), seenAt: Date? = nil) -> BookmarkIndexState {
        var state = BookmarkIndexState()
        for (i, id) in publicIDs.enumerated() {
            state.apply(.upsert(IndexedBookmark(
                illust: illust(id), restrict: .public, serverOrder: ServerOrder.walkOrder(index: i, below: nil),
                firstIndexedAt: seenAt ?? t0, lastSeenAt: seenAt ?? t0
            )))
        }
        state.apply(.setMetadata(withKnownGround(metadata, publicIDs: publicIDs), for: .public))
        return state
    }

    /// Pages whose bookmark IDs are their illust IDs (newer works have higher IDs here), the
    /// cursor naming the page's last.
    private func page(_ ids: [Int], next: String?) -> BookmarkPage {
        BookmarkPage(illusts: ids.map { illust($0) }, nextPage: next, nextPageBookmarkID: next == nil ? nil : ids.last)
    }

    @Test func autoPicksFullWhenNeverSyncedOrAWeekOldAndDeltaOtherwise() {
        var machine = SyncStateMachine()
        #expect(machine.request(.public, intent: .auto, index: index(), now: t0) == .started)
        #expect(machine.nextAction(index: index(), now: t0) == .fetch(.total(.public)), "a full walk asks for the total first")

        let fresh = index(metadata: BookmarkIndexMetadata(lastFullSync: t0))
        var recent = SyncStateMachine()
        #expect(recent.request(.public, intent: .auto, index: fresh, now: t0 + 61) == .started)
        #expect(recent.nextAction(index: fresh, now: t0 + 61) == .fetch(.firstPage(.public)), "delta")

        var old = SyncStateMachine()
        let weekLater = t0 + 7 * 86_400 + 1
        #expect(old.request(.public, intent: .auto, index: fresh, now: weekLater) == .started)
        #expect(old.nextAction(index: fresh, now: weekLater) == .fetch(.total(.public)), "full")

        var manual = SyncStateMachine()
        #expect(manual.request(.public, intent: .manual, index: fresh, now: t0 + 61) == .started)
        #expect(manual.nextAction(index: fresh, now: t0 + 61) == .fetch(.total(.public)), "a refresh is always full")
    }

    @Test func cooldownRefusesAnAutoSyncWithin60Seconds() {
        var machine = SyncStateMachine()
        let synced = index(metadata: BookmarkIndexMetadata(lastFullSync: t0 - 100, lastDeltaSync: t0))
        #expect(machine.request(.public, intent: .auto, index: synced, now: t0 + 59) == .recentlySynced(until: t0 + 60))
        #expect(!machine.hasWork)
        #expect(machine.request(.public, intent: .auto, index: synced, now: t0 + 60) == .started)
    }

    @Test func aDeltaFollowsAllNewPagesAndStopsAtTheFirstKnownID() throws {
        var machine = SyncStateMachine()
        let known = index(publicIDs: [10, 9, 8], metadata: BookmarkIndexMetadata(lastFullSync: t0))
        let now = t0 + 100
        _ = machine.request(.public, intent: .auto, index: known, now: now)
        #expect(machine.nextAction(index: known, now: now) == .fetch(.firstPage(.public)))
        let first = machine.pageFetched(page([30, 29, 28], next: "a"), index: known, now: now)
        #expect(first.count == 4, "three new rows and the metadata")
        #expect(machine.nextAction(index: known, now: now) == .wait(until: now + 0.15), "requests are paced")
        #expect(machine.nextAction(index: known, now: now + 0.15) == .fetch(.nextPage("a", .public)))
        var state = known
        state.apply(first)
        let second = machine.pageFetched(page([27, 10, 9], next: "b"), index: state, now: now + 0.15)
        state.apply(second)
        #expect(!machine.hasWork, "a page holding a known ID ends the delta")
        #expect(state.metadata(for: .public).lastDeltaSync == now + 0.15)
        let ids = state.allBookmarks(in: .public).map(\.illust.id)
        #expect(ids == [30, 29, 28, 27, 10, 9, 8], "new rows go on top in page order")
    }

    @Test func aFullWalkSavesItsCursorAndPrunesOnlyAfterTheLastPage() {
        var machine = SyncStateMachine()
        var state = index(publicIDs: [5, 4, 3, 2, 1], seenAt: t0 - 1_000)
        _ = machine.request(.public, intent: .manual, index: state, now: t0)
        #expect(machine.nextAction(index: state, now: t0) == .fetch(.total(.public)))
        machine.totalFetched(4, now: t0)
        #expect(machine.nextAction(index: state, now: t0 + 1) == .fetch(.firstPage(.public)))
        state.apply(machine.pageFetched(page([6, 5], next: "p2"), index: state, now: t0 + 1))
        #expect(state.count(in: .public) == 6, "nothing is pruned mid-walk")
        let cursor = state.metadata(for: .public).fullWalkPosition
        #expect(cursor?.nextPage == "p2")
        #expect(cursor?.startedAt == t0)
        #expect(cursor?.pagesFetched == 1)

        // A failure that is not retried ends the walk: still nothing pruned, cursor kept.
        #expect(machine.nextAction(index: state, now: t0 + 2) == .fetch(.nextPage("p2", .public)))
        machine.fetchFailed(BookmarkSyncError(.undecodable, "x"), now: t0 + 2)
        #expect(!machine.hasWork)

        // The next attempt resumes at the cursor and prunes 4 and 1, which it never saw.
        var next = SyncStateMachine()
        _ = next.request(.public, intent: .auto, index: state, now: t0 + 3)
        #expect(next.nextAction(index: state, now: t0 + 3) == .fetch(.total(.public)))
        next.totalFetched(nil, now: t0 + 3)
        #expect(next.nextAction(index: state, now: t0 + 4) == .fetch(.nextPage("p2", .public)))
        state.apply(next.pageFetched(page([3, 2], next: nil), index: state, now: t0 + 4))
        #expect(state.allBookmarks(in: .public).map(\.illust.id) == [6, 5, 3, 2])
        #expect(state.metadata(for: .public).fullWalkPosition == nil)
        #expect(state.metadata(for: .public).lastFullSync == t0 + 4)
    }

    @Test func backoffDoublesFromOneSecondCapsAt30AndALongerRetryAfterWins() {
        let configuration = SyncConfiguration()
        #expect((1...7).map { configuration.backoff(attempt: $0, retryAfter: nil) } == [1, 2, 4, 8, 16, 30, 30])
        #expect(configuration.backoff(attempt: 1, retryAfter: 20) == 20)
        #expect(configuration.backoff(attempt: 5, retryAfter: 3) == 16)
    }

    @Test func threeRetryableFailuresInARowPauseTheListForAnHour() {
        var machine = SyncStateMachine()
        let state = index(metadata: BookmarkIndexMetadata(lastFullSync: t0))
        _ = machine.request(.public, intent: .auto, index: state, now: t0 + 100)
        var now = t0 + 100
        #expect(machine.nextAction(index: state, now: now) == .fetch(.firstPage(.public)))
        machine.fetchFailed(BookmarkSyncError(.server, "500"), now: now)
        #expect(machine.status(index: state, now: now).publicList == .backingOff(until: now + 1, attempt: 1))
        #expect(machine.nextAction(index: state, now: now) == .wait(until: now + 1))
        now += 1
        #expect(machine.nextAction(index: state, now: now) == .fetch(.firstPage(.public)))
        machine.fetchFailed(BookmarkSyncError(.server, "502"), now: now)
        #expect(machine.nextAction(index: state, now: now) == .wait(until: now + 2))
        now += 2
        #expect(machine.nextAction(index: state, now: now) == .fetch(.firstPage(.public)))
        machine.fetchFailed(BookmarkSyncError(.transport, "timeout"), now: now)
        #expect(machine.nextAction(index: state, now: now) == .idle)
        #expect(machine.status(index: state, now: now).publicList == .paused(until: now + 3_600, reason: BookmarkSyncError(.transport, "timeout")))
        #expect(machine.request(.public, intent: .manual, index: state, now: now + 3_599) == .paused(until: now + 3_600))
        #expect(machine.request(.public, intent: .auto, index: state, now: now + 3_600) == .started)
    }

    /// A `Retry-After` as long as a pause pauses the list at once (a backoff would hold the
    /// one request stream, and the other list's sync, that long); a pause honours a longer
    /// `Retry-After`; and no header, however far off, pauses a list for more than a day.
    @Test func aLongRetryAfterPausesTheListUntilThenWithinADay() {
        var machine = SyncStateMachine()
        let state = index(metadata: BookmarkIndexMetadata(lastFullSync: t0))
        var now = t0 + 100
        _ = machine.request(.public, intent: .auto, index: state, now: now)
        #expect(machine.request(.private, intent: .auto, index: state, now: now) == .queued)
        #expect(machine.nextAction(index: state, now: now) == .fetch(.firstPage(.public)))
        let twoHours = BookmarkSyncError(.rateLimited, "429", retryAfter: 7_200)
        machine.fetchFailed(twoHours, now: now)
        #expect(machine.status(index: state, now: now).publicList == .paused(until: now + 7_200, reason: twoHours))
        // The server's wait is the account's: the private list's sync waits for it, cooling down.
        #expect(machine.nextAction(index: state, now: now + 0.15) == .wait(until: now + 7_200))
        #expect(machine.status(index: state, now: now + 0.15).privateList == .coolingDown(until: now + 7_200))
        #expect(machine.nextAction(index: state, now: now + 7_200) == .fetch(.total(.private)))

        // Three failures in a row, the last with a Retry-After of 90 minutes: paused for 90.
        machine = SyncStateMachine()
        now = t0 + 100
        _ = machine.request(.public, intent: .auto, index: state, now: now)
        for retryAfter in [nil, nil, 5_400.0] {
            #expect(machine.nextAction(index: state, now: now) == .fetch(.firstPage(.public)))
            machine.fetchFailed(BookmarkSyncError(.server, "503", retryAfter: retryAfter), now: now)
            now += 2
        }
        now -= 2
        #expect(machine.status(index: state, now: now).publicList == .paused(until: now + 5_400, reason: BookmarkSyncError(.server, "503", retryAfter: 5_400)))

        // Ten days: a day.
        machine = SyncStateMachine()
        now = t0 + 100
        _ = machine.request(.public, intent: .auto, index: state, now: now)
        #expect(machine.nextAction(index: state, now: now) == .fetch(.firstPage(.public)))
        let tenDays = BookmarkSyncError(.server, "503", retryAfter: 864_000)
        machine.fetchFailed(tenDays, now: now)
        #expect(machine.status(index: state, now: now).publicList == .paused(until: now + 86_400, reason: tenDays))
        #expect(machine.request(.public, intent: .manual, index: state, now: now + 86_400) == .started)

        // Shorter than a pause: a backoff of that length.
        machine = SyncStateMachine()
        now = t0 + 100
        _ = machine.request(.public, intent: .auto, index: state, now: now)
        _ = machine.nextAction(index: state, now: now)
        machine.fetchFailed(BookmarkSyncError(.server, "503", retryAfter: 3_599), now: now)
        #expect(machine.status(index: state, now: now).publicList == .backingOff(until: now + 3_599, attempt: 1))

        // With no Retry-After, only the count of failures pauses, whatever the pause length.
        machine = SyncStateMachine(configuration: SyncConfiguration(pauseDuration: 0))
        now = t0 + 100
        _ = machine.request(.public, intent: .auto, index: state, now: now)
        _ = machine.nextAction(index: state, now: now)
        machine.fetchFailed(BookmarkSyncError(.server, "502"), now: now)
        #expect(machine.status(index: state, now: now).publicList == .backingOff(until: now + 1, attempt: 1))
    }

    @Test func nonRetryableFailuresEndTheSyncAndShow() {
        var machine = SyncStateMachine()
        _ = machine.request(.private, intent: .auto, index: index(), now: t0)
        #expect(machine.nextAction(index: index(), now: t0) == .fetch(.total(.private)))
        machine.fetchFailed(BookmarkSyncError(.unauthorized, "dead token"), now: t0)
        #expect(machine.nextAction(index: index(), now: t0 + 100) == .idle)
        #expect(machine.status(index: index(), now: t0).privateList == .failed(BookmarkSyncError(.unauthorized, "dead token")))
    }

    @Test func oneDeduplicatedQueueAcrossBothLists() {
        var machine = SyncStateMachine()
        let state = index()
        #expect(machine.request(.public, intent: .auto, index: state, now: t0) == .started)
        #expect(machine.request(.private, intent: .auto, index: state, now: t0) == .queued)
        #expect(machine.request(.private, intent: .manual, index: state, now: t0) == .alreadyScheduled)
        #expect(machine.request(.public, intent: .auto, index: state, now: t0) == .alreadyScheduled)
        let status = machine.status(index: state, now: t0)
        #expect(status.publicList.progress?.mode == .full)
        #expect(status.privateList == .queued)

        // Public finishes (empty list), then private starts.
        #expect(machine.nextAction(index: state, now: t0) == .fetch(.total(.public)))
        machine.totalFetched(0, now: t0)
        #expect(machine.nextAction(index: state, now: t0 + 1) == .fetch(.firstPage(.public)))
        _ = machine.pageFetched(page([], next: nil), index: state, now: t0 + 1)
        #expect(machine.nextAction(index: state, now: t0 + 1) == .wait(until: t0 + 1.15), "pacing holds across lists")
        #expect(machine.nextAction(index: state, now: t0 + 1.15) == .fetch(.total(.private)))
    }

    @Test func theKillSwitchStopsEverythingAndDiscardsTheAnswerInFlight() {
        var machine = SyncStateMachine()
        let state = index()
        _ = machine.request(.public, intent: .auto, index: state, now: t0)
        _ = machine.request(.private, intent: .auto, index: state, now: t0)
        #expect(machine.nextAction(index: state, now: t0) == .fetch(.total(.public)))
        machine.setEnabled(false)
        machine.totalFetched(3, now: t0)
        #expect(machine.pageFetched(page([1], next: nil), index: state, now: t0).isEmpty)
        #expect(machine.nextAction(index: state, now: t0 + 10) == .idle)
        #expect(machine.request(.public, intent: .manual, index: state, now: t0 + 10) == .disabled)
        let off = machine.status(index: state, now: t0)
        #expect(off.publicList == .disabled && off.privateList == .disabled)
        machine.setEnabled(true)
        #expect(!machine.hasWork, "switching back on starts nothing by itself")
    }

    /// Switching indexing off and on again while a request is in flight: a new request for the
    /// same list is not swallowed by the cancelled job.
    @Test func aRequestAfterTheKillSwitchIsFlippedBackRunsOnceTheCancelledRequestReturns() {
        var machine = SyncStateMachine()
        let state = index(publicIDs: [3, 2, 1], metadata: BookmarkIndexMetadata(lastFullSync: t0))
        #expect(machine.request(.public, intent: .auto, index: state, now: t0 + 100) == .started)
        #expect(machine.nextAction(index: state, now: t0 + 100) == .fetch(.firstPage(.public)))
        machine.setEnabled(false)
        machine.setEnabled(true)
        #expect(machine.request(.public, intent: .auto, index: state, now: t0 + 101) == .queued)
        // The cancelled request's answer is discarded; the new request then runs.
        #expect(machine.pageFetched(page([3, 2, 1], next: nil), index: state, now: t0 + 101).isEmpty)
        #expect(machine.nextAction(index: state, now: t0 + 102) == .fetch(.firstPage(.public)))
    }

    /// The manual refresh forces a full sync, even when a delta of the list is running.
    @Test func aRefreshDuringADeltaRunsAFullWalkAfterIt() {
        var machine = SyncStateMachine()
        var state = index(publicIDs: [3, 2, 1], metadata: BookmarkIndexMetadata(lastFullSync: t0 - 3_600))
        #expect(machine.request(.public, intent: .auto, index: state, now: t0) == .started)
        #expect(machine.nextAction(index: state, now: t0) == .fetch(.firstPage(.public)))
        #expect(machine.request(.public, intent: .manual, index: state, now: t0) == .queued)
        #expect(machine.request(.public, intent: .manual, index: state, now: t0) == .alreadyScheduled)
        state.apply(machine.pageFetched(page([3, 2, 1], next: nil), index: state, now: t0 + 1))
        #expect(machine.nextAction(index: state, now: t0 + 2) == .fetch(.total(.public)), "then a full walk")
    }

    /// The wall clock stepping back during a walk (a user changing the time, a bad NTP step)
    /// must not make the walk prune the rows it has just seen.
    @Test func aClockSteppingBackDuringAWalkPrunesOnlyUnseenRows() {
        var machine = SyncStateMachine()
        var state = index(publicIDs: [4, 3, 2, 1], metadata: BookmarkIndexMetadata(lastFullSync: t0 - 8 * 86_400), seenAt: t0 - 8 * 86_400)
        let start = t0 + 1_000
        #expect(machine.request(.public, intent: .auto, index: state, now: start) == .started)
        #expect(machine.nextAction(index: state, now: start) == .fetch(.total(.public)))
        machine.totalFetched(3, now: start)
        #expect(machine.nextAction(index: state, now: start + 1) == .fetch(.firstPage(.public)))
        state.apply(machine.pageFetched(page([4], next: "p2"), index: state, now: start + 1))
        // The wall clock steps back an hour before the second page; the monotonic one goes on.
        func at(_ seconds: TimeInterval) -> SyncMoment {
            SyncMoment(instant: (start + 1 + seconds).moment.instant, date: start - 3_600 + 1 + seconds)
        }
        #expect(machine.nextAction(index: state, moment: at(0)) == .wait(until: start + 1.15), "the spacing, not an hour")
        #expect(machine.nextAction(index: state, moment: at(0.15)) == .fetch(.nextPage("p2", .public)))
        state.apply(machine.pageFetched(page([3], next: "p3"), index: state, moment: at(0.15)))
        #expect(machine.nextAction(index: state, moment: at(0.3)) == .fetch(.nextPage("p3", .public)))
        state.apply(machine.pageFetched(page([2], next: nil), index: state, moment: at(0.3)))
        #expect(state.allBookmarks(in: .public).map(\.illust.id) == [4, 3, 2], "1 was removed on the web; 3, seen after the step, stays")
    }

    @Test func tombstonesSkipRowsUntilTheyExpireOrAFullWalkBegunLaterCompletes() {
        var machine = SyncStateMachine()
        var state = index(publicIDs: [3, 2, 1], metadata: BookmarkIndexMetadata(lastFullSync: t0))
        state.apply(machine.recordUnbookmark(BookmarkKey(illustID: 3, restrict: .public), index: state, now: t0 + 100))
        #expect(machine.isTombstoned(BookmarkKey(illustID: 3, restrict: .public), index: state, now: t0 + 100))
        #expect(!machine.isTombstoned(BookmarkKey(illustID: 3, restrict: .public), index: state, now: t0 + 100 + 600))

        _ = machine.request(.public, intent: .auto, index: state, now: t0 + 200)
        _ = machine.nextAction(index: state, now: t0 + 200)
        state.apply(machine.pageFetched(page([3, 2, 1], next: nil), index: state, now: t0 + 200))
        #expect(!state.contains(BookmarkKey(illustID: 3, restrict: .public)), "a stale page does not re-add it")

        // A full walk that began after the unbookmark clears the tombstone when it completes.
        _ = machine.request(.public, intent: .manual, index: state, now: t0 + 300)
        _ = machine.nextAction(index: state, now: t0 + 300)
        machine.totalFetched(2, now: t0 + 300)
        _ = machine.nextAction(index: state, now: t0 + 301)
        state.apply(machine.pageFetched(page([2, 1], next: nil), index: state, now: t0 + 301))
        #expect(!machine.isTombstoned(BookmarkKey(illustID: 3, restrict: .public), index: state, now: t0 + 302))

        // An in-app bookmark goes on top with its tags.
        let made = illust(7, tags: ["sky"])
        state.apply(machine.recordBookmark(made, restrict: .public, index: state, now: t0 + 400))
        #expect(state.allBookmarks(in: .public).first?.illust == made)
    }

    @Test func aTombstonedWorkTheIndexNeverHeldDoesNotEndADelta() {
        var machine = SyncStateMachine()
        var state = index(publicIDs: [3, 2, 1], metadata: BookmarkIndexMetadata(lastFullSync: t0))
        // The app unbookmarked 40, a work bookmarked on the web that the index never held.
        state.apply(machine.recordUnbookmark(BookmarkKey(illustID: 40, restrict: .public), index: state, now: t0 + 100))

        #expect(machine.request(.public, intent: .auto, index: state, now: t0 + 200) == .started)
        #expect(machine.nextAction(index: state, now: t0 + 200) == .fetch(.firstPage(.public)))
        state.apply(machine.pageFetched(page([40, 39, 38], next: "p2"), index: state, now: t0 + 200))
        #expect(machine.nextAction(index: state, now: t0 + 201) == .fetch(.nextPage("p2", .public)),
                "every ID on page 1 but the tombstoned one is new: the delta goes on")
        state.apply(machine.pageFetched(page([37, 3, 2], next: "p3"), index: state, now: t0 + 201))
        #expect(machine.nextAction(index: state, now: t0 + 202) == .idle, "page 2 holds known IDs")
        #expect(state.allBookmarks(in: .public).map(\.illust.id) == [39, 38, 37, 3, 2, 1])
    }
}
