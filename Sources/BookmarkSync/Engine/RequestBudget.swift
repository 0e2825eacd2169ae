import Foundation

/// The account's request budget, as a pure value: when the next request may start, and what a
/// rate-limit answer teaches.
///
/// - A floor between two requests (``SyncConfiguration/minimumRequestSpacing``), and a token
///   bucket on top: up to ``SyncConfiguration/requestBurst`` requests at the floor, refilled at
///   one per ``SyncConfiguration/sustainedRequestInterval``.
/// - A rate-limit answer halves the sustained rate (never below one request per
///   ``SyncConfiguration/slowestRequestInterval``), takes the burst away, and caps the rate at
///   ``SyncConfiguration/learnedRateMargin`` of the rate that tripped for
///   ``SyncConfiguration/learnedRateLifetime``. Every ``SyncConfiguration/recoveryRunLength``
///   successes in a row then add a tenth of the configured rate back, up to that cap
///   (additive increase, multiplicative decrease). Once the cap has expired and the configured
///   rate is back, so is the burst.
/// - A rate-limit answer also cools the whole account down: no request before the cooldown's
///   end. Consecutive cooldowns double in length.
struct RequestBudget: Sendable, Hashable {
    let configuration: SyncConfiguration
    /// The current sustained interval between requests, in seconds (the inverse of the rate).
    private(set) var interval: TimeInterval
    /// The fastest interval allowed until ``ceilingUntil``: learned from the last trip.
    private(set) var ceilingInterval: TimeInterval?
    private(set) var ceilingUntil: Date?
    /// Tokens in the bucket, and when it was last refilled.
    private var tokens: Double
    private var refilledAt: Date?
    private(set) var lastRequestEnd: Date?
    /// No request before this: a rate-limit cooldown or a server's `Retry-After`.
    private(set) var holdUntil: Date?
    /// Rate-limit answers since the last success.
    private(set) var consecutiveCooldowns = 0
    private var successRun = 0

    init(configuration: SyncConfiguration) {
        self.configuration = configuration
        interval = configuration.sustainedRequestInterval
        tokens = Double(configuration.requestBurst)
    }

    /// What is persisted of the budget, so that a relaunch keeps what it learned.
    var learned: LearnedPacing {
        LearnedPacing(interval: interval, ceilingInterval: ceilingInterval, ceilingUntil: ceilingUntil, holdUntil: holdUntil, consecutiveCooldowns: consecutiveCooldowns)
    }

    /// Takes back what an earlier process learned; a relaunch after a trip starts at the learned
    /// rate, without a burst, and waits out a cooldown still running.
    mutating func restore(_ learned: LearnedPacing, now: Date) {
        interval = min(max(learned.interval, configuration.sustainedRequestInterval), configuration.slowestRequestInterval)
        if let until = learned.ceilingUntil, now < until, let ceiling = learned.ceilingInterval {
            ceilingInterval = ceiling
            ceilingUntil = until
        }
        if let hold = learned.holdUntil, now < hold {
            holdUntil = min(hold, now + configuration.maximumPause)
        }
        consecutiveCooldowns = learned.consecutiveCooldowns
        if isLearning { tokens = min(tokens, 1) }
    }

    /// Whether the budget runs below the configured rate or under a learned cap.
    var isLearning: Bool { interval > configuration.sustainedRequestInterval || ceilingInterval != nil }

    private var capacity: Double { isLearning ? 1 : Double(configuration.requestBurst) }

    /// When the next request may start, at the earliest.
    func earliestStart(now: Date) -> Date {
        var start = now
        if let hold = holdUntil { start = max(start, min(hold, now + configuration.maximumPause)) }
        if let end = lastRequestEnd {
            start = max(start, min(end, now) + configuration.minimumRequestSpacing)
        }
        let level = refilled(at: start)
        if level < 1 { start += (1 - level) * interval }
        return start
    }

    /// How long `requests` more requests take from `now` at the current pace: the wait for the
    /// first, the tokens left at the floor, the rest at the sustained interval.
    func timeFor(requests: Int, now: Date) -> TimeInterval {
        guard requests > 0 else { return 0 }
        let first = earliestStart(now: now)
        let fast = min(Double(requests - 1), max(0, refilled(at: first) - 1).rounded(.down))
        let slow = Double(requests - 1) - fast
        return first.timeIntervalSince(now) + fast * configuration.minimumRequestSpacing
            + slow * max(interval, configuration.minimumRequestSpacing)
    }

    /// A wall clock stepped back must not turn the spacing, or the bucket's refill, into a wait
    /// as long as the step: times recorded in the future are taken as now.
    mutating func clockStepped(now: Date) {
        if let end = lastRequestEnd, end > now { lastRequestEnd = now }
        if let refill = refilledAt, refill > now { refilledAt = now }
    }

    private func refilled(at date: Date) -> Double {
        guard let refilledAt else { return tokens }
        let elapsed = max(0, date.timeIntervalSince(refilledAt))
        return min(capacity, tokens + elapsed / interval)
    }

    /// A request starts now: it takes a token.
    mutating func requestStarted(now: Date) {
        tokens = max(0, refilled(at: now) - 1)
        refilledAt = now
        if let hold = holdUntil, hold <= now { holdUntil = nil }
    }

    /// The request answered (or failed) at `now`.
    mutating func requestEnded(now: Date) {
        lastRequestEnd = now
    }

    /// The request succeeded: a run of successes earns back rate, step by step.
    mutating func succeeded(now: Date) {
        consecutiveCooldowns = 0
        if let until = ceilingUntil, now >= until {
            ceilingInterval = nil
            ceilingUntil = nil
        }
        successRun += 1
        guard successRun >= configuration.recoveryRunLength, interval > configuration.sustainedRequestInterval else { return }
        successRun = 0
        let fastest = max(configuration.sustainedRequestInterval, ceilingInterval ?? 0)
        let rate = 1 / interval + 1 / (10 * configuration.sustainedRequestInterval)
        interval = max(fastest, 1 / rate)
    }

    /// The server rate-limited the account at `now`: cools it down and learns a slower rate.
    ///
    /// - Returns: when the cooldown ends: the server's `Retry-After` when it sent one, else the
    ///   configured cooldown, doubled for each consecutive one; either is bounded by
    ///   ``SyncConfiguration/maximumPause``.
    mutating func rateLimited(now: Date, retryAfter: TimeInterval?) -> Date {
        consecutiveCooldowns += 1
        successRun = 0
        let tripped = interval
        interval = min(interval * 2, configuration.slowestRequestInterval)
        let cap = min(tripped / configuration.learnedRateMargin, configuration.slowestRequestInterval)
        ceilingInterval = max(ceilingInterval ?? 0, cap)
        ceilingUntil = now + configuration.learnedRateLifetime
        tokens = 0
        refilledAt = now
        let doubling = pow(2, Double(min(consecutiveCooldowns - 1, 20)))
        let cooldown = min(retryAfter ?? configuration.rateLimitCooldown * doubling, configuration.maximumPause)
        hold(until: now + cooldown)
        return now + cooldown
    }

    /// No request before `date` (a server's `Retry-After`), whichever list asks.
    mutating func hold(until date: Date) {
        holdUntil = max(holdUntil ?? date, date)
    }
}

/// What the budget learned, kept with the index so a relaunch honours it.
struct LearnedPacing: Sendable, Hashable, Codable {
    var interval: TimeInterval
    var ceilingInterval: TimeInterval?
    var ceilingUntil: Date?
    var holdUntil: Date?
    var consecutiveCooldowns: Int
}
