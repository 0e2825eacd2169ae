import BookmarkIndex
import BookmarkIndexTesting
import BookmarkSyncTesting
import BookmarkSync
import Foundation
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
}
