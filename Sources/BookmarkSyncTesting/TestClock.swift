import BookmarkSync
import Foundation
import Synchronization

/// A manual clock for tests: time stands still until the test moves it, so no real time passes
/// and every run is the same.
///
/// `sleep(until:)` suspends until ``advance(by:)`` or ``advance(to:)`` moves time to the
/// deadline; sleepers wake in deadline order (ties in the order they went to sleep), and the
/// clock reads each sleeper's deadline as it wakes. ``runUntilIdle(_:maxSteps:)`` drives a
/// ``BookmarkSyncEngine`` to completion by jumping to each deadline it waits for.
///
/// Its monotonic ``instant`` and its wall clock ``now`` move together, unless a test steps the
/// wall clock (``stepWallClock(by:)``), as a user changing the time or an NTP correction
/// would: deadlines given as dates, and ``nextDeadline``, are on the wall clock.
///
/// Thread-safe: all state is behind a `Mutex`.
public final class TestClock: SyncClock {
    private struct Sleeper {
        var id: UInt64
        /// On the clock's own timeline (the wall clock less its steps).
        var deadline: Date
        /// The monotonic deadline it was given, if any: the clock reads at least this on waking.
        var instant: ContinuousClock.Instant?
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        /// The clock's own timeline: the wall clock less ``wallStep``.
        var now: Date
        var wallStep: TimeInterval = 0
        /// The monotonic instant never reads below the last deadline a sleeper woke at.
        var instantFloor: ContinuousClock.Instant
        var sleepers: [Sleeper] = []
        var cancelled: Set<UInt64> = []
        var nextID: UInt64 = 0
        /// How many times a task has gone to sleep: ``run(whileBusy:participants:maxSteps:)``
        /// waits for it to change rather than polling.
        var sleeps: UInt64 = 0
        /// Those waiting for the next task to go to sleep, by ID.
        var sleepWatchers: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    private let state: Mutex<State>
    private let start: Date
    private let base: ContinuousClock.Instant

    /// Creates a clock reading `now` (by default a fixed date in 2026).
    public init(now: Date = Date(timeIntervalSince1970: 1_780_000_000)) {
        start = now
        base = ContinuousClock.now
        state = Mutex(State(now: now, instantFloor: base))
    }

    /// The wall clock's current time.
    public var now: Date { state.withLock { $0.now + $0.wallStep } }

    /// The monotonic clock's current instant: moves with ``advance(by:)``, never with
    /// ``stepWallClock(by:)``.
    public var instant: ContinuousClock.Instant { state.withLock { instant(in: $0) } }

    private func instant(in state: State) -> ContinuousClock.Instant {
        // In whole microseconds: what dates near today can tell apart.
        let micros = (state.now.timeIntervalSince(start) * 1e6).rounded()
        return max(state.instantFloor, base.advanced(by: .microseconds(Int64(micros))))
    }

    /// Steps the wall clock by `seconds` (back when negative) without moving the monotonic
    /// clock: sleepers keep their deadlines in time still to pass.
    public func stepWallClock(by seconds: TimeInterval) {
        state.withLock { $0.wallStep += seconds }
    }

    /// The earliest deadline anyone is sleeping until, on the wall clock, or `nil` when nobody
    /// sleeps.
    public var nextDeadline: Date? {
        state.withLock { state in state.sleepers.map(\.deadline).min().map { $0 + state.wallStep } }
    }

    /// How many tasks are sleeping on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Suspends until the wall clock reaches `deadline`; returns at once when it already has.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while sleeping.
    public func sleep(until deadline: Date) async throws {
        try await sleep(until: .wall(deadline))
    }

    /// Suspends until the monotonic clock reaches `deadline`; returns at once when it already has.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while sleeping.
    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await sleep(until: .monotonic(deadline))
    }

    private enum Deadline {
        case wall(Date)
        case monotonic(ContinuousClock.Instant)
    }

    private func sleep(until deadline: Deadline) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                var watchers: [UInt64: CheckedContinuation<Void, Never>] = [:]
                let resumeNow: (any Error)?? = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return .some(CancellationError()) }
                    let sleeper: Sleeper
                    switch deadline {
                    case .wall(let date):
                        if date <= state.now + state.wallStep { return .some(nil) }
                        sleeper = Sleeper(id: id, deadline: date - state.wallStep, continuation: continuation)
                    case .monotonic(let instant):
                        if instant <= self.instant(in: state) { return .some(nil) }
                        sleeper = Sleeper(id: id, deadline: start + Self.seconds(instant - base), instant: instant, continuation: continuation)
                    }
                    state.sleepers.append(sleeper)
                    state.sleeps += 1
                    swap(&watchers, &state.sleepWatchers)
                    return .none
                }
                for watcher in watchers.values { watcher.resume() }
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
        try await sleep(until: now + Self.seconds(duration))
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let parts = duration.components
        return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18
    }

    /// Moves time forward by `seconds`, waking every sleeper whose deadline falls within, in
    /// deadline order, with `now` set to each one's deadline as it wakes.
    public func advance(by seconds: TimeInterval) async {
        await advance(to: now + seconds)
    }

    /// Moves time forward to the wall clock's `target` (never backward), waking sleepers in
    /// deadline order.
    public func advance(to target: Date) async {
        let own = state.withLock { target - $0.wallStep }
        while let sleeper = popSleeper(notAfter: own) {
            sleeper.continuation.resume()
            await Task.yield()
        }
        state.withLock { $0.now = max($0.now, own) }
    }

    private func popSleeper(notAfter target: Date) -> Sleeper? {
        state.withLock { state in
            guard let index = state.sleepers.indices.min(by: { state.sleepers[$0].deadline < state.sleepers[$1].deadline }),
                  state.sleepers[index].deadline <= target
            else { return nil }
            let sleeper = state.sleepers.remove(at: index)
            state.now = max(state.now, sleeper.deadline)
            if let instant = sleeper.instant { state.instantFloor = max(state.instantFloor, instant) }
            return sleeper
        }
    }

    /// Lets work run, jumping time to the next sleeper's deadline whenever `isBusy` is still
    /// `true` and every busy participant is asleep on this clock, until `isBusy` returns `false`.
    ///
    /// While a participant works, the loop does not spin: it waits for the next task to go to
    /// sleep on this clock, or for ``pollInterval`` of real time (for work that ends without
    /// sleeping, as an engine going idle does), then looks again. Spinning on `Task.yield()`
    /// took a core from the work it waited for: a walk of 100,000 bookmarks looked 7.6 million
    /// times. Real time passing changes nothing the work sees: time on this clock moves only
    /// once every participant sleeps and `isBusy` was asked.
    ///
    /// `participants` says how many tasks do the work now (for an engine, one while it is
    /// not idle; for a host, its busy engines): time moves only once at least that many sleep
    /// on this clock, so no participant still working (mid-request, writing a page) sees time
    /// jump under it. Correct when each participant, when not running, sleeps on this clock
    /// (as a ``BookmarkSyncEngine``, a host's engines and a fake source do). Returns `false` if
    /// the work was still busy after `maxSteps` checks, or when it was busy and nobody went to
    /// sleep on this clock for ``stallLimit`` of real time (a hung participant).
    @discardableResult
    public func run(
        whileBusy isBusy: @Sendable () async -> Bool,
        participants: @Sendable () async -> Int = { 1 },
        maxSteps: Int = 5_000_000
    ) async -> Bool {
        var stalledSince: ContinuousClock.Instant?
        for _ in 0..<maxSteps {
            let sleeps = state.withLock { $0.sleeps }
            let allAsleep = sleeperCount >= (await participants())
            // Asked after the sleepers were counted: had it been asked before, a participant
            // could have gone to sleep in between (a walk parking for the day), and time would
            // jump past a state `isBusy` never saw. Once every participant sleeps, nothing
            // changes until a sleeper is woken.
            guard await isBusy() else { return true }
            if allAsleep {
                if let sleeper = popSleeper(notAfter: .distantFuture) { sleeper.continuation.resume() }
                stalledSince = nil
                await Task.yield()
            } else if await nextSleep(after: sleeps) {
                stalledSince = nil
            } else {
                let since = stalledSince ?? ContinuousClock.now
                stalledSince = since
                if ContinuousClock.now - since > Self.stallLimit { return false }
            }
        }
        return false
    }

    /// How long ``run(whileBusy:participants:maxSteps:)`` waits for a task to go to sleep
    /// before it asks `isBusy` again: real time, for work that ends without sleeping.
    public static let pollInterval: Duration = .microseconds(500)

    /// How long ``run(whileBusy:participants:maxSteps:)`` lets busy work go without anyone
    /// going to sleep on the clock before it gives up: real time.
    public static let stallLimit: Duration = .seconds(60)

    /// Waits until a task goes to sleep on this clock after `sleeps` sleeps (at once if one
    /// already has), or ``pollInterval`` of real time passes. Returns whether one went to sleep.
    private func nextSleep(after sleeps: UInt64) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let id: UInt64? = state.withLock { state in
                guard state.sleeps == sleeps else { return nil }
                state.nextID += 1
                state.sleepWatchers[state.nextID] = continuation
                return state.nextID
            }
            guard let id else { return continuation.resume() }
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.seconds(Self.pollInterval)) { [self] in
                self.state.withLock { $0.sleepWatchers.removeValue(forKey: id) }?.resume()
            }
        }
        return state.withLock { $0.sleeps } != sleeps
    }

    /// Drives `engine` until it has no sync running or waiting, jumping time to each deadline
    /// it sleeps until (backoff, request spacing) once it sleeps. No real time passes.
    @discardableResult
    public func runUntilIdle(_ engine: BookmarkSyncEngine, maxSteps: Int = 5_000_000) async -> Bool {
        await run(whileBusy: { await !engine.isIdle }, maxSteps: maxSteps)
    }
}
