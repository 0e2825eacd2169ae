import Foundation

/// What a full walk of one list will cost, asked before it starts
/// (``BookmarkSyncEngine/fullWalkCost(of:bookmarkCount:)``): how many requests, and about how
/// long at the current pace within the day's budget.
public struct FullWalkCost: Sendable, Hashable {
    /// Where the bookmark count the cost is figured from comes from.
    public enum Basis: Sendable, Hashable {
        /// The count the app passed.
        case given
        /// Pixiv's total, as it told it at that time (every walk asks for it first).
        case pixivTotal(asOf: Date)
        /// The rows the index holds (Pixiv has not told a total: the private list's, or a list
        /// never walked); the walk may find more.
        case indexed
    }

    /// The bookmarks the walk reads.
    public internal(set) var bookmarks: Int
    /// Where ``bookmarks`` comes from.
    public internal(set) var basis: Basis
    /// The requests it sends: Pixiv's total, then one per page (for a walk that resumes, the
    /// pages it has left).
    public internal(set) var requests: Int
    /// About how long it takes from now, in seconds: at the current pace (the burst left, then
    /// the sustained or learned interval), and waiting for the day's budget where it runs out.
    public internal(set) var duration: TimeInterval
    /// The requests walks may still spend in the day's window now (`nil`: no daily bound).
    public internal(set) var requestsLeftToday: Int?

    /// Whether the walk outlasts what the day's budget allows now, and waits for it.
    public var waitsForDailyBudget: Bool {
        requestsLeftToday.map { requests > $0 } ?? false
    }

    /// Creates a cost. The engine works out every cost an app is given
    /// (``BookmarkSyncEngine/fullWalkCost(of:bookmarkCount:)``); this is for an app's previews
    /// and tests of the screen that shows it.
    public init(bookmarks: Int, basis: Basis, requests: Int, duration: TimeInterval, requestsLeftToday: Int?) {
        self.bookmarks = bookmarks
        self.basis = basis
        self.requests = requests
        self.duration = duration
        self.requestsLeftToday = requestsLeftToday
    }
}

/// The account's requests of the last 24 hours against its day's budget
/// (``SyncConfiguration/dailyRequestLimit``).
public struct DailyRequestUsage: Sendable, Hashable {
    /// Requests in the last 24 hours, both lists (counted in quarter hours: never fewer than
    /// were made).
    public internal(set) var spent: Int
    /// The most allowed in any 24 hours.
    public internal(set) var limit: Int
    /// How many of them only deltas may spend.
    public internal(set) var keptForDeltas: Int

    /// Creates a usage. The engine reports every one an app is given (in ``SyncStatus``); this
    /// is for an app's previews and tests of its sync toast.
    public init(spent: Int, limit: Int, keptForDeltas: Int) {
        self.spent = spent
        self.limit = limit
        self.keptForDeltas = keptForDeltas
    }
}

/// A list's total as Pixiv told it, and when: what a walk will cost.
struct KnownTotal: Sendable, Hashable, Decodable {
    var count: Int
    var at: Date
}
