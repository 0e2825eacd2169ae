import Foundation

/// Every number the sync engine's rate-limit discipline uses. The defaults are the product's
/// policy; change them only with a reason (tests shorten nothing: they use a test clock).
///
/// ## Why these numbers
///
/// Pixiv publishes no limits. What its users report (the issue threads of public Pixiv
/// clients): the app API starts answering `"Rate Limit"` after roughly 100 requests within one
/// to two minutes, about one request a second sustained; the penalty lasts minutes (clients
/// wait 300 s); and it is the account's (after a trip even the other list will not load),
/// possibly the IP's too. So the engine paces on two levels:
///
/// - a floor of ``minimumRequestSpacing`` (150 ms) between any two requests, at which a burst
///   of ``requestBurst`` (20) requests goes out: a delta (one or two requests) and a list of up
///   to 570 bookmarks sync as fast as ever;
/// - a sustained budget of one request per ``sustainedRequestInterval`` (1.8 s, 0.56 per
///   second) after the burst. In any two minutes that is at most 20 + 67 = 87 requests, and in
///   any one minute 20 + 34 = 54: under the ~100 the reports describe, with a margin for the
///   reports' vagueness. A walk of 12,000 bookmarks (401 requests) takes about 11.5 minutes
///   (686 s), 1.43 times what a limit of 100 per 120 s allows at best (480 s; the benchmark
///   item `sync_walk_12k_simulated`), in the background, resumable. 100,000 bookmarks would
///   take about 1 h 40 min at this pace; the day's budget (below) spreads them over two days.
///
/// If Pixiv is stricter than that, the engine learns: a rate-limit answer cools the account
/// down for ``rateLimitCooldown`` (300 s, as clients wait; doubling for consecutive ones),
/// halves the sustained rate and caps it below the rate that tripped, then earns it back step
/// by step (``recoveryRunLength``). See ``learnedRateMargin`` and ``learnedRateLifetime``.
///
/// ## The day's budget
///
/// Pace is not all Pixiv watches. Its warnings (an in-site message from pixiv事務局; a second
/// one may delete the account) are reported to follow how many requests an account makes in a
/// day: PixivBatchDownloader's documentation says a few hundred works a day is fine and
/// thousands a day draw a warning, and users report warnings at 1.6 s and at 5 s between
/// requests after long runs. So on top of the pacing the account spends at most
/// ``dailyRequestLimit`` requests (3,000) in any 24 hours: a 90,000-bookmark walk a day. A walk
/// that has spent all but ``dailyRequestsKeptForDeltas`` (300) of them waits, resumable, until
/// the day's window frees requests, and the status says until when
/// (``ListSyncStatus/waitingForDailyBudget(until:progress:)``); deltas spend the share kept for
/// them, so "what's new" still works that day. The spend is saved with the lists' records and
/// outlives a relaunch. A 100,000-bookmark account's first walk (3,335 requests) takes two days;
/// ``BookmarkSyncEngine/fullWalkCost(of:bookmarkCount:)`` tells before it starts.
public struct SyncConfiguration: Sendable, Hashable {
    /// How long after a list's last sync an automatic sync of it does nothing. Default 60 s.
    public var deltaCooldown: TimeInterval
    /// How long after a full sync a manual refresh of the same list does nothing, so a user
    /// pulling to refresh repeatedly cannot start walk after walk. Default 60 s.
    public var refreshCooldown: TimeInterval
    /// How old the last full sync may be before an automatic sync walks the whole list again.
    /// Default 7 days.
    public var fullSyncMaxAge: TimeInterval
    /// The least time between the end of one request and the start of the next, across both
    /// lists: the pace of a burst. Default 150 ms.
    public var minimumRequestSpacing: TimeInterval
    /// How many requests may go out at ``minimumRequestSpacing`` before the sustained pace
    /// applies: the size of the token bucket. Default 20: a delta or a list of up to 20 pages
    /// is not slowed at all.
    public var requestBurst: Int
    /// The sustained pace once the burst is spent: one request per this many seconds, both lists
    /// together (the bucket refills one token per interval). Default 1.8 s: at most 87 requests
    /// in any two minutes with the burst, under the ~100 that Pixiv's users report trips the
    /// limit.
    public var sustainedRequestInterval: TimeInterval
    /// The slowest the learned pace gets after rate-limit answers: one request per this many
    /// seconds. Default 10 s.
    public var slowestRequestInterval: TimeInterval
    /// How long the whole account waits after a rate-limit answer (Pixiv's app API sends no
    /// `Retry-After`; a longer one wins), doubling for each further one without a success in
    /// between, never more than ``maximumPause``. Default 300 s, what Pixiv clients wait.
    public var rateLimitCooldown: TimeInterval
    /// After a rate-limit answer, how many successes in a row earn back one step of the rate (a
    /// tenth of the configured rate). Default 20.
    public var recoveryRunLength: Int
    /// After a rate-limit answer the rate may grow back only up to this share of the rate that
    /// tripped, for ``learnedRateLifetime``: a limit stricter than the defaults is learned in a
    /// few trips instead of being tripped again and again. Default 0.8.
    public var learnedRateMargin: Double
    /// How long the cap learned from a rate-limit answer holds before the engine tries the
    /// configured rate again. Default 1 hour.
    public var learnedRateLifetime: TimeInterval
    /// The wait after the first server or network failure of a run; it doubles with each
    /// further failure. Default 1 s.
    public var initialBackoff: TimeInterval
    /// The longest backoff the doubling reaches (a longer `Retry-After` still wins). Default 30 s.
    public var maximumBackoff: TimeInterval
    /// After this many consecutive retryable failures (backoffs and rate-limit cooldowns) the
    /// list pauses. Default 3.
    public var failuresBeforePause: Int
    /// How long a paused list stays paused. Default 1 hour. A server's `Retry-After` that is
    /// longer pauses it until then, up to ``maximumPause``.
    public var pauseDuration: TimeInterval
    /// The longest any pause lasts, however far off a server's `Retry-After` is: a bogus
    /// header cannot stop a list for good. Default 24 hours.
    public var maximumPause: TimeInterval
    /// How long the account waits after Pixiv's front end (Cloudflare) blocked a request with
    /// an HTML page (``BookmarkSyncError/Code/blocked``), unless its `Retry-After` is longer:
    /// such blocks last long, and retrying within seconds prolongs them. As long as a pause,
    /// it pauses the list. Default 1 hour.
    public var blockedWait: TimeInterval
    /// How long an in-app unbookmark keeps a fetched page from re-adding the work. Default
    /// 10 minutes.
    public var tombstoneLifetime: TimeInterval
    /// How many bookmarks a page holds (Pixiv: 30); used for progress estimates.
    public var pageSize: Int
    /// At most this many requests of the account in any 24 hours, both lists together; `nil`
    /// for no daily bound. Default 3,000 (see "The day's budget" above).
    public var dailyRequestLimit: Int?
    /// Of ``dailyRequestLimit``, how many only deltas may spend: a full walk waits once the day
    /// holds the rest. Default 300, a tenth: a hundred deltas of three pages.
    public var dailyRequestsKeptForDeltas: Int

    /// Creates a configuration; every parameter defaults to the product's policy.
    public init(
        deltaCooldown: TimeInterval = 60,
        refreshCooldown: TimeInterval = 60,
        fullSyncMaxAge: TimeInterval = 7 * 24 * 60 * 60,
        minimumRequestSpacing: TimeInterval = 0.150,
        requestBurst: Int = 20,
        sustainedRequestInterval: TimeInterval = 1.8,
        slowestRequestInterval: TimeInterval = 10,
        rateLimitCooldown: TimeInterval = 300,
        recoveryRunLength: Int = 20,
        learnedRateMargin: Double = 0.8,
        learnedRateLifetime: TimeInterval = 60 * 60,
        initialBackoff: TimeInterval = 1,
        maximumBackoff: TimeInterval = 30,
        failuresBeforePause: Int = 3,
        pauseDuration: TimeInterval = 60 * 60,
        maximumPause: TimeInterval = 24 * 60 * 60,
        blockedWait: TimeInterval = 60 * 60,
        tombstoneLifetime: TimeInterval = 10 * 60,
        pageSize: Int = 30,
        dailyRequestLimit: Int? = 3_000,
        dailyRequestsKeptForDeltas: Int = 300
    ) {
        self.deltaCooldown = deltaCooldown
        self.refreshCooldown = refreshCooldown
        self.fullSyncMaxAge = fullSyncMaxAge
        self.minimumRequestSpacing = minimumRequestSpacing
        self.requestBurst = max(1, requestBurst)
        self.sustainedRequestInterval = max(sustainedRequestInterval, 0.001)
        self.slowestRequestInterval = max(slowestRequestInterval, self.sustainedRequestInterval)
        self.rateLimitCooldown = rateLimitCooldown
        self.recoveryRunLength = max(1, recoveryRunLength)
        self.learnedRateMargin = min(max(learnedRateMargin, 0.1), 1)
        self.learnedRateLifetime = learnedRateLifetime
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.failuresBeforePause = failuresBeforePause
        self.pauseDuration = pauseDuration
        self.maximumPause = maximumPause
        self.blockedWait = blockedWait
        self.tombstoneLifetime = tombstoneLifetime
        self.pageSize = pageSize
        // A walk always keeps at least one request of the day; deltas keep what is left.
        self.dailyRequestLimit = dailyRequestLimit.map { max(2, $0) }
        self.dailyRequestsKeptForDeltas = min(max(0, dailyRequestsKeptForDeltas), (self.dailyRequestLimit ?? 2) - 1)
    }

    /// How many pages `bookmarks` bookmarks fill (none below zero).
    func pages(holding bookmarks: Int) -> Int {
        let pageSize = max(1, pageSize)
        return max(0, bookmarks / pageSize + (bookmarks % pageSize == 0 ? 0 : 1))
    }

    /// The most requests a sync in `mode` may leave the account at in any 24 hours: the whole
    /// ``dailyRequestLimit`` for a delta, all but ``dailyRequestsKeptForDeltas`` for a walk.
    func dailyLimit(for mode: SyncMode) -> Int? {
        guard let limit = dailyRequestLimit else { return nil }
        return mode == .delta ? limit : limit - dailyRequestsKeptForDeltas
    }

    /// How long a list pauses after a failure the server answered with `retryAfter`:
    /// ``pauseDuration``, or `retryAfter` when that is longer, never more than ``maximumPause``.
    public func pause(retryAfter: TimeInterval?) -> TimeInterval {
        min(max(pauseDuration, retryAfter ?? 0), maximumPause)
    }

    /// The wait before retrying after the `attempt`-th consecutive failure (1-based):
    /// `initialBackoff · 2^(attempt-1)` capped at ``maximumBackoff``, or `retryAfter` when
    /// that is longer.
    public func backoff(attempt: Int, retryAfter: TimeInterval?) -> TimeInterval {
        let exponent = min(max(attempt - 1, 0), 30)
        let doubled = min(initialBackoff * Double(1 << exponent), maximumBackoff)
        return max(doubled, retryAfter ?? 0)
    }
}
