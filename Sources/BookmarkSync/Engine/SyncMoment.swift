import Foundation

/// A moment as the engine sees it: the monotonic instant its waits are measured in, and the
/// wall-clock date, for what is persisted and shown.
///
/// Waits (spacing, backoffs, cooldowns, holds) live on the monotonic clock, so a wall clock
/// stepped back or forward neither stretches nor cuts one. Dates serve what outlives the process
/// (a pause, the learned pacing, the day's spend, sync times) and what a status shows; a moment
/// converts between the two as of itself.
struct SyncMoment: Sendable, Hashable {
    var instant: ContinuousClock.Instant
    var date: Date

    init(instant: ContinuousClock.Instant, date: Date) {
        self.instant = instant
        self.date = date
    }

    /// The wall-clock date of `instant`, as of this moment: to show or persist a wait.
    func date(of instant: ContinuousClock.Instant) -> Date {
        date + (instant - self.instant).seconds
    }

    /// The instant of the wall-clock `date`, as of this moment: to take back a persisted wait.
    func instant(of date: Date) -> ContinuousClock.Instant {
        instant + date.timeIntervalSince(self.date)
    }
}

extension ContinuousClock.Instant {
    /// The instant `seconds` later (earlier when negative), at most a century either way: a
    /// number from the disk or the server that is not finite, or absurdly large, cannot trap.
    static func + (instant: ContinuousClock.Instant, seconds: TimeInterval) -> ContinuousClock.Instant {
        instant.advanced(by: .clampedSeconds(seconds))
    }
}

extension TimeInterval {
    /// A century: the longest any wait or offset is taken to be.
    static let century: TimeInterval = 100 * 365 * 86_400
}

extension Duration {
    /// `seconds` as a duration in whole nanoseconds, within a century either way (`NaN`:
    /// zero). Whole nanoseconds add up exactly, so waits built from the same figures compare
    /// equal however they were summed.
    static func clampedSeconds(_ seconds: TimeInterval) -> Duration {
        guard !seconds.isNaN else { return .zero }
        return .nanoseconds(Int64((min(max(seconds, -.century), .century) * 1e9).rounded()))
    }

    /// The duration in seconds.
    var seconds: TimeInterval {
        let parts = components
        return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18
    }
}
