@testable import BookmarkIndex
import Dispatch
import Foundation
import Synchronization
import Testing

@Suite struct IOThreadPoolTests {
    @Test func workRunsOnThePoolsThreadsNotTheCallers() async throws {
        let pool = IOThreadPool(threads: 2)
        #expect(try await pool.run { IOThreadPool.isPoolThread })
        #expect(!IOThreadPool.isPoolThread, "the test itself runs on the cooperative pool")
        #expect(try await pool.run { pool.isCurrentThreadInPool })
        #expect(try await !IOThreadPool(threads: 1).run { pool.isCurrentThreadInPool })
    }

    final class Counts: Sendable {
        let value = Mutex((active: 0, most: 0, started: 0))
        func withLock<R: Sendable>(_ body: (inout sending (active: Int, most: Int, started: Int)) -> sending R) -> R { value.withLock(body) }
    }

    @Test func neverMoreWorkAtOnceThanThreads() async throws {
        let pool = IOThreadPool(threads: 2)
        let counts = Counts()
        let release = DispatchSemaphore(value: 0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    try await pool.run {
                        counts.withLock { counts in
                            counts.active += 1
                            counts.started += 1
                            counts.most = max(counts.most, counts.active)
                        }
                        release.wait()
                        counts.withLock { $0.active -= 1 }
                    }
                }
            }
            // Both threads busy: the other four wait in the queue, however long we look.
            while counts.withLock({ $0.started }) < 2 { await Task.yield() }
            for _ in 0..<1_000 { await Task.yield() }
            #expect(counts.withLock { $0.started } == 2)
            for _ in 0..<6 { release.signal() }
            try await group.waitForAll()
        }
        #expect(counts.withLock { $0.most } == 2)
        #expect(counts.withLock { $0.started } == 6)
    }

    @Test func waitingForWorkOnAOneThreadPoolRunsItInsteadOfDeadlocking() async throws {
        let pool = IOThreadPool(threads: 1)
        let answer = try await pool.run { () throws -> Int in
            let inner = pool.start { 41 }
            let nested = pool.start { () throws -> Int in
                let innermost = pool.start { 1 }
                return try innermost.wait()
            }
            return try inner.wait() + nested.wait()
        }
        #expect(answer == 42)
    }

    final class Log: Sendable {
        private let entries = Mutex<[String]>([])
        func append(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    /// Whether the calling code runs inside a task: work run in place does, work handed to a
    /// pool thread does not.
    static let inATask: @Sendable () -> Bool = { withUnsafeCurrentTask { $0 != nil } }

    @Test func aTaskOnThePoolRunsItsWorkInPlace() async throws {
        let pool = IOThreadPool(threads: 2)
        try await withTaskExecutorPreference(pool) { () async throws in
            #expect(IOThreadPool.isPoolThread, "the task runs on the pool")
            #expect(try await pool.run(Self.inATask))
        }
        #expect(try await !pool.run(Self.inATask), "from the cooperative pool the work is handed over")
    }

    @Test func aTaskOnThePoolWaitsItsTurnBehindWorkQueuedBeforeIt() async throws {
        let pool = IOThreadPool(threads: 1)
        let log = Log()
        try await withTaskExecutorPreference(pool) {
            // The pool's one thread runs this task, so work started now waits in the queue:
            // the run goes behind it instead of ahead.
            let queued = pool.start { log.append("queued") }
            let inPlace = try await pool.run {
                log.append("run")
                return Self.inATask()
            }
            #expect(!inPlace)
            try queued.wait()
        }
        #expect(log.all == ["queued", "run"])
    }

    @Test func aTaskOnOnePoolStillSendsAnotherPoolsWorkThere() async throws {
        let mine = IOThreadPool(threads: 1)
        let other = IOThreadPool(threads: 1)
        try await withTaskExecutorPreference(mine) {
            let ranOn = try await other.run { (other: other.isCurrentThreadInPool, mine: mine.isCurrentThreadInPool) }
            #expect(ranOn.other && !ranOn.mine)
        }
    }

    @Test func anErrorReachesTheCaller() async throws {
        struct Expected: Error {}
        await #expect(throws: Expected.self) { try await IOThreadPool(threads: 1).run { throw Expected() } }
    }
}
