import Foundation

extension SharedEgressBudget {
    /// The limits of one egress address, and how refusals are classified.
    ///
    /// The defaults keep well inside a limit of 100 requests per 120 seconds per address (the
    /// shape users report for Pixiv): a burst of 10, then one request every 1.5 s, so no 120 s
    /// holds more than 90.
    public struct Configuration: Sendable, Hashable {
        /// Requests that may go at ``minimumSpacing`` before the sustained pace applies.
        public var burst: Int
        /// The sustained pace: one request per this many seconds, for the whole address.
        public var interval: TimeInterval
        /// The least time between two requests through the address, whatever the bucket holds.
        public var minimumSpacing: TimeInterval
        /// How much later than its slot a waiting account is told to ask again, at most, as a
        /// fraction of ``interval``: accounts never move in step.
        public var jitter: Double
        /// Refusals of this many different accounts within ``refusalWindow`` are the
        /// address's, not theirs.
        public var accountsRefusedForEgressCooldown: Int
        /// The window in which refusals of different accounts count together, in seconds.
        public var refusalWindow: TimeInterval
        /// How long the address cools down after its refusal, in seconds; doubled for each one
        /// in a row (a longer `Retry-After` wins), at most ``maximumCooldown``.
        public var egressCooldown: TimeInterval
        /// The longest cooldown of the address, in seconds.
        public var maximumCooldown: TimeInterval
        /// An account refused this many times within ``quarantineWindow`` is quarantined.
        public var refusalsBeforeQuarantine: Int
        /// The window of an account's refusals, in seconds.
        public var quarantineWindow: TimeInterval
        /// How long a quarantined account gets no turn, in seconds.
        public var quarantineDuration: TimeInterval
        /// Seeds the jitter, for a run that is the same every time (tests); `nil` draws it from
        /// the system's generator.
        public var seed: UInt64?

        /// Creates a configuration; every parameter defaults to the value described on its
        /// property.
        public init(
            burst: Int = 10, interval: TimeInterval = 1.5, minimumSpacing: TimeInterval = 0.2, jitter: Double = 0.2,
            accountsRefusedForEgressCooldown: Int = 2, refusalWindow: TimeInterval = 60,
            egressCooldown: TimeInterval = 300, maximumCooldown: TimeInterval = 3_600,
            refusalsBeforeQuarantine: Int = 3, quarantineWindow: TimeInterval = 3_600, quarantineDuration: TimeInterval = 3_600,
            seed: UInt64? = nil
        ) {
            self.burst = burst
            self.interval = interval
            self.minimumSpacing = minimumSpacing
            self.jitter = jitter
            self.accountsRefusedForEgressCooldown = accountsRefusedForEgressCooldown
            self.refusalWindow = refusalWindow
            self.egressCooldown = egressCooldown
            self.maximumCooldown = maximumCooldown
            self.refusalsBeforeQuarantine = refusalsBeforeQuarantine
            self.quarantineWindow = quarantineWindow
            self.quarantineDuration = quarantineDuration
            self.seed = seed
        }
    }
}
