import BookmarkIndex
import Foundation

extension SyncEvent {
    /// The events a change of status means: a sync started or ended, a backoff, a cooldown of
    /// the account, a wait for the day's budget, a pause, a failure. Each is reported once, as
    /// the list enters it. A cooldown ending at `egressCooldownUntil` is the address's, reported
    /// already.
    static func transitions(from old: SyncStatus?, to new: SyncStatus, egressCooldownUntil: Date?) -> [Kind] {
        var kinds: [Kind] = []
        for list in Restrict.allCases {
            let (before, after) = (old?[list], new[list])
            guard before != after else { continue }
            switch after {
            case .syncing(let progress):
                if case .syncing(let previous)? = before, previous.mode == progress.mode { break }
                // After a wait within the sync (a backoff or a cooldown shows no mode; the day's
                // budget does), the same sync goes on: it started already.
                let goesOn = before?.isWaitingWithinSync == true && (before?.syncMode ?? progress.mode) == progress.mode
                if !goesOn { kinds.append(.syncStarted(list: list, mode: progress.mode)) }
            case .backingOff(let until, let attempt):
                kinds.append(.backingOff(list: list, until: until, attempt: attempt))
            case .coolingDown(let until):
                if case .coolingDown(let previous)? = before, previous == until { break }
                if let egress = egressCooldownUntil, abs(egress.timeIntervalSince(until)) < 0.001 { break }
                kinds.append(.coolingDown(until: until, scope: .account))
            case .waitingForDailyBudget(let until, _):
                kinds.append(.waitingForDailyBudget(list: list, until: until))
            case .paused(let until, let reason):
                kinds.append(.paused(list: list, until: until, reason: reason.code))
            case .failed(let error):
                kinds.append(.failed(list: list, reason: error.code))
            case .idle, .disabled:
                if before?.isSyncing == true { kinds.append(.syncEnded(list: list)) }
            case .queued:
                break
            }
        }
        return kinds
    }
}

extension ListSyncStatus {
    /// A sync is under way (fetching, or waiting within it).
    var isSyncing: Bool {
        switch self {
        case .syncing, .backingOff, .coolingDown, .waitingForDailyBudget: true
        default: false
        }
    }

    /// Waiting within a sync that already fetched (a backoff, a cooldown, the day's budget).
    var isWaitingWithinSync: Bool {
        switch self {
        case .backingOff, .coolingDown, .waitingForDailyBudget: true
        default: false
        }
    }

    /// The mode of the sync it shows, when it shows one.
    var syncMode: SyncMode? {
        switch self {
        case .syncing(let progress), .waitingForDailyBudget(_, let progress): progress.mode
        default: nil
        }
    }
}
