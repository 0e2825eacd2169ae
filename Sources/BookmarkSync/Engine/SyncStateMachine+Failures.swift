import BookmarkIndex
import Foundation

extension SyncStateMachine {
    /// The request failed.
    ///
    /// - A rate-limit answer cools the whole account down (``SyncConfiguration/rateLimitCooldown``,
    ///   doubling for consecutive ones; a longer `Retry-After` wins) and slows the budget; the sync
    ///   then resumes where it stopped.
    /// - A server or network failure backs off (doubling from ``SyncConfiguration/initialBackoff``,
    ///   capped; a longer `Retry-After` wins); a Cloudflare block waits
    ///   ``SyncConfiguration/blockedWait``. A `Retry-After` holds every request of both lists
    ///   until then: the server's limits are the account's.
    /// - After ``SyncConfiguration/failuresBeforePause`` of these in a row, or at once for a wait
    ///   as long as a pause, the list pauses (at most ``SyncConfiguration/maximumPause``).
    /// - Any other failure ends the sync and shows.
    ///
    /// Returns the edits to write to the lists' records, so that what the failure decided holds
    /// across a restart: a pause, the learned pacing, a rejected cursor forgotten.
    @discardableResult
    mutating func fetchFailed(_ error: BookmarkSyncError, now: SyncMoment) -> [RecordEdit] {
        var edits = decideFailure(error, now: now)
        // What is written anyway carries the day's spend, the failed request included.
        if configuration.dailyRequestLimit != nil {
            for index in edits.indices { edits[index].dailySpend = daily }
        }
        return edits
    }

    private mutating func decideFailure(_ error: BookmarkSyncError, now: SyncMoment) -> [RecordEdit] {
        guard var job = finishRequest(now: now) else { return [] }
        let restrict = job.restrict
        if job.stopsAfterRequest {
            // The sync was stopped: it ends here. A rate-limit answer still cools the account.
            finishJob(job)
            guard error.code == .rateLimited else { return [] }
            _ = budget.rateLimited(now: now.instant, retryAfter: error.retryAfter)
            return pacingEdits(now: now)
        }
        var error = error
        if error.code == .blocked {
            // A block is waited out like a long Retry-After: it holds the account and pauses the list.
            error.retryAfter = max(error.retryAfter ?? 0, configuration.blockedWait)
        }
        guard error.isRetryable else {
            // A saved cursor that fails this way would fail again: the next sync starts over.
            var edits: [RecordEdit] = []
            if job.resumingCursor {
                memory[restrict]?.cursorRejected = true
                edits.append(RecordEdit(restrict, clearsCursors: true))
            }
            fail(restrict, error)
            return edits
        }
        if error.code == .tokenRefreshed {
            // The request goes again as soon as the budget allows; a fresh token refused too
            // is a credential the user must renew.
            let refreshes = (memory[restrict]?.consecutiveTokenRefreshes ?? 0) + 1
            memory[restrict]?.consecutiveTokenRefreshes = refreshes
            guard refreshes < 2 else {
                fail(restrict, BookmarkSyncError(
                    .unauthorized, "Pixiv rejected a freshly refreshed access token too; sign in again (with the bookmarks tool: bookmarks login)",
                    underlying: error
                ))
                return []
            }
            replaceRunningJob(job)
            return []
        }
        let failures = (memory[restrict]?.consecutiveFailures ?? 0) + 1
        memory[restrict]?.consecutiveFailures = failures
        let retryAfter = error.retryAfter.flatMap { $0 > 0 ? min($0, configuration.maximumPause) : nil }
        let resumeAt: ContinuousClock.Instant
        if error.code == .rateLimited {
            resumeAt = budget.rateLimited(now: now.instant, retryAfter: retryAfter)
            job.step = .coolingDown(until: resumeAt)
        } else {
            if let retryAfter { budget.hold(until: now.instant + retryAfter, now: now.instant) }
            resumeAt = now.instant + configuration.backoff(attempt: failures, retryAfter: retryAfter)
            job.step = .backingOff(until: resumeAt, attempt: failures)
        }
        // A wait the server asked for (or a block's) as long as a pause pauses the list at once:
        // waiting it out would hold the one request stream, and the other list, that long.
        let serverWait = retryAfter ?? 0
        guard failures >= configuration.failuresBeforePause || (serverWait > 0 && serverWait >= configuration.pauseDuration) else {
            replaceRunningJob(job)
            return error.code == .rateLimited ? pacingEdits(now: now) : []
        }
        // A pause is persisted and shown: a date.
        let until = now.date + min(max(configuration.pauseDuration, (resumeAt - now.instant).seconds), configuration.maximumPause)
        lists[restrict] = .paused(until: until, reason: error)
        memory[restrict]?.consecutiveFailures = 0
        // Nothing of this list runs during the pause, not even a refresh asked for behind it.
        waitingOrder.removeAll { $0 == restrict }
        let pacing = budget.isLearning ? budget.learned(at: now) : nil
        var edits = [RecordEdit(restrict, pause: ListPause(until: until, code: error.code.description, message: error.message), pacing: .some(pacing))]
        if error.code == .rateLimited { edits.append(RecordEdit(restrict.other, pacing: .some(pacing))) }
        return edits
    }

    /// Both lists' records with the account's learned pacing, so that a relaunch during the
    /// cooldown waits it out and one after it starts at the learned rate.
    func pacingEdits(now: SyncMoment) -> [RecordEdit] {
        let pacing = budget.isLearning ? budget.learned(at: now) : nil
        return Restrict.allCases.map { RecordEdit($0, pacing: .some(pacing)) }
    }

    /// Writing a page's batch failed: the sync ends (its saved cursor is where it was).
    mutating func writeFailed(_ error: BookmarkSyncError, restrict: Restrict, now: SyncMoment) {
        guard case .running? = lists[restrict] else { return }
        fail(restrict, error)
    }

    /// A failure retrying would not fix ends this list's work until the next user intent.
    private mutating func fail(_ restrict: Restrict, _ error: BookmarkSyncError) {
        lists[restrict] = .failed(error)
        memory[restrict]?.consecutiveFailures = 0
        waitingOrder.removeAll { $0 == restrict }
    }
}
