import BookmarkIndex
import Foundation

/// How far a sync goes before ``BookmarkSyncEngine/refresh(_:until:)`` or
/// ``BookmarkSyncEngine/startAutoSync(for:until:)`` returns.
public enum SyncMilestone: Sendable, Hashable {
    /// The list's first page is written: the index is current at the top of the list, where a
    /// pull to refresh looks. The sync goes on in the background.
    case firstPage
    /// The sync has ended, however it ended.
    case finished
}

/// How a sync the app waited for went.
public enum SyncOutcome: Sendable, Hashable {
    /// The list's first page is written (``SyncMilestone/firstPage``); the sync goes on.
    case firstPageWritten
    /// The sync reached its end: the list is current.
    case completed
    /// The sync failed in a way retrying would not fix (the error says what to do).
    case failed(BookmarkSyncError)
    /// The list paused after repeated failures, until `until`.
    case paused(until: Date, reason: BookmarkSyncError)
    /// The walk waits for the day's request budget until `until`, and goes on by itself then.
    case waitingForDailyBudget(until: Date)
    /// The sync was stopped: ``BookmarkSyncEngine/cancelSync(of:)``, the kill switch, or a
    /// shutdown.
    case cancelled
    /// No sync ran: it was refused (``SyncRequestOutcome/recentlySynced(until:)``,
    /// ``SyncRequestOutcome/paused(until:)``, ``SyncRequestOutcome/disabled`` or
    /// ``SyncRequestOutcome/stopped``).
    case refused(SyncRequestOutcome)
}
