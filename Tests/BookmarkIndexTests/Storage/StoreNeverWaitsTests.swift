@_spi(Testing) @testable import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import Testing

/// What must not wait: writes and queries while `health()` reads the journal, writes while
/// `compact()` waits for a running compaction, and the end of a dropped store's event streams.
/// A regression here hangs instead of failing, so each test has a time limit.
@Suite(.hangLimit) struct StoreNeverWaitsTests {
    @Test func writesAndQueriesGoOnWhileHealthReads() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let gate = SynchronizeGate()
        let store = try await BookmarksIndexStore.open(directory: directory.url, options: storeOptions(gate.fileSystem))
        try await store.apply(generatedBatch(first: 1, count: 10))
        gate.holdNextRead(ofFileEndingWith: JournalStorage.journalFileName)
        let health = Task { try await store.health() }
        var held = gate.held.makeAsyncIterator()
        _ = await held.next()
        // health() is inside its reading of the journal, on one of the pool's threads.
        try await store.apply(generatedBatch(first: 100, count: 10))
        #expect(await store.count(in: .public) == 20)
        gate.letGo()
        let report = try await health.value
        // It read the journal as it was when it began: the batch written meanwhile is not in it.
        #expect(report.publicBookmarks == 10 && report.isHealthy, "\(report.problems)")
        #expect(try await store.health().publicBookmarks == 20)
        try await store.close()
    }

    @Test func writesGoOnWhileCompactWaitsForARunningCompaction() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let gate = SynchronizeGate()
        let store = try await BookmarksIndexStore.open(directory: directory.url, options: storeOptions(gate.fileSystem, compactAbove: 20_000))
        gate.holdNextSynchronize(ofFileEndingWith: JournalStorage.temporaryFileName)
        var written = 0
        while await store.compaction.running == nil {
            try await store.apply(generatedBatch(first: 1 + written * 30, count: 30))
            written += 1
        }
        var held = gate.held.makeAsyncIterator()
        _ = await held.next()
        let compact = Task { try await store.compact() }
        for _ in 0..<100 { await Task.yield() } // let compact() reach its wait
        // The automatic compaction is held in its fsync and compact() waits for it: writes go on.
        try await store.apply(generatedBatch(first: 60_000, count: 3, restrict: .private))
        #expect(await store.count(in: .private) == 3)
        gate.letGo()
        try await compact.value
        let report = try #require(try await store.health().journal)
        #expect(report.batches == (written * 30 + 999) / 1_000 + 1, "compact() compacted again after the running one: the private batch is in a compacted line")
        try await store.close()
    }

    @Test func theEventsOfAStoreDroppedWithoutClosingEnd() async throws {
        var store: BookmarksIndexStore? = try await BookmarksIndexStore(storage: InMemoryStorage())
        let events = try #require(await store?.events())
        store = nil
        for await _ in events {}
        // Reached: the stream ended when the store went away.
    }
}
