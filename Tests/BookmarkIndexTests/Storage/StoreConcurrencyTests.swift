@_spi(Testing) @testable import BookmarkIndex
@_spi(Testing) import BookmarkIndexTesting
import Foundation
import Testing

/// The store never makes a query wait for a write's I/O, applies writes one at a time in
/// order, and compacts in the background while writes go on.
@Suite struct StoreConcurrencyTests {
    @Test func aQueryIsAnsweredWhileAWriteWaitsForItsFsync() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let gate = SynchronizeGate()
        let store = try await BookmarksIndexStore.open(directory: directory.url, options: storeOptions(gate.fileSystem))
        try await store.apply(generatedBatch(first: 1, count: 10))
        gate.holdNextSynchronize(ofFileEndingWith: JournalStorage.journalFileName)
        let write = Task { try await store.apply(generatedBatch(first: 100, count: 30)) }
        var held = gate.held.makeAsyncIterator()
        _ = await held.next()
        // The write is inside its fsync: the queries answer from the last applied state.
        #expect(await store.count(in: .public) == 10)
        #expect(await !store.contains(BookmarkKey(illustID: 100, restrict: .public)))
        #expect(await store.tagHistogram(in: .public, limit: 3).count > 0)
        gate.letGo()
        try await write.value
        #expect(await store.count(in: .public) == 40)
        try await store.close()
    }

    @Test func concurrentUpdatesEachSeeTheLastOnesWrite() async throws {
        let store = try await BookmarksIndexStore(storage: InMemoryStorage())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    try await store.update { index in
                        let next = index.count(in: .public) + 1
                        return (generatedBatch(first: next, count: 1), ())
                    }
                }
            }
            try await group.waitForAll()
        }
        // Each read the count the write before it left: forty distinct IDs, 1 through 40.
        let ids = await store.bookmarks(in: .public).map(\.illust.id).sorted()
        #expect(ids == Array(1...40))
    }

    @Test func writesAreAcceptedWhileACompactionWritesItsFile() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let gate = SynchronizeGate()
        let store = try await BookmarksIndexStore.open(directory: directory.url, options: storeOptions(gate.fileSystem, compactAbove: 20_000))
        var events = await store.events().makeAsyncIterator()
        gate.holdNextSynchronize(ofFileEndingWith: JournalStorage.temporaryFileName)
        var written = 0
        // Until a batch takes the journal past its threshold and a compaction starts.
        while true {
            try await store.apply(generatedBatch(first: 1 + written * 30, count: 30))
            written += 1
            if await store.compaction.running != nil { break }
        }
        guard case .compactionStarted = await events.next() else { Issue.record("no compactionStarted"); return }
        var held = gate.held.makeAsyncIterator()
        #expect(await held.next()?.hasSuffix(JournalStorage.temporaryFileName) == true)
        // The new file's fsync is held: writes and queries go on.
        for index in 0..<5 {
            try await store.apply(generatedBatch(first: 10_000 + index * 30, count: 30, restrict: .private))
        }
        #expect(await store.count(in: .private) == 150)
        gate.letGo()
        guard case .compactionFinished = await events.next() else { Issue.record("no compactionFinished"); return }
        let expected = await store.state
        try await store.close()

        let reopened = try await JournalStorage.open(directory: directory.url, options: storeOptions(PosixFileSystem()))
        #expect(StateDump(try await reopened.load()) == StateDump(expected))
        let report = try #require(try await reopened.health().journal)
        #expect(report.lastCompaction != nil)
        #expect(report.batches == (written * 30 + 999) / 1_000 + 5, "the compacted lines, then the five carried")
        try await reopened.close()
    }

    @Test func aFailedCompactionIsReportedAndTriedAgainLater() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let store = try await BookmarksIndexStore.open(directory: directory.url, options: storeOptions(fileSystem, compactAbove: 20_000))
        fileSystem.inject(.fail, atNext: .rename)
        var events = await store.events().makeAsyncIterator()
        var written = 0
        func write() async throws {
            try await store.apply(generatedBatch(first: 1 + written * 30, count: 30))
            written += 1
        }
        func idle() async -> Bool {
            let schedule = await store.compaction
            return schedule.running == nil && schedule.consecutiveFailures == 0
        }
        while await idle() { try await write() }
        guard case .compactionStarted = await events.next() else { Issue.record("no compactionStarted"); return }
        guard case .compactionFailed(let error, let retryAfter) = await events.next() else { Issue.record("no compactionFailed"); return }
        #expect(error.code == .io)
        #expect(retryAfter == 16)
        // Every batch stands; the next try comes after sixteen more.
        for _ in 0..<15 { try await write() }
        #expect(await store.compaction.running == nil)
        #expect(await store.compaction.batchesUntilRetry == 1)
        try await write()
        guard case .compactionStarted = await events.next() else { Issue.record("no second compactionStarted"); return }
        guard case .compactionFinished = await events.next() else { Issue.record("the retry did not finish"); return }
        let expected = await store.state
        try await store.close()
        let reopened = try await BookmarksIndexStore.open(directory: directory.url, options: storeOptions(PosixFileSystem()))
        #expect(StateDump(await reopened.state) == StateDump(expected))
        #expect(await reopened.count(in: .public) == written * 30)
        try await reopened.close()
    }

    @Test func closeWaitsForARunningCompaction() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await BookmarksIndexStore.open(directory: directory.url, options: storeOptions(PosixFileSystem()))
        for index in 0..<20 { try await store.apply(generatedBatch(first: 1 + index * 30, count: 30)) }
        let compaction = Task { try await store.compact() }
        try await compaction.value
        try await store.close()
        #expect(await store.compaction.running == nil)
        let report = try await JournalStorage.verify(directory: directory.url)
        #expect(report.lastCompaction != nil && report.isHealthy)
    }
}
