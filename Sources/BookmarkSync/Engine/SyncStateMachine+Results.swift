import BookmarkIndex
import Foundation

/// What the source answered: a total or a page, and the page's batch written. Failures are in
/// `+Failures`.
extension SyncStateMachine {
    /// Marks the in-flight request answered; `nil` when its sync was abandoned meanwhile.
    mutating func finishRequest(now: SyncMoment) -> Job? {
        budget.requestEnded(now: now.instant)
        guard var job = running?.job else { return nil }
        switch job.step {
        case .inFlight:
            job.step = .ready
            replaceRunningJob(job)
            return job
        case .abandoned:
            finishJob(job)
            return nil
        default:
            return nil
        }
    }

    /// The source answered a ``Fetch/total(_:)`` request.
    mutating func totalFetched(_ total: Int?, now: SyncMoment) {
        guard var job = finishRequest(now: now) else { return }
        memory[job.restrict]?.consecutiveFailures = 0
        memory[job.restrict]?.consecutiveTokenRefreshes = 0
        budget.succeeded(now: now.instant)
        job.needsTotal = false
        // A total below zero is no total: Pixiv's answer is taken as it is, never trusted to add up.
        if let total { memory[job.restrict]?.knownTotal = KnownTotal(count: max(0, total), at: now.date) }
        if job.stopsAfterRequest {
            finishJob(job)
            return
        }
        replaceRunningJob(job)
    }

    /// What to do with a page the source returned.
    enum PageArrival: Sendable {
        /// The kill switch abandoned the request: its answer is dropped.
        case discard
        /// Decide the page in the store's turn (``PageWork/decide(_:index:now:)``), write it,
        /// then report ``SyncStateMachine/pageWritten(_:now:)`` or
        /// ``SyncStateMachine/writeFailed(_:restrict:now:)``.
        case write(PageWork)
    }

    /// The source returned a page for the running job. The request counts as a success for the
    /// pacing; the job waits for its batch to be written. `facts` are the lists as they are now.
    mutating func pageArrived(facts: AccountFacts, now: SyncMoment) -> PageArrival {
        guard var job = finishRequest(now: now) else { return .discard }
        let restrict = job.restrict
        memory[restrict]?.consecutiveFailures = 0
        memory[restrict]?.consecutiveTokenRefreshes = 0
        budget.succeeded(now: now.instant)
        job.pagesFetched = job.pagesFetched.saturatingAdd(1)
        job.resumingCursor = false
        job.step = .writing
        replaceRunningJob(job)
        // While it learns, the account's pace goes with every page; once it has recovered, the
        // other list's copy is cleared too, so no relaunch takes back a pace that is over.
        let pacing = budget.isLearning ? budget.learned(at: now) : nil
        return .write(PageWork(
            configuration: configuration, job: job, pacing: pacing,
            clearsOtherPacing: pacing == nil && facts[restrict.other].record.pacing != nil,
            knownRecord: (facts[restrict].metadata.syncState, facts[restrict].record),
            dailySpend: configuration.dailyRequestLimit == nil ? nil : daily,
            knownTotal: memory[restrict]?.knownTotal
        ))
    }

    /// The page's batch is durable: the job goes on from its outcome, or ends. A kill switch
    /// flipped while it was written ends the job there (the page was written with its cursor,
    /// so nothing is lost), and an intent asked for meanwhile runs next.
    mutating func pageWritten(_ outcome: PageOutcome, now: SyncMoment) {
        let restrict = outcome.job.restrict
        // The batch saved the sync's own position over any rejected one.
        memory[restrict]?.cursorRejected = false
        guard case .running(let current, let then)? = lists[restrict] else { return }
        if current.step == .abandoned || current.stopsAfterRequest || outcome.finished {
            if outcome.finished, current.step != .abandoned, !current.stopsAfterRequest { completedLastJob.insert(restrict) }
            finishJob(current)
            return
        }
        var job = outcome.job
        job.step = .ready
        lists[restrict] = .running(job, then: then)
    }

    /// The running job is done: a refresh asked for during it runs next.
    mutating func finishJob(_ job: Job) {
        guard case .running(_, let then)? = lists[job.restrict] else { return }
        if let then {
            lists[job.restrict] = .waiting(Job(restrict: job.restrict, intent: then))
            waitingOrder.insert(job.restrict, at: 0)
        } else {
            lists[job.restrict] = .idle
        }
    }
}
