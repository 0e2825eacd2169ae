import BookmarkIndex
import Foundation

/// The app's bookmarks and unbookmarks sent through the account's one request stream: paced
/// like every request and counted in the day's spend, but ahead of the next page of any sync.
extension SyncStateMachine {
    /// The app asked for a write: it goes before the next page.
    mutating func writeQueued() {
        queuedWrites = queuedWrites.saturatingAdd(1)
    }

    /// The next write when one is queued and no request is out: now if the budget allows
    /// (what the account's cooldown holds, it holds too), else a wait until it does.
    mutating func nextWrite(now: SyncMoment) -> Action? {
        guard queuedWrites > 0, !writeInFlight else { return nil }
        if let step = running?.job.step, step == .inFlight || step == .writing || step == .abandoned { return nil }
        let start = budget.earliestStart(now: now.instant)
        if now.instant < start { return .wait(until: start) }
        queuedWrites -= 1
        writeInFlight = true
        budget.requestStarted(now: now.instant)
        daily.record(at: now.date)
        return .write
    }

    /// The write was answered (`error` `nil`) or failed. A rate-limit answer cools the account
    /// down as any request's would; the write itself is not retried (the app says so to the user).
    mutating func writeAnswered(_ error: BookmarkSyncError?, now: SyncMoment) {
        writeInFlight = false
        budget.requestEnded(now: now.instant)
        guard let error else {
            budget.succeeded(now: now.instant)
            return
        }
        if error.code == .rateLimited {
            _ = budget.rateLimited(now: now.instant, retryAfter: error.retryAfter)
        }
    }

    /// A queued write was withdrawn before it was sent (the engine stopped).
    mutating func writeWithdrawn() {
        queuedWrites = max(0, queuedWrites - 1)
    }
}
