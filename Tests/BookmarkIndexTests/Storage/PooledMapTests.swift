@testable import BookmarkIndex
import Dispatch
import Foundation
import Synchronization
import Testing

/// `IOThreadPool.map`: one blocking job split into pieces over the pool's free threads.
@Suite struct PooledMapTests {
    /// Every piece's value, in order, as the pieces are consumed.
    static func values<Value: Sendable>(_ pool: IOThreadPool, _ count: Int, _ body: @escaping @Sendable (Int) -> Value) -> [Value] {
        var values: [Value] = []
        pool.map(count, body, consumingInOrder: { _, value in values.append(value) })
        return values
    }

    final class Calls: Sendable {
        private let counts = Mutex<[Int: Int]>([:])
        func record(_ index: Int) { counts.withLock { $0[index, default: 0] += 1 } }
        var all: [Int: Int] { counts.withLock { $0 } }
    }

    @Test(arguments: [1, 2, 4])
    func everyPieceIsComputedOnceAndReturnedInOrder(threads: Int) async throws {
        let pool = IOThreadPool(threads: threads)
        for count in [0, 1, 7, 100] {
            let calls = Calls()
            let squares = try await pool.run {
                Self.values(pool, count) { index in
                    calls.record(index)
                    return index * index
                }
            }
            #expect(squares == (0..<count).map { $0 * $0 })
            #expect(calls.all == Dictionary(uniqueKeysWithValues: (0..<count).map { ($0, 1) }))
        }
    }

    /// A gate a pool thread waits at; a failed test opens it after two minutes rather than
    /// hang. Not sooner: in a loaded test run the test's own task can wait seconds for a
    /// thread, and a gate that opened meanwhile freed the thread the test needed busy (a run
    /// failed so when it opened after ten seconds).
    final class Gate: Sendable {
        private let semaphore = DispatchSemaphore(value: 0)
        private let isOpen = Mutex(false)
        func open() {
            isOpen.withLock { $0 = true }
            semaphore.signal()
        }
        /// Blocks: for a pool thread.
        func pass() -> Bool { semaphore.wait(timeout: .now() + 120) == .success }
        /// For the test's task, which must not block its thread.
        func opened() async {
            while !isOpen.withLock({ $0 }) { await Task.yield() }
        }
    }

    @Test func onAPoolWhoseOtherThreadsAreBusyTheCallerComputesEveryPiece() async throws {
        let pool = IOThreadPool(threads: 2)
        let busy = Gate(), started = Gate()
        pool.submit { started.open(); _ = busy.pass() }
        await started.opened()
        let threads = try await pool.run { () -> (caller: pthread_t, pieces: [pthread_t]) in
            (pthread_self(), Self.values(pool, 5) { _ in pthread_self() })
        }
        busy.open()
        #expect(threads.pieces.allSatisfy { pthread_equal($0, threads.caller) != 0 })
    }

    @Test func aHelpingThreadGoesBehindWorkQueuedMeanwhileAfterEachPiece() async throws {
        let pool = IOThreadPool(threads: 2)
        let busy = Gate(), started = Gate(), queuedRan = Gate()
        let done = Mutex<[Int]>([])
        // The pool's other thread is busy, so the caller takes piece 0; there it queues work and
        // frees that thread, whose helping then computes piece 1 and must let the queued work
        // run before it takes piece 2 (which the caller, held in piece 0 until then, leaves).
        pool.submit { started.open(); _ = busy.pass() }
        await started.opened()
        let seenByQueued = Mutex<[Int]?>(nil)
        try await pool.run {
            _ = Self.values(pool, 3) { index in
                if index == 0 {
                    pool.submit {
                        seenByQueued.withLock { $0 = done.withLock { $0 } }
                        queuedRan.open()
                    }
                    busy.open()
                    _ = queuedRan.pass()
                }
                done.withLock { $0.append(index) }
                return index
            }
        }
        #expect(seenByQueued.withLock { $0 } == [1], "the work queued during piece 0 ran after one piece of helping, not all")
        #expect(Set(done.withLock { $0 }) == [0, 1, 2])
    }

    /// `map(_:_:consumingInOrder:)`: each piece consumed once, in order, on the calling thread,
    /// whichever thread computed it, and consuming starts before the last piece is computed.
    @Test(arguments: [1, 2, 4])
    func piecesAreConsumedInOrderOnTheCallingThread(threads: Int) async throws {
        let pool = IOThreadPool(threads: threads)
        for count in [0, 1, 7, 100] {
            let calls = Calls()
            let outcome = try await pool.run { () -> (consumed: [Int], onCaller: Bool, computedWhenFirstConsumed: Int) in
                let caller = pthread_self()
                var consumed: [Int] = [], onCaller = true, computedWhenFirstConsumed = -1
                pool.map(count, { index in
                    calls.record(index)
                    return index * index
                }, consumingInOrder: { index, square in
                    #expect(square == index * index)
                    if consumed.isEmpty { computedWhenFirstConsumed = calls.all.count }
                    consumed.append(index)
                    onCaller = onCaller && pthread_equal(pthread_self(), caller) != 0
                })
                return (consumed, onCaller, computedWhenFirstConsumed)
            }
            #expect(outcome.consumed == Array(0..<count))
            #expect(outcome.onCaller)
            #expect(calls.all == Dictionary(uniqueKeysWithValues: (0..<count).map { ($0, 1) }))
            // One thread: the caller consumes piece 0 as soon as it computed it.
            if threads == 1 && count > 0 { #expect(outcome.computedWhenFirstConsumed == 1) }
        }
    }

    struct Refused: Error {}

    /// When consuming throws, the error comes back and nothing is consumed after it; on one
    /// thread, no piece is computed after it either (a helper may have run ahead before it).
    @Test(arguments: [1, 2])
    func aConsumerThatThrowsStopsThePieces(threads: Int) async throws {
        let pool = IOThreadPool(threads: threads)
        let calls = Calls()
        let consumed = Mutex<[Int]>([])
        await #expect(throws: Refused.self) {
            try await pool.run {
                try pool.map(50, { index in
                    calls.record(index)
                    return index
                }, consumingInOrder: { index, _ in
                    consumed.withLock { $0.append(index) }
                    if index == 3 { throw Refused() }
                })
            }
        }
        #expect(consumed.withLock { $0 } == [0, 1, 2, 3])
        if threads == 1 { #expect(calls.all.keys.sorted() == [0, 1, 2, 3]) }
        #expect(calls.all.values.allSatisfy { $0 == 1 })
    }
}
