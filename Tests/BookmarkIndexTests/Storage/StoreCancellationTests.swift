@_spi(Testing) @testable import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import Testing

/// A store's storage work for a cancelled task does not start, and leaves the index and the
/// journal in agreement; what has started finishes; closing and a compaction that has begun
/// finish from a cancelled task. A regression may hang instead of failing, hence the time limit.
@Suite(.hangLimit) struct StoreCancellationTests {
    /// Runs `body` in a task that is cancelled before it starts.
    static func inACancelledTask<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) async throws -> Value {
        try await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await body()
        }.value
    }

    @Test func aWriteFromACancelledTaskChangesNothingAndTheNextWriteWorks() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let options = storeOptions(PosixFileSystem())
        let store = try await BookmarksIndexStore.open(directory: directory.url, options: options)
        try await store.apply(generatedBatch(first: 1, count: 10))
        let journalBefore = directory.journalFingerprint()
        await #expect(throws: CancellationError.self) {
            try await Self.inACancelledTask { try await store.apply(generatedBatch(first: 100, count: 10)) }
        }
        await #expect(throws: CancellationError.self) {
            try await Self.inACancelledTask { try await store.update { _ in (generatedBatch(first: 200, count: 1), ()) } }
        }
        await #expect(throws: CancellationError.self) { try await Self.inACancelledTask { try await store.resetStore() } }
        #expect(await store.count(in: .public) == 10)
        #expect(directory.journalFingerprint() == journalBefore)
        try await store.apply(generatedBatch(first: 300, count: 5))
        try await store.close()
        let reopened = try await BookmarksIndexStore.open(directory: directory.url, options: options)
        #expect(await reopened.bookmarks(in: .public).ids.sorted() == Array(1...10) + Array(300..<305))
        try await reopened.close()
    }

    @Test func aWriteQueuedBehindAnotherStoreWhenItsTaskIsCancelledChangesNothing() async throws {
        let (first, second) = (TemporaryDirectory(), TemporaryDirectory())
        defer { first.remove(); second.remove() }
        let gate = SynchronizeGate()
        var options = storeOptions(gate.fileSystem)
        options.ioPool = IOThreadPool(threads: 1)
        let held = try await BookmarksIndexStore.open(directory: first.url, options: options)
        let store = try await BookmarksIndexStore.open(directory: second.url, options: options)
        gate.holdNextSynchronize(ofFileEndingWith: first.journalPath)
        let holding = Task { try await held.apply(generatedBatch(first: 1, count: 3)) }
        var holds = gate.held.makeAsyncIterator()
        _ = await holds.next() // the pool's only thread is in the first store's fsync
        let refused = Task { try await store.update { _ in (generatedBatch(first: 50, count: 3), "written") } }
        while !options.ioPool.hasWaitingWork { await Task.yield() }
        refused.cancel()
        await #expect(throws: CancellationError.self) { try await refused.value }
        gate.letGo()
        try await holding.value
        #expect(await store.count(in: .public) == 0)
        #expect(try await store.health().journal?.batches == 0)
        try await store.apply(generatedBatch(first: 80, count: 2))
        try await store.close()
        let reopened = try await BookmarksIndexStore.open(directory: second.url, options: options)
        #expect(await reopened.bookmarks(in: .public).ids.sorted() == [80, 81])
        try await reopened.close()
        try await held.close()
    }

    @Test func aWriteStartedFinishesWhenItsTaskIsCancelled() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let gate = SynchronizeGate()
        let options = storeOptions(gate.fileSystem)
        let store = try await BookmarksIndexStore.open(directory: directory.url, options: options)
        gate.holdNextSynchronize(ofFileEndingWith: JournalStorage.journalFileName)
        let writing = Task { try await store.apply(generatedBatch(first: 1, count: 4)) }
        var holds = gate.held.makeAsyncIterator()
        _ = await holds.next() // inside its fsync
        writing.cancel()
        gate.letGo()
        try await writing.value
        #expect(await store.count(in: .public) == 4)
        try await store.close()
        let reopened = try await BookmarksIndexStore.open(directory: directory.url, options: options)
        #expect(await reopened.count(in: .public) == 4)
        try await reopened.close()
    }

    @Test func aHealthCheckQueuedForACancelledCallerDoesNotStart() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let gate = SynchronizeGate()
        let journal = try await JournalStorage.open(directory: directory.url, options: storeOptions(gate.fileSystem))
        let store = try await BookmarksIndexStore(storage: journal)
        try await store.apply(generatedBatch(first: 1, count: 3))
        let readBefore = gate.fileSystem.bytesRead(of: directory.journalPath)
        gate.holdNextSynchronize(ofFileEndingWith: JournalStorage.journalFileName)
        let writing = Task { try await store.apply(generatedBatch(first: 10, count: 3)) }
        var holds = gate.held.makeAsyncIterator()
        _ = await holds.next()
        let health = Task { try await store.health() }
        while journal.lane.waitingJobs < 1 { await Task.yield() } // behind the write, in the lane
        health.cancel()
        await #expect(throws: CancellationError.self) { try await health.value }
        gate.letGo()
        try await writing.value
        try await store.apply(generatedBatch(first: 20, count: 1)) // the lane has run everything queued
        await #expect(throws: CancellationError.self) {
            try await Self.inACancelledTask { try await JournalStorage.verify(directory: directory.url, fileSystem: gate.fileSystem) }
        }
        #expect(gate.fileSystem.bytesRead(of: directory.journalPath) == readBefore, "a refused health check read the journal")
        #expect(try await store.health().publicBookmarks == 7)
        try await store.close()
    }

    @Test func closingFromACancelledTaskCloses() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let options = storeOptions(PosixFileSystem())
        let store = try await BookmarksIndexStore.open(directory: directory.url, options: options)
        try await store.apply(generatedBatch(first: 1, count: 3))
        try await Self.inACancelledTask { try await store.close() }
        await #expect(throws: BookmarkIndexError.self) { try await store.apply(generatedBatch(first: 9, count: 1)) }
        // The lock is released: the directory opens again, with everything written.
        let reopened = try await BookmarksIndexStore.open(directory: directory.url, options: options)
        #expect(await reopened.count(in: .public) == 3)
        try await reopened.close()
    }

    @Test func closingFromACancelledTaskFinishesTheCompactionUnderWay() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let gate = SynchronizeGate()
        let options = storeOptions(gate.fileSystem, compactAbove: 20_000)
        let store = try await BookmarksIndexStore.open(directory: directory.url, options: options)
        gate.holdNextSynchronize(ofFileEndingWith: JournalStorage.temporaryFileName)
        var written = 0
        while await store.compaction.running == nil {
            try await store.apply(generatedBatch(first: 1 + written * 30, count: 30))
            written += 1
        }
        var holds = gate.held.makeAsyncIterator()
        _ = await holds.next() // the compaction is in its new file's fsync
        let closing = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await store.close()
        }
        for _ in 0..<100 { await Task.yield() } // let close reach its wait
        gate.letGo()
        try await closing.value
        let report = try await JournalStorage.verify(directory: directory.url)
        #expect(report.batches == (written * 30 + 999) / 1_000, "the journal is the compacted one, with every row")
        #expect(report.livePublicBookmarks == written * 30)
    }

    @Test func aCompactionBegunFinishesWhenTheTaskRunningItIsCancelled() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let journal = try await JournalStorage.open(directory: directory.url, options: storeOptions(PosixFileSystem()))
        var state = try await journal.load()
        for first in stride(from: 1, to: 100, by: 10) {
            let batch = generatedBatch(first: first, count: 10)
            try await journal.append(batch)
            state.apply(batch)
        }
        let work = try await journal.beginCompaction(to: state)
        try await journal.append(generatedBatch(first: 500, count: 1)) // carried into the new file
        try await Self.inACancelledTask { try await work() }
        let report = try #require(try await journal.health().journal)
        #expect(report.batches == 2 && report.livePublicBookmarks == 101)
        try await journal.reset() // refused while a compaction is unfinished
        try await journal.close()
    }
}
