import Foundation

/// The engine's sense of time: a monotonic clock its waits are measured on, and the wall clock
/// for what it persists and shows.
///
/// Waits (request spacing, backoffs, cooldowns) are instants of the monotonic clock, so a wall
/// clock stepped back or forward (a user changing the time, an NTP correction) neither
/// stretches nor cuts one. Dates are for what outlives the process (a pause, the learned
/// pacing, the day's spend, sync times) and for what a status shows.
///
/// Inject `TestClock` (from BookmarkSyncTesting) in tests so no real time passes; use
/// ``SystemSyncClock`` in an app.
public protocol SyncClock: Sendable {
    /// The current wall-clock time.
    var now: Date { get }

    /// The current instant of the monotonic clock: never goes back, whatever the wall clock does.
    var instant: ContinuousClock.Instant { get }

    /// Suspends until the monotonic clock reaches `deadline` (returns at once when it has).
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled while waiting.
    func sleep(until deadline: ContinuousClock.Instant) async throws
}

/// The real clocks: `Date()` and `ContinuousClock`.
public struct SystemSyncClock: SyncClock {
    /// Creates the system clock.
    public init() {}

    /// `Date()`.
    public var now: Date { Date() }

    /// `ContinuousClock.now`.
    public var instant: ContinuousClock.Instant { ContinuousClock.now }

    /// Sleeps on `ContinuousClock` until `deadline` (at most a century away).
    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        let now = ContinuousClock.now
        guard deadline > now else { return }
        try await ContinuousClock().sleep(until: min(deadline, now + .century))
    }
}
