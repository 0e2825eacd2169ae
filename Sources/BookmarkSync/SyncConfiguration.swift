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
///   item `sync_walk_12k_simulated`); 100,000 bookmarks take about 1 h 40 min, in the
///   background, resumable.
///
/// If Pixiv is stricter than that, the engine learns: a rate-limit answer cools the account
/// down for ``rateLimitCooldown`` (300 s, as clients wait; doubling for consecutive ones),
/// halves the sustained rate and caps it below the rate that tripped, then earns it back step
/// by step (``recoveryRunLength``). See ``learnedRateMargin`` and ``learnedRateLifetime``.
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
        pageSize: Int = 30
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
