import BookmarkIndex
import Foundation

/// The decisions of a ``SharedEgressBudget``, as a pure value: every event takes `now`.
struct EgressScheduler: Sendable {
    typealias Instant = ContinuousClock.Instant

    /// An account waiting for a turn.
    private struct Waiter {
        /// Turns the account had when it began waiting: fixed while it waits, as only a grant
        /// (which ends the wait) adds one.
        var served: UInt64
        var neverSynced: Bool
        /// Its place among equals: who came first.
        var arrival: UInt64
        /// The instant it was last told to ask again at; a waiter that lets it pass by far is
        /// gone (its engine stopped without leaving) and keeps no one waiting.
        var slot: Instant
    }

    let configuration: SharedEgressBudget.Configuration
    private var tokens: Double
    private var refilledAt: Instant?
    private var lastGrant: Instant?
    /// No turn before this: the address cools down.
    private var holdUntil: Instant?
    private var consecutiveEgressCooldowns = 0
    private var waiting: [AccountID: Waiter] = [:]
    private var arrivals: UInt64 = 0
    /// Turns taken, per account: the fair-queueing clock (a newcomer starts level with the least
    /// served of those waiting).
    private var served: [AccountID: UInt64] = [:]
    private(set) var granted: [AccountID: Int] = [:]
    /// Recent rate-limit answers: which account, when.
    private var refusals: [(account: AccountID, at: Instant)] = []
    private var accountRefusals: [AccountID: [Instant]] = [:]
    private var quarantinedUntil: [AccountID: Instant] = [:]
    private var random: SplitMix64

    init(configuration: SharedEgressBudget.Configuration) {
        self.configuration = configuration
        tokens = Double(max(1, configuration.burst))
        random = SplitMix64(seed: configuration.seed ?? UInt64.random(in: .min ... .max))
    }

    private var interval: TimeInterval { max(configuration.interval, configuration.minimumSpacing, 0.001) }

    // MARK: Turns

    mutating func turn(_ request: EgressRequest, now: Instant) -> EgressTurn {
        let account = request.account
        if let until = quarantinedUntil[account] {
            if now < until { return .wait(until: until) }
            quarantinedUntil[account] = nil
        }
        forgetGoneWaiters(now: now)
        if waiting[account] == nil {
            let level = waiting.values.map(\.served).min() ?? served.values.max() ?? 0
            let start = max(served[account] ?? 0, level)
            served[account] = start
            arrivals += 1
            waiting[account] = Waiter(served: start, neverSynced: request.neverSynced, arrival: arrivals, slot: now)
        }
        waiting[account]?.neverSynced = request.neverSynced
        // Its place: how many waiting accounts go before it (one pass, no sort).
        guard let mine = waiting[account] else { return .wait(until: now + interval) }
        let ahead = waiting.values.reduce(0) { $0 + (Self.goesBefore($1, mine) ? 1 : 0) }
        let first = earliestGrant(now: now)
        if ahead == 0, first <= now {
            grant(account, now: now)
            return .go
        }
        // Its estimated slot: the first grant, then one interval per account ahead of it.
        let place = Double(ahead)
        let estimate = first + place * interval
        let slot = max(estimate, now + 0.001) + random.fraction() * configuration.jitter * interval
        waiting[account]?.slot = slot
        return .wait(until: slot)
    }

    /// Whether `lhs` gets its turn before `rhs`: fewer turns first, then never-synced lists,
    /// then who came first.
    private static func goesBefore(_ lhs: Waiter, _ rhs: Waiter) -> Bool {
        if lhs.served != rhs.served { return lhs.served < rhs.served }
        if lhs.neverSynced != rhs.neverSynced { return lhs.neverSynced }
        return lhs.arrival < rhs.arrival
    }

    /// When the address may give its next turn.
    private func earliestGrant(now: Instant) -> Instant {
        var start = now
        if let holdUntil, holdUntil > start { start = holdUntil }
        if let lastGrant { start = max(start, lastGrant + configuration.minimumSpacing) }
        let level = refilled(at: start)
        if level < 1 { start = start + (1 - level) * interval }
        return start
    }

    private func refilled(at instant: Instant) -> Double {
        guard let refilledAt else { return tokens }
        return min(Double(max(1, configuration.burst)), tokens + max(0, (instant - refilledAt).seconds) / interval)
    }

    private mutating func grant(_ account: AccountID, now: Instant) {
        tokens = max(0, refilled(at: now) - 1)
        refilledAt = now
        lastGrant = now
        waiting[account] = nil
        served[account, default: 0] += 1
        granted[account, default: 0] += 1
    }

    /// Waiters that let their slot pass by more than a few intervals asked for no turn since:
    /// their engine stopped without ``leave(_:)``.
    private mutating func forgetGoneWaiters(now: Instant) {
        let grace = max(5, 4 * interval)
        waiting = waiting.filter { now < $0.value.slot + grace }
    }

    mutating func leave(_ account: AccountID) {
        waiting[account] = nil
    }

    // MARK: Answers

    mutating func finished(_ request: EgressRequest, answer: EgressAnswer, now: Instant) -> EgressVerdict {
        guard case .rateLimited(let retryAfter) = answer else {
            if answer == .answered { consecutiveEgressCooldowns = 0 }
            return .none
        }
        let account = request.account
        let window = Duration.seconds(configuration.refusalWindow)
        refusals.removeAll { now - $0.at > window }
        refusals.append((account, now))
        if Set(refusals.map(\.account)).count >= max(2, configuration.accountsRefusedForEgressCooldown) {
            // Several accounts refused at once: the address's limit, not theirs.
            refusals.removeAll()
            let doubling = pow(2, Double(min(consecutiveEgressCooldowns, 10)))
            consecutiveEgressCooldowns += 1
            let asked = retryAfter.map(\.seconds) ?? 0
            let cooldown = min(max(configuration.egressCooldown * doubling, asked), configuration.maximumCooldown)
            let until = now + cooldown
            holdUntil = max(holdUntil ?? until, until)
            // After a cooldown the bucket starts empty: no burst into a limit just tripped.
            tokens = 0
            refilledAt = until
            return .egress(until: until)
        }
        let quarantineWindow = Duration.seconds(configuration.quarantineWindow)
        var times = (accountRefusals[account] ?? []).filter { now - $0 < quarantineWindow }
        times.append(now)
        guard times.count >= max(1, configuration.refusalsBeforeQuarantine) else {
            accountRefusals[account] = times
            return .account
        }
        accountRefusals[account] = nil
        let until = now + configuration.quarantineDuration
        quarantinedUntil[account] = until
        waiting[account] = nil
        return .quarantined(until: until)
    }
}
