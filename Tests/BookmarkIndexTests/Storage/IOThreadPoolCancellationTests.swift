@testable import BookmarkIndex
import Dispatch
import Synchronization
import Testing

/// `IOThreadPool.run` refuses work for a cancelled caller before a thread takes it, and never
/// interrupts work it has started; a lane keeps a storage's jobs to one thread. A regression in
/// the lane hangs instead of failing, so the suite has a time limit.
@Suite(.hangLimit) struct IOThreadPoolCancellationTests {
    final class Flag: Sendable {
        private let value = Mutex(false)
        func set() { value.withLock { $0 = true } }
        var isSet: Bool { value.withLock { $0 } }
    }

    /// Occupies one thread of `pool` until `release` is signalled; returns once it runs.
    static func occupyThread(of pool: IOThreadPool, until release: DispatchSemaphore) async {
        let (started, continuation) = AsyncStream.makeStream(of: Void.self)
        pool.submit {
            continuation.yield()
            release.wait()
        }
        var iterator = started.makeAsyncIterator()
        await iterator.next()
    }

    @Test func workForACallerAlreadyCancelledNeverStarts() async throws {
        let pool = IOThreadPool(threads: 1)
        let ran = Flag()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await pool.run { ran.set() }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        try await pool.run {} // anything queued has run by now
        #expect(!ran.isSet)
    }

    @Test func workQueuedWhenItsCallerIsCancelledNeverStarts() async throws {
        let pool = IOThreadPool(threads: 1)
        let release = DispatchSemaphore(value: 0)
        await Self.occupyThread(of: pool, until: release)
        let ran = Flag()
        let task = Task { try await pool.run { ran.set() } }
        while !pool.hasWaitingWork { await Task.yield() } // queued behind the busy thread
        task.cancel()
        // Resumed at once, while the pool's only thread is still busy.
        await #expect(throws: CancellationError.self) { try await task.value }
        release.signal()
        try await pool.run {}
        #expect(!ran.isSet, "the refused work ran when its turn came")
    }

    @Test func workStartedRunsToTheEndWhenItsCallerIsCancelled() async throws {
        let pool = IOThreadPool(threads: 1)
        let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
        let proceed = DispatchSemaphore(value: 0)
        let finished = Flag()
        let task = Task {
            try await pool.run { () -> Int in
                startedContinuation.yield()
                proceed.wait()
                finished.set()
                return 42
            }
        }
        var iterator = started.makeAsyncIterator()
        await iterator.next()
        task.cancel()
        proceed.signal()
        #expect(try await task.value == 42)
        #expect(finished.isSet)
    }

    @Test func workThatMustRunRunsForACancelledCaller() async throws {
        let pool = IOThreadPool(threads: 1)
        let lane = IOThreadPool.Lane(onto: pool)
        let answers = try await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return (try await pool.runEvenIfCancelled { 1 }, try await lane.runEvenIfCancelled { 2 })
        }.value
        #expect(answers == (1, 2))
        await #expect(throws: CancellationError.self) {
            try await Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await lane.run { 3 }
            }.value
        }
    }

    @Test func aLaneHoldsOneThreadWhileItsJobsWaitAndTheOthersWorkGoesOn() async throws {
        let pool = IOThreadPool(threads: 2)
        let lane = IOThreadPool.Lane(onto: pool)
        let log = IOThreadPoolTests.Log()
        let release = DispatchSemaphore(value: 0)
        let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
        let first = Task {
            try await lane.run {
                startedContinuation.yield()
                release.wait()
                log.append("1")
            }
        }
        var iterator = started.makeAsyncIterator()
        await iterator.next()
        let second = Task { try await lane.run { log.append("2") } }
        while lane.waitingJobs < 1 { await Task.yield() }
        let third = Task { try await lane.run { log.append("3") } }
        while lane.waitingJobs < 2 { await Task.yield() }
        // Two jobs wait in the lane, not on the pool: its other thread is free for other work.
        #expect(try await pool.run { 7 } == 7)
        #expect(log.all.isEmpty)
        let refused = Task { try await lane.run { log.append("refused") } }
        while lane.waitingJobs < 3 { await Task.yield() }
        refused.cancel()
        await #expect(throws: CancellationError.self) { try await refused.value }
        release.signal()
        try await first.value
        try await second.value
        try await third.value
        try await lane.run {}
        #expect(log.all == ["1", "2", "3"])
    }

    @Test func aTaskOnThePoolRunsALanesWorkInPlaceWhenNothingWaits() async throws {
        let pool = IOThreadPool(threads: 2)
        let lane = IOThreadPool.Lane(onto: pool)
        try await withTaskExecutorPreference(pool) { () async throws in
            #expect(try await lane.run(IOThreadPoolTests.inATask))
            #expect(try await lane.runEvenIfCancelled(IOThreadPoolTests.inATask))
        }
        #expect(try await !lane.run(IOThreadPoolTests.inATask), "from the cooperative pool the work is handed over")
    }

    @Test func waitingForALaneOnAOneThreadPoolRunsItsJobsInsteadOfDeadlocking() async throws {
        let pool = IOThreadPool(threads: 1)
        let lane = IOThreadPool.Lane(onto: pool)
        let log = IOThreadPoolTests.Log()
        let release = DispatchSemaphore(value: 0)
        await Self.occupyThread(of: pool, until: release)
        // Queued on the pool ahead of the lane's turn: it finds the lane's job waiting for a
        // thread (its own), and runs it before its own.
        let blocking = pool.start { try lane.runBlocking { log.append("blocking") } }
        let queued = Task { try await lane.run { log.append("queued") } }
        while lane.waitingJobs < 1 { await Task.yield() }
        release.signal()
        try await queued.value
        try await pool.run { try blocking.wait() }
        #expect(log.all == ["queued", "blocking"])
    }
}
