import Foundation

/// Every number the sync engine's rate-limit discipline uses. The defaults are the product's
/// policy; change them only with a reason (tests shorten nothing: they use a test clock).
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
    /// lists. Default 150 ms.
    public var minimumRequestSpacing: TimeInterval
    /// The wait after the first failure of a run of retryable failures; it doubles with each
    /// further failure. Default 1 s.
    public var initialBackoff: TimeInterval
    /// The longest backoff the doubling reaches (a longer `Retry-After` still wins). Default 30 s.
    public var maximumBackoff: TimeInterval
    /// After this many consecutive retryable failures the list pauses. Default 3.
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
