import BookmarkSync
import Foundation
import Synchronization

/// A manual clock for tests: time stands still until the test moves it, so no real time passes
/// and every run is the same.
///
/// `sleep(until:)` suspends until ``advance(by:)`` or ``advance(to:)`` moves `now` to the
/// deadline; sleepers wake in deadline order (ties in the order they went to sleep), and `now`
/// reads each sleeper's deadline as it wakes. ``runUntilIdle(_:maxSteps:)`` drives a
/// ``BookmarkSyncEngine`` to completion by jumping to each deadline it waits for.
///
/// Thread-safe: all state is behind a `Mutex`.
public final class TestClock: SyncClock {
    private struct Sleeper {
        var id: UInt64
        var deadline: Date
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var sleepers: [Sleeper] = []
        var cancelled: Set<UInt64> = []
        var nextID: UInt64 = 0
    }

    private let state: Mutex<State>

    /// Creates a clock reading `now` (by default a fixed date in 2026).
    public init(now: Date = Date(timeIntervalSince1970: 1_780_000_000)) {
        state = Mutex(State(now: now))
    }

    /// The clock's current time.
    public var now: Date { state.withLock { $0.now } }

    /// The earliest deadline anyone is sleeping until, or `nil` when nobody sleeps.
    public var nextDeadline: Date? {
        state.withLock { $0.sleepers.map(\.deadline).min() }
    }

    /// How many tasks are sleeping on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Suspends until the clock reaches `deadline`; returns at once when it already has.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while sleeping.
    public func sleep(until deadline: Date) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: (any Error)?? = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return .some(CancellationError()) }
                    if deadline <= state.now { return .some(nil) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return .none
                }
                switch resumeNow {
                case .some(.some(let error)): continuation.resume(throwing: error)
                case .some(.none): continuation.resume()
                case .none: break
                }
            }
        } onCancel: {
            let sleeper: Sleeper? = state.withLock { state in
                if let index = state.sleepers.firstIndex(where: { $0.id == id }) {
                    return state.sleepers.remove(at: index)
                }
                state.cancelled.insert(id)
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Suspends for `duration` of this clock's time: `sleep(until: now + duration)`.
    ///
    /// Pass it as `FakePixiv`'s `sleep` (`sleep: clock.sleep(for:)`) so the fake's delays run
    /// on the same clock as the engine.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while sleeping.
    public func sleep(for duration: Duration) async throws {
        let parts = duration.components
        try await sleep(until: now + TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18)
    }

    /// Moves time forward by `seconds`, waking every sleeper whose deadline falls within, in
    /// deadline order, with `now` set to each one's deadline as it wakes.
    public func advance(by seconds: TimeInterval) async {
        await advance(to: now + seconds)
    }

    /// Moves time forward to `target` (never backward), waking sleepers in deadline order.
    public func advance(to target: Date) async {
        while let sleeper = popSleeper(notAfter: target) {
            sleeper.continuation.resume()
            await Task.yield()
        }
        state.withLock { $0.now = max($0.now, target) }
    }

    private func popSleeper(notAfter target: Date) -> Sleeper? {
        state.withLock { state in
            guard let index = state.sleepers.indices.min(by: { state.sleepers[$0].deadline < state.sleepers[$1].deadline }),
                  state.sleepers[index].deadline <= target
            else { return nil }
            let sleeper = state.sleepers.remove(at: index)
            state.now = max(state.now, sleeper.deadline)
            return sleeper
        }
    }

    /// Lets work run, jumping time to the next sleeper's deadline whenever `isBusy` is still
    /// `true` and someone sleeps, until `isBusy` returns `false`.
    ///
    /// Correct when every task doing the work is either running or sleeping on this clock (as
    /// a ``BookmarkSyncEngine`` and a fake source are): a sleeper then means the work waits
    /// for time. Returns `false` if the work was still busy after `maxSteps` checks.
    @discardableResult
    public func run(whileBusy isBusy: @Sendable () async -> Bool, maxSteps: Int = 5_000_000) async -> Bool {
        for _ in 0..<maxSteps {
            guard await isBusy() else { return true }
            if let sleeper = popSleeper(notAfter: .distantFuture) {
                sleeper.continuation.resume()
            }
            await Task.yield()
        }
        return false
    }

    /// Drives `engine` until it has no sync running or waiting, jumping time to each deadline
    /// it sleeps until (backoff, request spacing). No real time passes.
    @discardableResult
    public func runUntilIdle(_ engine: BookmarkSyncEngine, maxSteps: Int = 5_000_000) async -> Bool {
        await run(whileBusy: { await !engine.isIdle }, maxSteps: maxSteps)
    }
}
