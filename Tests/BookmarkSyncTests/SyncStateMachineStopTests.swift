@testable import BookmarkSync
import BookmarkIndex
import Foundation
import Testing

/// Stopping one list's sync (or every list's, at a shutdown) in the decision core: a request
/// out is let finish and its page written; nothing else of the list runs.
@Suite struct SyncStateMachineStopTests {
    let t0 = Date(timeIntervalSince1970: 1_780_000_000)

    private func page(_ ids: [Int], next: String?) -> BookmarkPage {
        BookmarkPage(illusts: ids.map { illust($0) }, nextPage: next, nextPageBookmarkID: next == nil ? nil : ids.last)
    }

    /// Starts a full walk of the public list and answers its total: the first page is next.
    private func walking(_ machine: inout SyncStateMachine, index: BookmarkIndexState) {
        #expect(machine.request(.public, intent: .auto, index: index, now: t0) == .started)
        if case .fetch(.total) = machine.nextAction(index: index, now: t0) { machine.totalFetched(90, now: t0 + 0.1) }
    }

    @Test func aStopWithAPageInFlightWritesThePageThenEnds() {
        var machine = SyncStateMachine()
        var state = BookmarkIndexState()
        walking(&machine, index: state)
        #expect(machine.nextAction(index: state, now: t0 + 1) == .fetch(.firstPage(.public)))
        machine.stop(.public)
        // The answer is still written, with the walk's cursor.
        state.apply(machine.pageFetched(page(Array((61...90).reversed()), next: "p2"), index: state, now: t0 + 1.1))
        #expect(state.count(in: .public) == 30)
        #expect(ListSyncRecord(state.metadata(for: .public)).fullWalkPosition != nil)
        #expect(machine.nextAction(index: state, now: t0 + 2) == .idle)
        #expect(machine.status(index: state, now: t0 + 2).publicList.isIdle)
    }

    @Test func aStopBetweenRequestsEndsAtOnceAndLeavesTheOtherList() {
        var machine = SyncStateMachine()
        let state = BookmarkIndexState()
        walking(&machine, index: state)
        #expect(machine.request(.private, intent: .auto, index: state, now: t0) == .queued)
        machine.stop(.public)
        // The private list, queued behind it, runs now.
        let next = machine.nextAction(index: state, now: t0 + 1)
        #expect(next == .fetch(.total(.private)) || next == .fetch(.firstPage(.private)))
    }

    @Test func aStoppedQueuedSyncNeverRuns() {
        var machine = SyncStateMachine()
        let state = BookmarkIndexState()
        walking(&machine, index: state)
        #expect(machine.request(.private, intent: .auto, index: state, now: t0) == .queued)
        machine.stop(.private)
        machine.stop(.public)
        #expect(machine.nextAction(index: state, now: t0 + 1) == .idle)
        #expect(!machine.hasWork)
    }

    @Test func aRateLimitAnswerToAStoppedSyncStillCoolsTheAccount() {
        var machine = SyncStateMachine()
        let state = BookmarkIndexState()
        walking(&machine, index: state)
        _ = machine.nextAction(index: state, now: t0 + 1)
        machine.stop(.public)
        let edits = machine.fetchFailed(BookmarkSyncError(.rateLimited, "Rate Limit"), index: state, now: t0 + 1.1)
        #expect(!edits.isEmpty, "the learned pacing is written")
        // A new sync waits out the cooldown.
        #expect(machine.request(.public, intent: .manual, index: state, now: t0 + 2) == .started)
        guard case .wait(let until) = machine.nextAction(index: state, now: t0 + 2) else {
            Issue.record("expected a wait for the cooldown")
            return
        }
        #expect(until >= t0 + 1.1 + machine.configuration.rateLimitCooldown - 1e-6)
    }

    @Test func aWithdrawnRequestGoesAgainAndTheDayIsNotShort() {
        var machine = SyncStateMachine()
        let state = BookmarkIndexState()
        walking(&machine, index: state)
        #expect(machine.nextAction(index: state, now: t0 + 1) == .fetch(.firstPage(.public)))
        machine.requestWithdrawn(now: (t0 + 1).moment)
        #expect(machine.nextAction(index: state, now: t0 + 2) == .fetch(.firstPage(.public)))
    }

    @Test func anEgressCooldownHoldsTheAccountWithoutSlowingItsPace() {
        var machine = SyncStateMachine()
        let state = BookmarkIndexState()
        walking(&machine, index: state)
        #expect(machine.nextAction(index: state, now: t0 + 1) == .fetch(.firstPage(.public)))
        let until = (t0 + 301).moment.instant
        machine.egressCoolingDown(until: until, now: (t0 + 1.1).moment)
        #expect(machine.nextAction(index: state, now: t0 + 2) == .wait(until: t0 + 301))
        #expect(!machine.budget.isLearning, "the address's refusal teaches the account's pace nothing")
        #expect(machine.memory[.public]?.consecutiveFailures == 0)
        #expect(machine.nextAction(index: state, now: t0 + 301) == .fetch(.firstPage(.public)))
    }
}
