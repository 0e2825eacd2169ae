import BookmarkIndex
import Foundation

/// Stopping work without the kill switch: one list's sync cancelled, or every list's at a
/// shutdown. Unlike the kill switch, a request already out is let finish and its page written
/// (with the walk's cursor, so a later walk resumes there); indexing stays enabled.
extension SyncStateMachine {
    /// Stops `restrict`'s sync: a queued one is dropped, a walk parked for the day's budget is
    /// set aside (its saved cursor stays), a running one ends now or, with a request out, once
    /// its answer has been written. A refresh queued behind it is dropped too.
    mutating func stop(_ restrict: Restrict) {
        waitingOrder.removeAll { $0 == restrict }
        memory[restrict]?.parkedWalk = nil
        switch lists[restrict] {
        case .waiting?:
            lists[restrict] = .idle
        case .running(var job, _)?:
            switch job.step {
            case .inFlight, .writing, .abandoned:
                job.stopsAfterRequest = true
                lists[restrict] = .running(job, then: nil)
            case .ready, .backingOff, .coolingDown:
                lists[restrict] = .idle
            }
        default:
            break
        }
    }

    /// The request ``nextAction(facts:now:)`` handed out was never sent (the engine stopped
    /// while it waited for its turn at a shared egress): the job goes on from where it was, or
    /// ends if it was stopped meanwhile.
    mutating func requestWithdrawn(now: SyncMoment) {
        guard var job = running?.job, job.step == .inFlight || job.step == .abandoned else { return }
        if job.stopsAfterRequest || job.step == .abandoned {
            finishJob(job)
            return
        }
        job.step = .ready
        replaceRunningJob(job)
    }

    /// A rate-limit answer the shared egress classified as the address's, not the account's
    /// (several accounts behind it were refused within a short window): the job waits until
    /// `until` like a cooldown, but the account's own pace learns nothing and no failure counts.
    mutating func egressCoolingDown(until: ContinuousClock.Instant, now: SyncMoment) {
        guard var job = finishRequest(now: now) else { return }
        if job.stopsAfterRequest {
            finishJob(job)
            return
        }
        budget.hold(until: until, now: now.instant, cooldown: true)
        job.step = .coolingDown(until: until)
        replaceRunningJob(job)
    }
}
