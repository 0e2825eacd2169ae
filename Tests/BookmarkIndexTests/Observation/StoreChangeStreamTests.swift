@_spi(Testing) @testable import BookmarkIndex
@_spi(Testing) import BookmarkIndexTesting
import Foundation
import Testing

/// The store reports each durable write once, in order, after it is visible; nothing for a
/// write that failed, was refused or changed nothing, and nothing for a compaction.
@Suite(.hangLimit) struct StoreChangeStreamTests {
    /// Every change a stream delivers until the store closes.
    static func collect(_ stream: AsyncStream<IndexChange>) -> Task<[IndexChange], Never> {
        Task {
            var changes: [IndexChange] = []
            for await change in stream { changes.append(change) }
            return changes
        }
    }

    @Test func concurrentWritesCompactionsAndAResetAreEachReportedOnceInOrder() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await BookmarksIndexStore.open(directory: directory.url, options: storeOptions(PosixFileSystem(), compactAbove: 8_000))
        let received = Self.collect(await store.changes())
        let events = Self.collect(events: await store.events())
        // What each write changed, found by comparing the index before and after it.
        let expectedChanges = try await withThrowingTaskGroup(of: [IndexChange].self) { group in
            for writer in 0..<4 {
                group.addTask {
                    let batches = SharedBatches(seed: UInt64(writer + 10))
                    var expected: [IndexChange] = []
                    for step in 0..<60 {
                        if writer == 0 && step == 30 {
                            // A reset amid the writes; its revision is the one no update reports.
                            try await store.resetStore()
                            continue
                        }
                        if writer == 1 && step % 20 == 0 { try await store.compact() }
                        let (before, batch) = try await store.update { index in
                            let batch = batches.batch(against: index)
                            return (batch, (index, batch))
                        }
                        var after = before
                        after.apply(batch)
                        if let change = naiveChange(from: before, to: after) { expected.append(change) }
                    }
                    return expected
                }
            }
            var all: [IndexChange] = []
            for try await changes in group { all += changes }
            return all.sorted { $0.revision < $1.revision }
        }
        let finalRevision = await store.state.revision
        try await store.close()
        let changes = await received.value
        let compactions = await events.value

        #expect(compactions > 0, "no compaction ran among the writes")
        let revisions = changes.map(\.revision)
        #expect(revisions == revisions.sorted() && Set(revisions).count == revisions.count, "revisions strictly increase")
        let resets = changes.filter(\.isReset)
        #expect(resets.count == 1)
        if let reset = resets.first {
            #expect(reset == IndexChange(revision: reset.revision, isReset: true))
        }
        #expect(changes.filter { !$0.isReset } == expectedChanges)
        #expect(revisions.last ?? 0 <= finalRevision)
        #expect(expectedChanges.count > 60, "most writes changed something")
    }

    /// Counts the compactions that finished, until the store closes.
    static func collect(events stream: AsyncStream<StoreEvent>) -> Task<Int, Never> {
        Task {
            var finished = 0
            for await event in stream { if case .compactionFinished = event { finished += 1 } }
            return finished
        }
    }

    @Test func aWriteWhoseFsyncFailsReportsNothing() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let store = try await BookmarksIndexStore.open(directory: directory.url, options: storeOptions(fileSystem))
        let received = Self.collect(await store.changes())
        try await store.apply(generatedBatch(first: 1, count: 3))
        fileSystem.inject(.fail, atNext: .synchronizeData)
        await #expect(throws: BookmarkIndexError.self) { try await store.apply(generatedBatch(first: 10, count: 3)) }
        #expect(await store.count(in: .public) == 3)
        try await store.apply(generatedBatch(first: 20, count: 2))
        try await store.close()
        let changes = await received.value
        let keys = { (ids: ClosedRange<Int>) in Set(ids.map { BookmarkKey(illustID: $0, restrict: .public) }) }
        #expect(changes.map(\.publicList.added) == [keys(1...3), keys(20...21)])
        #expect(changes.map(\.revision) == [1, 2], "the failed write applied nothing, so took no revision")
    }

    @Test func aWriteFromACancelledTaskReportsNothing() async throws {
        let store = try await BookmarksIndexStore(storage: InMemoryStorage())
        let received = Self.collect(await store.changes())
        try await store.apply(generatedBatch(first: 1, count: 2))
        await #expect(throws: CancellationError.self) {
            try await StoreCancellationTests.inACancelledTask { try await store.apply(generatedBatch(first: 10, count: 2)) }
        }
        await #expect(throws: CancellationError.self) {
            try await StoreCancellationTests.inACancelledTask { try await store.resetStore() }
        }
        #expect(await store.count(in: .public) == 2)
        try await store.remove([BookmarkKey(illustID: 1, restrict: .public)])
        try await store.close()
        let changes = await received.value
        #expect(changes == [
            IndexChange(revision: 1, publicList: .init(added: [BookmarkKey(illustID: 1, restrict: .public), BookmarkKey(illustID: 2, restrict: .public)])),
            IndexChange(revision: 2, publicList: .init(removed: [BookmarkKey(illustID: 1, restrict: .public)])),
        ])
    }

    @Test func aBatchThatChangesNothingAndACompactionReportNothing() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await BookmarksIndexStore.open(directory: directory.url, options: storeOptions(PosixFileSystem()))
        try await store.apply(generatedBatch(first: 1, count: 3))
        let received = Self.collect(await store.changes())
        let unchanged = try #require(await store.bookmark(for: BookmarkKey(illustID: 2, restrict: .public)))
        try await store.upsert([unchanged]) // revision 2, as it was
        try await store.remove([BookmarkKey(illustID: 99, restrict: .public)]) // revision 3, not there
        try await store.compact()
        try await store.apply([]) // no batch at all
        var moved = unchanged
        moved.serverOrder = 10
        try await store.upsert([moved]) // revision 4
        #expect(await store.state.revision == 4)
        try await store.close()
        let changes = await received.value
        #expect(changes == [IndexChange(revision: 4, publicList: .init(updated: [unchanged.key]))])
    }

    @Test func aChangeIsVisibleToQueriesWhenItArrives() async throws {
        let store = try await BookmarksIndexStore(storage: InMemoryStorage())
        var changes = await store.changes().makeAsyncIterator()
        let writer = Task {
            for index in 0..<20 { try await store.apply(generatedBatch(first: 1 + index * 5, count: 5)) }
        }
        for _ in 0..<20 {
            let change = try #require(await changes.next())
            for key in change.publicList.added { #expect(await store.contains(key)) }
            #expect(await store.state.revision >= change.revision)
        }
        try await writer.value
        try await store.close()
        #expect(await changes.next() == nil, "the stream ends when the store closes")
    }
}
