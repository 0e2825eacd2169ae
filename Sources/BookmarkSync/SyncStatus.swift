import BookmarkIndex
import Foundation

/// How the engine is syncing a list.
public enum SyncMode: String, Sendable, Hashable, CustomStringConvertible {
    /// Only the newest pages, until one holds a bookmark the index already has.
    case delta
    /// Every page; afterwards rows the walk did not see are removed.
    case full

    /// `"delta"` or `"full"`.
    public var description: String { rawValue }
}

/// What the engine is doing, one row per list: what an app's sync toast renders.
///
/// Delivered by ``BookmarkSyncEngine/statusUpdates(bufferingPolicy:)`` whenever it changes.
public struct SyncStatus: Sendable, Hashable {
    /// The public list's row.
    public internal(set) var publicList: ListSyncStatus
    /// The private list's row.
    public internal(set) var privateList: ListSyncStatus
    /// The account's requests of the last 24 hours against its day's budget; `nil` when the
    /// configuration sets no daily bound.
    public internal(set) var dailyRequests: DailyRequestUsage?

    /// Creates a status. The engine makes every status an app is given; this is for an app's
    /// previews and tests of its sync toast.
    public init(publicList: ListSyncStatus, privateList: ListSyncStatus, dailyRequests: DailyRequestUsage? = nil) {
        self.publicList = publicList
        self.privateList = privateList
        self.dailyRequests = dailyRequests
    }

    /// The row of `restrict`'s list.
    public internal(set) subscript(restrict: Restrict) -> ListSyncStatus {
        get {
            switch restrict {
            case .public: publicList
            case .private: privateList
            }
        }
        set {
            switch restrict {
            case .public: publicList = newValue
            case .private: privateList = newValue
            }
        }
    }
}

/// The state of one list's sync.
public enum ListSyncStatus: Sendable, Hashable {
    /// Nothing running; when the list was last synced (`nil`: never).
    case idle(lastFullSync: Date?, lastDeltaSync: Date?)
    /// A sync is fetching this list.
    case syncing(SyncProgress)
    /// A sync of this list waits for the other list's sync to finish.
    case queued
    /// A request failed with a retryable error, or the server asked the account to wait (its
    /// `Retry-After`) while the other list was syncing; the next attempt is at `until`.
    /// `attempt` counts this list's consecutive failures so far (0 when only waiting).
    case backingOff(until: Date, attempt: Int)
    /// Pixiv rate-limited the account: no request of either list goes out before `until`
    /// (then the sync resumes where it stopped, at a slower pace).
    case coolingDown(until: Date)
    /// A full walk has spent the walks' share of the account's day's budget
    /// (``SyncConfiguration/dailyRequestLimit``): it resumes where it stopped at `until`, by
    /// itself. Meanwhile the feed stays in order, and deltas still go out from the share kept
    /// for them.
    case waitingForDailyBudget(until: Date, progress: SyncProgress)
    /// The list failed too often in a row, or the server asked for a wait as long as a pause;
    /// syncs of it are refused until `until`.
    case paused(until: Date, reason: BookmarkSyncError)
    /// The last sync stopped with an error that retrying would not fix (for example
    /// ``BookmarkSyncError/Code/unauthorized``); the next user intent tries again.
    case failed(BookmarkSyncError)
    /// Indexing is switched off (``BookmarkSyncEngine/setIndexingEnabled(_:)``).
    case disabled
}

/// How far a running sync has got.
public struct SyncProgress: Sendable, Hashable {
    /// Delta or full.
    public internal(set) var mode: SyncMode
    /// Pages fetched so far (a resumed full walk counts the pages before the interruption).
    public internal(set) var pagesFetched: Int
    /// How many bookmarks the index holds for the list now.
    public internal(set) var indexedCount: Int
    /// How many bookmarks the list has on the server, when the source said (Pixiv tells only
    /// for the public list).
    public internal(set) var knownTotal: Int?
    /// The illust most recently written to the index by this sync.
    public internal(set) var latestIllust: BookmarkedIllustSnapshot?
    /// For a full walk whose total is known: about how long it has left, in seconds, at the
    /// current pace (the pages left, the burst left at the floor, the rest at the sustained or
    /// learned interval). `nil` for a delta and for a list whose total Pixiv does not tell.
    public internal(set) var estimatedTimeLeft: TimeInterval?

    /// Creates a progress value. The engine reports every one an app is given; this is for an
    /// app's previews and tests of its sync toast.
    public init(
        mode: SyncMode, pagesFetched: Int, indexedCount: Int, knownTotal: Int?,
        latestIllust: BookmarkedIllustSnapshot?, estimatedTimeLeft: TimeInterval? = nil
    ) {
        self.mode = mode
        self.pagesFetched = pagesFetched
        self.indexedCount = indexedCount
        self.knownTotal = knownTotal
        self.latestIllust = latestIllust
        self.estimatedTimeLeft = estimatedTimeLeft
    }
}

/// What became of a request to sync a list.
public enum SyncRequestOutcome: Sendable, Hashable {
    /// The sync starts now.
    case started
    /// The sync waits behind the other list's sync.
    case queued
    /// A sync of this list is already running or queued (a manual refresh upgrades a queued
    /// automatic one to a full sync).
    case alreadyScheduled
    /// The list was synced too recently; nothing is fetched before `until`.
    case recentlySynced(until: Date)
    /// The list is paused after repeated failures until `until`.
    case paused(until: Date)
    /// Indexing is switched off.
    case disabled
    /// The engine was shut down (``BookmarkSyncEngine/shutdown()``, or its
    /// ``BookmarkSyncEngine/run()`` was cancelled): it starts no more syncs.
    case stopped
}
