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
    /// With `index`, a pause is also returned as the list's metadata to write, so that it holds
    /// across a restart.
    @discardableResult
    mutating func fetchFailed(_ error: BookmarkSyncError, index: BookmarkIndexState? = nil, now: Date) -> [BookmarkChange] {
        guard var job = finishRequest(now: now) else { return [] }
        let restrict = job.restrict
        var error = error
        if error.code == .blocked {
            // A block is waited out like a long Retry-After: it holds the account and pauses the list.
            error.retryAfter = max(error.retryAfter ?? 0, configuration.blockedWait)
        }
        guard error.isRetryable else {
            // A saved cursor that fails this way would fail again: the next sync starts over.
            var changes: [BookmarkChange] = []
            if job.resumingCursor {
                memory[restrict]?.cursorRejected = true
                if let index {
                    var record = ListSyncRecord(index.metadata(for: restrict))
                    record.fullSyncCursor = nil
                    record.deltaCursor = nil
                    changes.append(.setMetadata(record.stored(in: index.metadata(for: restrict)), for: restrict))
                }
            }
            fail(restrict, error)
            return changes
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
        let resumeAt: Date
        if error.code == .rateLimited {
            resumeAt = budget.rateLimited(now: now, retryAfter: retryAfter)
            job.step = .coolingDown(until: resumeAt, length: resumeAt.timeIntervalSince(now))
        } else {
            if let retryAfter { budget.hold(until: now + retryAfter, now: now) }
            resumeAt = now + configuration.backoff(attempt: failures, retryAfter: retryAfter)
            job.step = .backingOff(until: resumeAt, attempt: failures, length: resumeAt.timeIntervalSince(now))
        }
        // A wait the server asked for (or a block's) as long as a pause pauses the list at once:
        // waiting it out would hold the one request stream, and the other list, that long.
        let serverWait = retryAfter ?? 0
        guard failures >= configuration.failuresBeforePause || (serverWait > 0 && serverWait >= configuration.pauseDuration) else {
            replaceRunningJob(job)
            return error.code == .rateLimited ? pacingChanges(index: index, now: now) : []
        }
        let until = now + min(max(configuration.pauseDuration, resumeAt.timeIntervalSince(now)), configuration.maximumPause)
        lists[restrict] = .paused(until: until, reason: error)
        memory[restrict]?.consecutiveFailures = 0
        // Nothing of this list runs during the pause, not even a refresh asked for behind it.
        waitingOrder.removeAll { $0 == restrict }
        guard let index else { return [] }
        var record = ListSyncRecord(index.metadata(for: restrict))
        record.pause = ListPause(until: until, code: error.code.description, message: error.message)
        record.pacing = budget.isLearning ? budget.learned(at: now) : nil
        var changes = [BookmarkChange.setMetadata(record.stored(in: index.metadata(for: restrict)), for: restrict)]
        if error.code == .rateLimited {
            changes += pacingChanges(index: index, now: now).filter {
                if case .setMetadata(_, let list) = $0 { return list != restrict }
                return true
            }
        }
        return changes
    }

    /// Both lists' records with the account's learned pacing, so that a relaunch during the
    /// cooldown waits it out and one after it starts at the learned rate.
    func pacingChanges(index: BookmarkIndexState?, now: Date) -> [BookmarkChange] {
        guard let index else { return [] }
        return Restrict.allCases.map { restrict in
            let metadata = index.metadata(for: restrict)
            var record = ListSyncRecord(metadata)
            record.pacing = budget.isLearning ? budget.learned(at: now) : nil
            return .setMetadata(record.stored(in: metadata), for: restrict)
        }
    }

    /// Writing a page's batch failed: the sync ends (its saved cursor is where it was).
    mutating func writeFailed(_ error: BookmarkSyncError, restrict: Restrict, now: Date) {
        if awaitsAnswer(for: restrict) { _ = finishRequest(now: now) }
        fail(restrict, error)
    }

    /// A failure retrying would not fix ends this list's work until the next user intent.
    private mutating func fail(_ restrict: Restrict, _ error: BookmarkSyncError) {
        lists[restrict] = .failed(error)
        memory[restrict]?.consecutiveFailures = 0
        waitingOrder.removeAll { $0 == restrict }
    }
}
