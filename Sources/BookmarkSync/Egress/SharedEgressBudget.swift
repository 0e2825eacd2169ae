import Foundation
import Synchronization

/// The ``EgressBudget`` of one process: every account of a host that sends through one address
/// takes its turns here.
///
/// - **A token bucket for the address**: ``Configuration/burst`` requests, then one per
///   ``Configuration/interval``, never two closer than ``Configuration/minimumSpacing``.
/// - **Fair turns** among the accounts waiting (fair queueing with a unit cost per request):
///   the account that has had the fewest turns goes next, so one account's 4,000-page walk
///   never starves another's one-request delta; an account that starts waiting starts level
///   with the least served of those already waiting. Among equals, an account whose list was
///   never synced goes first, then the one waiting longest.
/// - **Jitter**: the instant a waiting account is told to ask again is its estimated slot plus
///   up to ``Configuration/jitter`` of an interval.
/// - **One classifier**: a rate-limit answer is the account's, unless accounts numbering
///   ``Configuration/accountsRefusedForEgressCooldown`` were refused within
///   ``Configuration/refusalWindow``: then it is the address's, which cools down (every account
///   waits). An account refused ``Configuration/refusalsBeforeQuarantine`` times within
///   ``Configuration/quarantineWindow`` is quarantined for ``Configuration/quarantineDuration``.
///
/// Decisions are a pure core's (`EgressScheduler`); this type holds it behind a lock and reads
/// the clock. Thread-safe.
public final class SharedEgressBudget: EgressBudget {
    private let clock: any SyncClock
    private let scheduler: Mutex<EgressScheduler>

    /// A budget for one address, reading time from `clock` (the engines' clock).
    public init(configuration: Configuration = Configuration(), clock: some SyncClock = SystemSyncClock()) {
        self.clock = clock
        scheduler = Mutex(EgressScheduler(configuration: configuration))
    }

    /// The limits it keeps.
    public var configuration: Configuration { scheduler.withLock { $0.configuration } }

    public func turn(for request: EgressRequest) async -> EgressTurn {
        let now = clock.instant
        return scheduler.withLock { $0.turn(request, now: now) }
    }

    public func finished(_ request: EgressRequest, answer: EgressAnswer) async -> EgressVerdict {
        let now = clock.instant
        return scheduler.withLock { $0.finished(request, answer: answer, now: now) }
    }

    public func leave(_ account: AccountID) async {
        scheduler.withLock { $0.leave(account) }
    }

    /// Turns granted so far, for each account.
    public var turnsGranted: [AccountID: Int] {
        scheduler.withLock { $0.granted }
    }
}
