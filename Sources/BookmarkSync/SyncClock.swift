import Foundation

/// The engine's sense of time: wall-clock `now` and a way to wait.
///
/// Inject `TestClock` (from BookmarkIndexTesting) in tests so no real time passes; use
/// ``SystemSyncClock`` in an app.
public protocol SyncClock: Sendable {
    /// The current wall-clock time.
    var now: Date { get }

    /// Suspends until `deadline` (returns at once when it has passed).
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled while waiting.
    func sleep(until deadline: Date) async throws
}

/// The real clock: `Date()` and `Task.sleep`.
public struct SystemSyncClock: SyncClock {
    /// Creates the system clock.
    public init() {}

    /// `Date()`.
    public var now: Date { Date() }

    /// Sleeps with `Task.sleep` until `deadline`.
    public func sleep(until deadline: Date) async throws {
        let seconds = deadline.timeIntervalSinceNow
        if seconds > 0 {
            // A deadline at `Date.distantFuture` (or past Duration's range) waits a century.
            try await Task.sleep(for: .seconds(min(seconds, 100 * 365 * 86_400)))
        }
    }
}
