import BookmarkIndex
import BookmarkIndexTesting
import BookmarkSyncTesting
import BookmarkSync
import Foundation
import Synchronization
import Testing

/// The test clock's two clocks, and the engine's waits on the monotonic one.
@Suite struct TestClockTests {
    @Test func steppingTheWallClockMovesNoMonotonicDeadline() async throws {
        let clock = TestClock()
        let (start, instant) = (clock.now, clock.instant)
        clock.stepWallClock(by: -3_600)
        #expect(clock.now == start - 3_600)
        #expect(clock.instant == instant, "the monotonic clock did not move")
        let woke = Task { try await clock.sleep(until: instant.advanced(by: .seconds(5))) }
        while clock.sleeperCount == 0 { await Task.yield() }
        #expect(clock.nextDeadline == start - 3_600 + 5, "deadlines read on the wall clock")
        await clock.advance(by: 5)
        try await woke.value
        #expect(clock.instant == instant.advanced(by: .seconds(5)))
        #expect(clock.now == start - 3_600 + 5)
    }

    /// A server failure backs off 1 s; the wall clock then steps back an hour: the retry goes
    /// out one second after the failure all the same.
    @Test func theEnginesBackoffIgnoresAWallClockStep() async throws {
        let h = try await Harness(latency: 0)
        h.source.add(illusts(1, count: 10), to: .public)
        h.source.failNext(BookmarkSyncError(.server, "502"))
        let instant = h.clock.instant
        await h.engine.startAutoSync(for: .public)
        while h.clock.sleeperCount == 0 { await Task.yield() }
        h.clock.stepWallClock(by: -3_600)
        await h.run()
        #expect(await h.indexedIDs(.public) == h.serverIDs(.public))
        #expect(h.clock.instant <= instant.advanced(by: .seconds(2)), "about a second of monotonic time, not an hour")
    }

    /// Two participants: one sleeps at once, the other works through many suspensions before
    /// each sleep. Time moves only once both sleep, so the worker never sees it move while it
    /// works; and the run, which waits for sleeps rather than spinning, ends when the work
    /// ends without a sleep.
    @Test func timeMovesOnlyOnceEveryParticipantSleeps() async throws {
        let clock = TestClock()
        let start = clock.now
        let seen = Mutex<[TimeInterval]>([])
        let done = Mutex(false)
        let sleeper = Task { try await clock.sleep(for: .seconds(100)) }
        let worker = Task {
            for round in 1...3 {
                let before = clock.now
                for _ in 0..<200 { await Task.yield() }
                seen.withLock { $0.append(clock.now.timeIntervalSince(before)) }
                try await clock.sleep(for: .seconds(Double(round)))
            }
            done.withLock { $0 = true }
        }
        let finished = await clock.run(whileBusy: { !done.withLock { $0 } }, participants: { 2 })
        #expect(finished)
        try await worker.value
        #expect(seen.withLock { $0 } == [0, 0, 0], "no time passed while the worker worked")
        #expect(clock.now == start + 6, "the worker's three sleeps, one after another; the other still sleeps")
        #expect(clock.sleeperCount == 1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }
}
