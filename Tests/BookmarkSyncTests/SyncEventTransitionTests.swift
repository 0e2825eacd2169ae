import BookmarkIndex
@testable import BookmarkSync
import Foundation
import Testing

/// Status changes become events once each: a sync that waits (a backoff, a cooldown, the day's
/// budget) and goes on has started once, not again after each wait.
@Suite struct SyncEventTransitionTests {
    static let idle = ListSyncStatus.idle(lastFullSync: nil, lastDeltaSync: nil)
    static let until = Date(timeIntervalSince1970: 1_800_000_000)

    static func syncing(_ mode: SyncMode, _ indexed: Int = 0) -> ListSyncStatus {
        .syncing(SyncProgress(mode: mode, pagesFetched: indexed / 30, indexedCount: indexed, knownTotal: nil, latestIllust: nil))
    }

    /// The events of a run of public-list statuses.
    static func events(_ statuses: [ListSyncStatus]) -> [SyncEvent.Kind] {
        var previous: SyncStatus?
        var kinds: [SyncEvent.Kind] = []
        for status in statuses {
            let next = SyncStatus(publicList: status, privateList: idle)
            kinds += SyncEvent.transitions(from: previous, to: next, egressCooldownUntil: nil)
            previous = next
        }
        return kinds
    }

    @Test func aSyncThatWaitsAndGoesOnStartedOnce() {
        let kinds = Self.events([
            Self.idle, Self.syncing(.full), Self.syncing(.full, 30), .backingOff(until: Self.until, attempt: 1),
            Self.syncing(.full, 30), .coolingDown(until: Self.until), Self.syncing(.full, 60),
            .waitingForDailyBudget(until: Self.until, progress: SyncProgress(mode: .full, pagesFetched: 2, indexedCount: 60, knownTotal: nil, latestIllust: nil)),
            Self.syncing(.full, 90), Self.idle,
        ])
        let expected: [SyncEvent.Kind] = [
            .syncStarted(list: .public, mode: .full),
            .backingOff(list: .public, until: Self.until, attempt: 1),
            .coolingDown(until: Self.until, scope: .account),
            .waitingForDailyBudget(list: .public, until: Self.until),
            .syncEnded(list: .public),
        ]
        #expect(kinds.map(String.init(describing:)) == expected.map(String.init(describing:)))
    }

    @Test func aNewModeIsANewSync() {
        let kinds = Self.events([
            Self.idle, Self.syncing(.delta), Self.syncing(.full), Self.idle, Self.syncing(.delta), Self.idle,
        ])
        let expected: [SyncEvent.Kind] = [
            .syncStarted(list: .public, mode: .delta), .syncStarted(list: .public, mode: .full), .syncEnded(list: .public),
            .syncStarted(list: .public, mode: .delta), .syncEnded(list: .public),
        ]
        #expect(kinds.map(String.init(describing:)) == expected.map(String.init(describing:)))
    }
}
