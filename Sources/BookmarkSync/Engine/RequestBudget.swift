import BookmarkIndex
import Foundation

/// The account's request budget, as a pure value: when the next request may start, and what a
/// rate-limit answer teaches.
///
/// - A floor between two requests (``SyncConfiguration/minimumRequestSpacing``), and a token
///   bucket on top: up to ``SyncConfiguration/requestBurst`` requests at the floor, refilled at
///   one per ``SyncConfiguration/sustainedRequestInterval``.
/// - A rate-limit answer halves the sustained rate (never below one request per
///   ``SyncConfiguration/slowestRequestInterval``), takes the burst away, and caps the rate at
///   ``SyncConfiguration/learnedRateMargin`` of the rate that tripped, for
///   ``SyncConfiguration/learnedRateLifetime`` (doubled for each further trip within a day, so
///   a limit stricter than the defaults is not probed again every hour). Every
///   ``SyncConfiguration/recoveryRunLength`` successes in a row, or as long idle, add a tenth
///   of the configured rate back, up to that cap (additive increase, multiplicative
///   decrease). Once the cap has expired and the configured rate is back, so is the burst.
/// - A rate-limit answer also cools the whole account down: no request before the cooldown's
///   end. Consecutive cooldowns double in length; a longer `Retry-After` wins.
/// Its times are monotonic instants: a wall clock stepped either way moves no wait. What it
/// learned is persisted as dates (``learned(at:)``, ``restore(_:now:)``).
struct RequestBudget: Sendable, Hashable {
    typealias Instant = ContinuousClock.Instant

    let configuration: SyncConfiguration
    /// The current sustained interval between requests, in seconds (the inverse of the rate).
    private(set) var interval: TimeInterval
    /// The fastest interval allowed until ``ceilingUntil``: learned from the last trip.
    private(set) var ceilingInterval: TimeInterval?
    private(set) var ceilingUntil: Instant?
    /// Trips within a day of each other, which lengthen the cap's life; and the last trip.
    private(set) var recentTrips = 0
    private(set) var lastTrip: Instant?
    /// Tokens in the bucket, and when it was last refilled.
    private var tokens: Double
    private var refilledAt: Instant?
    private(set) var lastRequestEnd: Instant?
    /// No request before this: a rate-limit cooldown (``holdIsCooldown``) or a server's
    /// `Retry-After`.
    private(set) var holdUntil: Instant?
    private(set) var holdIsCooldown = false
    /// Rate-limit answers since the last success.
    private(set) var consecutiveCooldowns = 0
    private var successRun = 0

    init(configuration: SyncConfiguration) {
        self.configuration = configuration
        interval = configuration.sustainedRequestInterval
        tokens = Double(configuration.requestBurst)
    }

    /// What is persisted of the budget at `now`, so that a relaunch keeps what it learned.
    func learned(at now: SyncMoment) -> LearnedPacing {
        LearnedPacing(
            savedAt: now.date,
            interval: interval, ceilingInterval: ceilingInterval, ceilingUntil: ceilingUntil.map(now.date(of:)),
            cooldownUntil: holdIsCooldown ? holdUntil.map(now.date(of:)) : nil, consecutiveCooldowns: consecutiveCooldowns,
            recentTrips: recentTrips, lastTrip: lastTrip.map(now.date(of:))
        )
    }

    /// Takes back what an earlier process learned: a relaunch after a trip starts at the
    /// learned rate, without a burst, and waits out a cooldown still running.
    mutating func restore(_ learned: LearnedPacing, now: SyncMoment) {
        interval = min(max(learned.interval, configuration.sustainedRequestInterval), configuration.slowestRequestInterval)
        if let until = learned.ceilingUntil, now.date < until, let ceiling = learned.ceilingInterval {
            ceilingInterval = ceiling
            ceilingUntil = now.instant + min(until.timeIntervalSince(now.date), configuration.maximumPause)
        }
        if let until = learned.cooldownUntil, now.date < until {
            hold(until: now.instant + min(until.timeIntervalSince(now.date), configuration.maximumPause), now: now.instant, cooldown: true)
        }
        consecutiveCooldowns = learned.consecutiveCooldowns
        recentTrips = learned.recentTrips
        // A trip saved "in the future" (a clock stepped back since) is taken as now.
        lastTrip = learned.lastTrip.map { now.instant + min(0, $0.timeIntervalSince(now.date)) }
        if isLearning { tokens = min(tokens, 1) }
    }

    /// Whether the budget runs below the configured rate or under a learned cap.
    var isLearning: Bool { interval > configuration.sustainedRequestInterval || ceilingInterval != nil }

    private var capacity: Double { isLearning ? 1 : Double(configuration.requestBurst) }

    /// The hold in force at `now`, if any: its end.
    func hold(at now: Instant) -> Instant? {
        guard let holdUntil, now < holdUntil else { return nil }
        return holdUntil
    }

    /// When the next request may start, at the earliest.
    func earliestStart(now: Instant) -> Instant {
        var start = hold(at: now) ?? now
        if let end = lastRequestEnd {
            start = max(start, end + configuration.minimumRequestSpacing)
        }
        let level = refilled(at: start)
        if level < 1 { start = start + (1 - level) * interval }
        return start
    }

    /// How long `requests` more requests take from `now` at the current pace: the wait for the
    /// first, the tokens left at the floor, the rest at the sustained interval.
    func timeFor(requests: Int, now: Instant) -> TimeInterval {
        guard requests > 0 else { return 0 }
        let first = earliestStart(now: now)
        let fast = min(Double(requests - 1), max(0, refilled(at: first) - 1).rounded(.down))
        let slow = Double(requests - 1) - fast
        return (first - now).seconds + fast * configuration.minimumRequestSpacing
            + slow * max(interval, configuration.minimumRequestSpacing)
    }

    private func refilled(at instant: Instant) -> Double {
        guard let refilledAt else { return tokens }
        let elapsed = max(0, (instant - refilledAt).seconds)
        return min(capacity, tokens + elapsed / interval)
    }

    /// A request starts now: it takes a token. Time idle since the last one (after any hold)
    /// counts toward earning back rate, as successes would.
    mutating func requestStarted(now: Instant) {
        if let end = lastRequestEnd, interval > configuration.sustainedRequestInterval {
            // A cooldown's wait is no sign the limit has eased: only time idle after it counts.
            let idle = (now - max(end, holdUntil ?? end)).seconds
            // At most ten steps; a ratio that is not a number (an interval of zero) takes none.
            let ratio = idle / (Double(configuration.recoveryRunLength) * interval)
            let steps = ratio >= 1 ? Int(min(ratio, 10)) : 0
            for _ in 0..<steps { stepUp(now: now) }
        }
        tokens = max(0, refilled(at: now) - 1)
        refilledAt = now
        if hold(at: now) == nil {
            holdUntil = nil
            holdIsCooldown = false
        }
    }

    /// The request answered (or failed) at `now`.
    mutating func requestEnded(now: Instant) {
        lastRequestEnd = now
    }

    /// The request succeeded: a run of successes earns back rate, step by step.
    mutating func succeeded(now: Instant) {
        consecutiveCooldowns = 0
        successRun = successRun.saturatingAdd(1)
        guard successRun >= configuration.recoveryRunLength else {
            expireCeiling(now: now)
            return
        }
        successRun = 0
        stepUp(now: now)
    }

    private mutating func expireCeiling(now: Instant) {
        if let until = ceilingUntil, now >= until {
            ceilingInterval = nil
            ceilingUntil = nil
        }
    }

    /// One step of additive increase: a tenth of the configured rate, up to the learned cap.
    private mutating func stepUp(now: Instant) {
        expireCeiling(now: now)
        guard interval > configuration.sustainedRequestInterval else { return }
        let fastest = max(configuration.sustainedRequestInterval, ceilingInterval ?? 0)
        let rate = 1 / interval + 1 / (10 * configuration.sustainedRequestInterval)
        interval = max(fastest, min(interval, 1 / rate))
    }

    /// The server rate-limited the account at `now`: cools it down and learns a slower rate.
    ///
    /// - Returns: when the cooldown ends: the configured cooldown, doubled for each consecutive
    ///   one, or the server's `Retry-After` when that is longer; never more than
    ///   ``SyncConfiguration/maximumPause``.
    mutating func rateLimited(now: Instant, retryAfter: TimeInterval?) -> Instant {
        consecutiveCooldowns = consecutiveCooldowns.saturatingAdd(1)
        successRun = 0
        if let last = lastTrip, (now - last).seconds < configuration.maximumPause {
            recentTrips = recentTrips.saturatingAdd(1)
        } else {
            recentTrips = 1
        }
        lastTrip = now
        let tripped = interval
        let cap = min(tripped / configuration.learnedRateMargin, configuration.slowestRequestInterval)
        ceilingInterval = max(ceilingUntil.map { now < $0 } == true ? ceilingInterval ?? 0 : 0, cap)
        let lifetime = configuration.learnedRateLifetime * pow(2, Double(min(recentTrips - 1, 4)))
        ceilingUntil = now + min(lifetime, configuration.maximumPause)
        interval = max(min(interval * 2, configuration.slowestRequestInterval), ceilingInterval ?? 0)
        tokens = 0
        refilledAt = now
        let doubling = pow(2, Double(min(consecutiveCooldowns - 1, 20)))
        let cooldown = min(max(configuration.rateLimitCooldown * doubling, retryAfter ?? 0), configuration.maximumPause)
        hold(until: now + cooldown, now: now, cooldown: true)
        return now + cooldown
    }

    /// No request before `date` (a server's `Retry-After`, or a cooldown), whichever list asks.
    mutating func hold(until instant: Instant, now: Instant, cooldown: Bool = false) {
        if let current = hold(at: now), current >= instant { return }
        guard instant > now else { return }
        holdUntil = instant
        holdIsCooldown = cooldown
    }
}

/// What the budget learned, kept with the index so a relaunch honours it.
struct LearnedPacing: Sendable, Hashable, Decodable {
    /// When it was saved: of the two lists' copies, the later one is the account's.
    var savedAt: Date?
    var interval: TimeInterval
    var ceilingInterval: TimeInterval?
    var ceilingUntil: Date?
    var cooldownUntil: Date?
    var consecutiveCooldowns: Int
    var recentTrips: Int
    var lastTrip: Date?
}
