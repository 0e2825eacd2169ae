import BookmarkIndex
import Foundation

/// What the source answered: a total, a page, and how an answer decided in the store's turn
/// is taken back. Failures are in `+Failures`.
extension SyncStateMachine {
    /// Marks the in-flight request answered; `nil` when its sync was abandoned meanwhile.
    mutating func finishRequest(now: Date) -> Job? {
        budget.requestEnded(now: now)
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
    mutating func totalFetched(_ total: Int?, now: Date) {
        guard var job = finishRequest(now: now) else { return }
        memory[job.restrict]?.consecutiveFailures = 0
        memory[job.restrict]?.consecutiveTokenRefreshes = 0
        budget.succeeded(now: now)
        job.needsTotal = false
        // A total below zero is no total: Pixiv's answer is taken as it is, never trusted to add up.
        if let total { memory[job.restrict]?.knownTotal = max(0, total) }
        replaceRunningJob(job)
    }

    /// The source returned `page`; returns the one batch to write (rows, prunes, metadata).
    ///
    /// `index` is the index as it is now. Rows under a live tombstone are skipped. A delta stops
    /// at known ground (or the last page); a full walk saves its cursor with every page and,
    /// after the last one, removes the list's rows it did not see.
    mutating func pageFetched(_ page: BookmarkPage, index: BookmarkIndexState, now: Date) -> [BookmarkChange] {
        guard var job = finishRequest(now: now) else { return [] }
        let restrict = job.restrict
        memory[restrict]?.consecutiveFailures = 0
        memory[restrict]?.consecutiveTokenRefreshes = 0
        budget.succeeded(now: now)
        job.pagesFetched = job.pagesFetched.saturatingAdd(1)
        job.resumingCursor = false
        var metadata = index.metadata(for: restrict)
        var record = ListSyncRecord(metadata)
        record.pause = nil
        // While it learns, the account's pace goes with every page; once it has recovered, the
        // other list's copy is cleared too, so no relaunch takes back a pace that is over.
        let otherList: Restrict = restrict == .public ? .private : .public
        let clearsOther = !budget.isLearning && ListSyncRecord(index.metadata(for: otherList)).pacing != nil
        record.pacing = budget.isLearning ? budget.learned(at: now) : nil
        dropExpiredTombstones(&record, now: now)
        var changes: [BookmarkChange] = []
        let finished: Bool
        switch job.mode {
        case .delta: finished = deltaPage(page, job: &job, metadata: &metadata, record: &record, index: index, now: now, changes: &changes)
        case .full: finished = walkPage(page, job: &job, metadata: &metadata, record: &record, index: index, now: now, changes: &changes)
        }
        if clearsOther {
            changes += pacingChanges(index: index, now: now).filter {
                if case .setMetadata(_, let list) = $0 { return list == otherList }
                return false
            }
        }
        changes.append(.setMetadata(record.stored(in: metadata), for: restrict))
        if finished {
            finishJob(job)
        } else {
            replaceRunningJob(job)
        }
        return changes
    }

    /// Whether `restrict`'s request is out and its answer still wanted.
    func awaitsAnswer(for restrict: Restrict) -> Bool {
        if case .running(let job, _)? = lists[restrict], job.step == .inFlight { return true }
        return false
    }

    /// Takes what `after` decided about `restrict`'s answered request, from a copy of this
    /// machine that decided it in the store's turn: the job's progress, the list's memory and
    /// the budget are the request's; a refresh or the kill switch asked for meanwhile stays.
    ///
    /// An answer the kill switch abandoned while it was being written was written all the
    /// same (with its cursor, so nothing is lost): the job ends there, and an intent asked for
    /// meanwhile runs next.
    mutating func merge(_ after: SyncStateMachine, for restrict: Restrict) {
        budget = after.budget
        memory[restrict] = after.memory[restrict]
        guard case .running(let current, let then)? = lists[restrict] else { return }
        if current.step == .abandoned {
            finishJob(current)
            return
        }
        guard current.step == .inFlight else { return }
        switch after.lists[restrict] ?? .idle {
        case .running(let job, _):
            lists[restrict] = .running(job, then: then)
        case .paused, .failed:
            lists[restrict] = after.lists[restrict]
            waitingOrder.removeAll { $0 == restrict }
        case .idle, .waiting:
            finishJob(current)
        }
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
