import BookmarkIndex
import Foundation

/// Which mode a sync runs in, and the account's pacing and day's spend taken back from what an
/// earlier process saved.
extension SyncStateMachine {
    enum Plan: Equatable {
        case run(SyncMode)
        case tooSoon(until: Date)
    }

    /// Auto: full when never fully synced, a walk is unfinished, or the last full sync is older
    /// than the maximum age; else delta, unless within the cooldown. While walks wait for the
    /// day's budget, a list with an unfinished walk gets a delta (what's new, from the share kept
    /// for deltas). Manual: full, unless a full sync finished within the refresh cooldown.
    func plan(_ intent: Intent, list: ListFacts, now: SyncMoment, restrict: Restrict) -> Plan {
        let (metadata, record) = (list.metadata, list.record)
        let cursorRejected = memory[restrict]?.cursorRejected == true
        let walkCursor = cursorRejected ? nil : record.fullWalkPosition
        switch intent {
        case .manual:
            if walkCursor == nil, let last = metadata.lastFullSync,
               now.date < last + configuration.refreshCooldown {
                return .tooSoon(until: last + configuration.refreshCooldown)
            }
            return .run(.full)
        case .auto:
            // A walk waiting for the day's budget: what's new still comes, from the deltas' share.
            if let walk = walkCursor, walk.groundAfterFirstPage != nil, walksHeldByTheDay(now: now) {
                if let lastDelta = metadata.lastDeltaSync, now.date < lastDelta + configuration.deltaCooldown {
                    return .tooSoon(until: lastDelta + configuration.deltaCooldown)
                }
                return .run(.delta)
            }
            // Without known ground (no complete sync of this version yet), no delta can prove
            // it has met every new bookmark: the list is walked once.
            guard walkCursor == nil, let lastFull = metadata.lastFullSync, record.knownGround != nil,
                  now.date.timeIntervalSince(lastFull) <= configuration.fullSyncMaxAge
            else { return .run(.full) }
            // An interrupted delta goes on, whenever it is asked for.
            if record.deltaCursor != nil, !cursorRejected { return .run(.delta) }
            let lastSync = max(lastFull, metadata.lastDeltaSync ?? lastFull)
            if now.date < lastSync + configuration.deltaCooldown {
                return .tooSoon(until: lastSync + configuration.deltaCooldown)
            }
            return .run(.delta)
        }
    }

    /// Takes back, once, the pacing an earlier process learned and kept in the index: a
    /// relaunch during a cooldown waits it out, and one after a trip starts at the learned rate.
    mutating func restoreBudget(from facts: AccountFacts, now: SyncMoment) {
        guard !budgetRestored else { return }
        budgetRestored = true
        // Both lists may carry the account's pacing; the one saved last is the account's.
        let learned = Restrict.allCases.compactMap { facts[$0].record.pacing }
        if let latest = learned.max(by: { ($0.savedAt ?? .distantPast) < ($1.savedAt ?? .distantPast) }) {
            budget.restore(latest, now: now)
        }
        // Each list's copy of the day's spend holds every request up to its save.
        for restrict in Restrict.allCases {
            if let spend = facts[restrict].record.dailySpend { daily = daily.merged(with: spend) }
        }
    }
}
