import BookmarkIndex
import Foundation

/// Syncs an app waits for: a pull to refresh held until the first page is written, or until
/// the sync's outcome.
extension BookmarkSyncEngine {
    /// Someone waiting for a list's sync.
    struct ListWaiter: Sendable {
        var milestone: SyncMilestone
        var continuation: CheckedContinuation<SyncOutcome, Never>
    }

    /// ``refresh(_:)``, returning when the sync reaches `milestone`: with
    /// ``SyncMilestone/firstPage``, once the list's first page is written (a pull-to-refresh
    /// spinner can stop there: the feed is current at its top, and the walk goes on); with
    /// ``SyncMilestone/finished``, with the sync's outcome. A refused refresh returns at once
    /// (``SyncOutcome/refused(_:)``); a refresh already running or queued is waited for.
    ///
    /// With a test clock, drive time meanwhile (`TestClock.runUntilIdle(_:)` in a task of its own).
    public func refresh(_ restrict: Restrict, until milestone: SyncMilestone) async -> SyncOutcome {
        await requestAndWait(restrict, .manual, until: milestone)
    }

    /// ``startAutoSync(for:)``, returning when the sync reaches `milestone` (see
    /// ``refresh(_:until:)``).
    public func startAutoSync(for restrict: Restrict, until milestone: SyncMilestone) async -> SyncOutcome {
        await requestAndWait(restrict, .auto, until: milestone)
    }

    /// Returns when `restrict`'s list has no sync running or queued, and no walk waiting for
    /// the day's budget (at once when it has none); the other list may still sync.
    public func waitUntilIdle(_ restrict: Restrict) async {
        guard machine.isActive(restrict, parked: true) else { return }
        _ = await withCheckedContinuation { idleListWaiters[restrict, default: []].append($0) }
    }

    private func requestAndWait(_ restrict: Restrict, _ intent: SyncStateMachine.Intent, until milestone: SyncMilestone) async -> SyncOutcome {
        machine.completedLastJob.remove(restrict)
        let outcome = await request(restrict, intent)
        switch outcome {
        case .recentlySynced, .paused, .disabled, .stopped: return .refused(outcome)
        case .started, .queued, .alreadyScheduled: break
        }
        guard machine.isActive(restrict) else { return settledOutcome(of: restrict) }
        return await withCheckedContinuation { listWaiters[restrict, default: []].append(ListWaiter(milestone: milestone, continuation: $0)) }
    }

    /// A page of `restrict`'s list was written: who waited for the first page has it.
    func firstPageWritten(_ restrict: Restrict) {
        guard let waiting = listWaiters[restrict], waiting.contains(where: { $0.milestone == .firstPage }) else { return }
        listWaiters[restrict] = waiting.filter { $0.milestone != .firstPage }
        for waiter in waiting where waiter.milestone == .firstPage { waiter.continuation.resume(returning: .firstPageWritten) }
    }

    /// Resolves the waiters of every list whose sync is no longer running or queued.
    func settleWaiters() {
        for restrict in Restrict.allCases {
            if let waiting = listWaiters[restrict], !waiting.isEmpty, !machine.isActive(restrict) {
                listWaiters[restrict] = nil
                let outcome = settledOutcome(of: restrict)
                for waiter in waiting { waiter.continuation.resume(returning: outcome) }
            }
            if let waiting = idleListWaiters[restrict], !waiting.isEmpty, !machine.isActive(restrict, parked: true) {
                idleListWaiters[restrict] = nil
                for waiter in waiting { waiter.resume(returning: ()) }
            }
        }
    }

    /// How `restrict`'s last sync ended, once it is no longer running or queued.
    private func settledOutcome(of restrict: Restrict) -> SyncOutcome {
        switch status()[restrict] {
        case .failed(let error): return .failed(error)
        case .paused(let until, let reason): return .paused(until: until, reason: reason)
        case .waitingForDailyBudget(let until, _): return .waitingForDailyBudget(until: until)
        case .disabled: return .cancelled
        default: return machine.completedLastJob.contains(restrict) ? .completed : .cancelled
        }
    }
}
