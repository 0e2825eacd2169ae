import BookmarkIndex
import Foundation

extension SyncStateMachine {
    /// One row per list, as of `now`.
    func status(facts: AccountFacts, now: SyncMoment) -> SyncStatus {
        SyncStatus(
            publicList: status(of: facts.publicList, restrict: .public, now: now),
            privateList: status(of: facts.privateList, restrict: .private, now: now),
            dailyRequests: dailyUsage(now: now)
        )
    }

    private func status(of list: ListFacts, restrict: Restrict, now: SyncMoment) -> ListSyncStatus {
        guard isEnabled else { return .disabled }
        switch lists[restrict] ?? .idle {
        case .running(let job, _):
            switch job.step {
            case .abandoned:
                return .queued
            case .backingOff(let until, let attempt) where now.instant < until:
                return .backingOff(until: now.date(of: until), attempt: attempt)
            case .coolingDown(let until) where now.instant < until:
                return .coolingDown(until: now.date(of: until))
            default:
                if let hold = budget.hold(at: now.instant) {
                    // The account's wait, begun while the other list ran, holds this one too.
                    let until = now.date(of: hold)
                    return budget.holdIsCooldown ? .coolingDown(until: until) : .backingOff(until: until, attempt: 0)
                }
                return .syncing(progress(of: job, list: list, now: now))
            }
        case .waiting:
            return .queued
        case .paused(let until, let reason) where now.date < until:
            return .paused(until: until, reason: reason)
        case .failed(let failure):
            return .failed(failure)
        case .idle, .paused:
            if let walk = memory[restrict]?.parkedWalk {
                return .waitingForDailyBudget(until: dailyStart(for: .full, now: now), progress: progress(of: walk, list: list, now: now))
            }
            if let pause = list.record.pause, now.date < pause.until {
                return .paused(until: pause.until, reason: BookmarkSyncError(.named(pause.code), pause.message))
            }
            return .idle(lastFullSync: list.metadata.lastFullSync, lastDeltaSync: list.metadata.lastDeltaSync)
        }
    }

    /// Progress of a running job, with the time a full walk of known length has left: the
    /// pages left at the budget's current pace.
    private func progress(of job: Job, list: ListFacts, now: SyncMoment) -> SyncProgress {
        let total = memory[job.restrict]?.knownTotal?.count
        var timeLeft: TimeInterval?
        if job.mode == .full, let total {
            // The total is Pixiv's, the pages fetched may be a saved cursor's: neither may overflow.
            let pages = configuration.pages(holding: total)
            timeLeft = budget.timeFor(requests: max(0, pages.saturatingSubtract(job.pagesFetched)), now: now.instant)
        }
        return SyncProgress(
            mode: job.mode, pagesFetched: job.pagesFetched, indexedCount: list.count,
            knownTotal: total, latestIllust: job.latest, estimatedTimeLeft: timeLeft
        )
    }
}
