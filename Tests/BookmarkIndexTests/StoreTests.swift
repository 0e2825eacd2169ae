@_spi(Testing) import BookmarkIndex
import Foundation
import Testing

@Suite("BookmarksIndexStore")
struct StoreTests {
    @Test func writesAreDurableBatchesAndQueriesSeeThem() async throws {
        let storage = InMemoryStorage()
        let store = try await BookmarksIndexStore(storage: storage)
        try await store.upsert([row(1, tags: ["a"], order: 1), row(2, tags: ["a", "b"], order: 2)])
        try await store.upsert([row(1, .private, tags: ["c"], order: 1)])
        #expect(storage.appendedBatches == 2)
        #expect(await store.count(in: .public) == 2)
        #expect(await store.contains(BookmarkKey(illustID: 1, restrict: .private)))
        #expect(await store.bookmarks(in: .public, matching: BookmarkFilter(allOf: ["a"])).ids == [2, 1])
        #expect(await store.count(in: .public, matching: BookmarkFilter(allOf: ["b"])) == 1)
        #expect(await store.coOccurringTags(in: .public, matching: BookmarkFilter(allOf: ["b"])) == [ArtworkTagCount(name: "a", count: 1)])
        #expect(await store.bookmark(for: BookmarkKey(illustID: 2, restrict: .public))?.illust.tags.map(\.name) == ["a", "b"])

        try await store.remove([BookmarkKey(illustID: 2, restrict: .public)])
        #expect(await store.tagHistogram(in: .public) == [ArtworkTagCount(name: "a", count: 1)])
        try await store.apply([])
        #expect(storage.appendedBatches == 3, "an empty batch writes nothing")
    }

    /// `update` reads and writes in one turn: many concurrent read-modify-writes of one counter
    /// lose none, and a decision that throws writes nothing.
    @Test func updateReadsDecidesAndWritesInOneTurn() async throws {
        let storage = InMemoryStorage()
        let store = try await BookmarksIndexStore(storage: storage)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    _ = try? await store.update { index in
                        var metadata = index.metadata(for: .public)
                        let count = (metadata.lastDeltaSync?.timeIntervalSince1970 ?? 0) + 1
                        metadata.lastDeltaSync = Date(timeIntervalSince1970: count)
                        return ([.setMetadata(metadata, for: .public)], count)
                    }
                }
            }
        }
        #expect(await store.metadata(for: .public).lastDeltaSync == Date(timeIntervalSince1970: 50))
        #expect(storage.appendedBatches == 50)
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await store.update { _ -> ([BookmarkChange], Void) in throw Refused() }
        }
        #expect(storage.appendedBatches == 50)
        let unchanged = try await store.update { index in ([], index.count(in: .public)) }
        #expect(unchanged == 0 && storage.appendedBatches == 50, "an empty decision writes nothing")
    }

    @Test func reopeningTheStorageSeesEveryAcknowledgedBatch() async throws {
        let storage = InMemoryStorage()
        let metadata = BookmarkIndexMetadata(lastDeltaSync: Date(timeIntervalSince1970: 77))
        do {
            let store = try await BookmarksIndexStore(storage: storage)
            try await store.upsert([row(1, tags: ["a"]), row(2, .private)])
            try await store.setMetadata(metadata, for: .public)
            try await store.close()
            await #expect(throws: BookmarkIndexError.self) { try await store.upsert([row(3)]) }
            #expect(await store.count(in: .public) == 1, "a closed store still answers queries")
        }
        let reopened = try await BookmarksIndexStore(storage: storage)
        #expect(await reopened.count(in: .public) == 1)
        #expect(await reopened.count(in: .private) == 1)
        #expect(await reopened.metadata(for: .public) == metadata)
    }

    @Test func resetStoreWipesBothListsAndMetadata() async throws {
        let storage = InMemoryStorage()
        let store = try await BookmarksIndexStore(storage: storage)
        try await store.upsert([row(1, tags: ["a"]), row(1, .private, tags: ["b"])])
        try await store.setMetadata(BookmarkIndexMetadata(lastFullSync: Date()), for: .private)
        try await store.resetStore()
        for restrict in Restrict.allCases {
            #expect(await store.count(in: restrict) == 0)
            #expect(await store.tagHistogram(in: restrict).isEmpty)
            #expect(await store.metadata(for: restrict) == BookmarkIndexMetadata())
        }
        // The storage was wiped too, not just memory.
        let reopened = try await BookmarksIndexStore(storage: storage)
        #expect(await reopened.count(in: .public) == 0)
        // And the store keeps working after a reset.
        try await store.upsert([row(5, tags: ["z"])])
        #expect(await store.tagHistogram(in: .public) == [ArtworkTagCount(name: "z", count: 1)])
    }

    /// Every batch moves the revision on, and a reset does too: of two states of one store,
    /// the newer always has the higher revision.
    @Test func theRevisionOnlyMovesOnThroughWritesAndResets() async throws {
        let store = try await BookmarksIndexStore(storage: InMemoryStorage())
        let empty = await store.state.revision
        try await store.upsert([row(1, tags: ["a"]), row(2, tags: ["b"])])
        let written = await store.state.revision
        #expect(written == empty + 1, "one batch, one revision")
        try await store.apply([])
        #expect(await store.state.revision == written, "an empty batch writes nothing")
        try await store.resetStore()
        let reset = await store.state.revision
        #expect(reset > written, "a reset is newer than what it wiped")
        try await store.upsert([row(3, tags: ["c"])])
        #expect(await store.state.revision == reset + 1)
    }

    @Test func aFailedWriteLeavesTheIndexUnchanged() async throws {
        let storage = InMemoryStorage()
        let store = try await BookmarksIndexStore(storage: storage)
        try await store.upsert([row(1)])
        try await storage.close()
        await #expect(throws: BookmarkIndexError.self) { try await store.upsert([row(2)]) }
        #expect(await store.count(in: .public) == 1)
    }

    @Test func stateIsAValueThatLaterWritesDoNotChange() async throws {
        let store = try await BookmarksIndexStore(storage: InMemoryStorage())
        try await store.upsert([row(1)])
        let state = await store.state
        try await store.upsert([row(2)])
        #expect(state.count(in: .public) == 1)
        #expect(await store.count(in: .public) == 2)
    }
}
