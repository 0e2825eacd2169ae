import BookmarkIndex
import Foundation

/// The day's budget (``SyncConfiguration/dailyRequestLimit``): a walk that has spent the walks'
/// share waits, parked, without holding the request stream, so the other list's syncs and the
/// deltas that use the share kept for them still go out; it resumes when the day's window
/// frees a request.
extension SyncStateMachine {
    /// When a sync in `mode` may send its next request as far as the day's budget goes: `now`
    /// when it may now (or there is no bound).
    func dailyStart(for mode: SyncMode, now: SyncMoment) -> Date {
        guard let limit = configuration.dailyLimit(for: mode) else { return now.date }
        return daily.nextAllowed(limit: limit, now: now.date) ?? now.date + .century
    }

    /// Whether walks wait for the day's budget now.
    func walksHeldByTheDay(now: SyncMoment) -> Bool {
        dailyStart(for: .full, now: now) > now.date
    }

    /// Sets the running walk aside until the day's budget allows it: the list shows
    /// ``ListSyncStatus/waitingForDailyBudget(until:progress:)``, and the stream is free.
    mutating func park(_ job: Job) {
        var job = job
        job.step = .ready
        memory[job.restrict]?.parkedWalk = job
        lists[job.restrict] = .idle
    }

    /// With nothing running or waiting: a parked walk the day now allows runs again (`nil`
    /// returned), or the time the first one may, to wait for; `nil` too when none is parked.
    mutating func resumeParkedWalk(now: SyncMoment) -> Date? {
        var earliest: Date?
        for restrict in Restrict.allCases {
            guard case .idle? = lists[restrict], let walk = memory[restrict]?.parkedWalk else { continue }
            let start = dailyStart(for: .full, now: now)
            if start <= now.date {
                memory[restrict]?.parkedWalk = nil
                lists[restrict] = .running(walk, then: nil)
                return nil
            }
            earliest = min(earliest ?? start, start)
        }
        return earliest
    }

    /// Whether a walk of some list is parked.
    var hasParkedWalk: Bool { memory.values.contains { $0.parkedWalk != nil } }

    /// The account's spend against the day's budget as of `now`; `nil` without a bound.
    func dailyUsage(now: SyncMoment) -> DailyRequestUsage? {
        guard let limit = configuration.dailyRequestLimit else { return nil }
        return DailyRequestUsage(spent: daily.spent(at: now.date), limit: limit, keptForDeltas: configuration.dailyRequestsKeptForDeltas)
    }

    /// What a full walk of `restrict` would cost if it started now; `nil` when nothing tells
    /// how many bookmarks the list holds (no `bookmarkCount`, no total from Pixiv, an empty
    /// index).
    func fullWalkCost(of restrict: Restrict, bookmarkCount: Int?, list: ListFacts, now: SyncMoment) -> FullWalkCost? {
        let bookmarks: Int
        let basis: FullWalkCost.Basis
        if let bookmarkCount {
            (bookmarks, basis) = (max(0, bookmarkCount), .given)
        } else if let total = list.record.lastKnownTotal {
            (bookmarks, basis) = (total.count, .pixivTotal(asOf: total.at))
        } else if list.count > 0 {
            (bookmarks, basis) = (list.count, .indexed)
        } else {
            return nil
        }
        var pages = max(1, configuration.pages(holding: bookmarks))
        if let cursor = list.record.fullWalkPosition { pages = max(1, pages.saturatingSubtract(cursor.pagesFetched)) }
        let requests = pages.saturatingAdd(1)
        guard let limit = configuration.dailyLimit(for: .full) else {
            return FullWalkCost(bookmarks: bookmarks, basis: basis, requests: requests, duration: budget.timeFor(requests: requests, now: now.instant), requestsLeftToday: nil)
        }
        let left = max(0, limit - daily.spent(at: now.date))
        var duration = budget.timeFor(requests: min(requests, max(left, 1)), now: now.instant)
        if requests > left {
            // Each further day's window allows the walks' share again, spent at the pace: the
            // first once the requests of the last 24 hours have aged out.
            let rest = requests - left
            let days = rest / limit + (rest % limit == 0 ? 0 : 1)
            let lastDay = rest - (days - 1) * limit
            duration = Double(days) * 86_400 + budget.timeFor(requests: lastDay, now: now.instant)
        }
        return FullWalkCost(bookmarks: bookmarks, basis: basis, requests: requests, duration: duration, requestsLeftToday: left)
    }
}
