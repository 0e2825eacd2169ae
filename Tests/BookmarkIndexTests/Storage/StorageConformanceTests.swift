import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import Synchronization
import Testing

@Suite struct StorageConformanceTests {
    @Test func inMemoryStorageConforms() async throws {
        try await StorageConformance { _ in
            let storage = InMemoryStorage()
            return { storage }
        }.runAll()
    }

    @Test func journalStorageConforms() async throws {
        try await StorageConformance { directory in
            { try await JournalStorage.open(directory: directory) }
        }.runAll()
    }

    @Test func journalStorageWithoutFsyncOrCheckpointsConforms() async throws {
        var options = JournalStorage.Options()
        options.durability = .none
        options.checkpointMinimumBytes = .max
        options.ioPool = IOThreadPool(threads: 1)
        try await StorageConformance { [options] directory in
            { try await JournalStorage.open(directory: directory, options: options) }
        }.runAll()
    }

    /// A storage that forgets the last batch when it is reopened: the suite must say so.
    final class ForgetfulStorage: BookmarkStorage {
        private let batches = Mutex<[[BookmarkChange]]>([])
        private let closed = Mutex(false)

        func load() async throws -> BookmarkIndexState {
            closed.withLock { $0 = false }
            var state = BookmarkIndexState()
            for batch in batches.withLock({ $0.dropLast() }) { state.apply(batch) }
            return state
        }

        func append(_ changes: [BookmarkChange]) async throws {
            if closed.withLock({ $0 }) { throw BookmarkIndexError(.closed, "closed") }
            batches.withLock { $0.append(changes) }
        }

        func reset() async throws { batches.withLock { $0 = [] } }
        func close() async throws { closed.withLock { $0 = true } }

        func health() async throws -> StorageHealth {
            StorageHealth(storage: "forgetful", publicBookmarks: 0, privateBookmarks: 0)
        }
    }

    @Test func theSuiteCatchesAStorageThatLosesABatch() async throws {
        let conformance = StorageConformance { _ in
            let storage = ForgetfulStorage()
            return { storage }
        }
        let failure = await #expect(throws: StorageConformance.Failure.self) { try await conformance.runAll() }
        #expect(failure?.check == "batches survive a reopen, in order", "\(String(describing: failure))")
    }

    @Test func theSuiteCatchesAStorageThatMiscountsItsHealth() async throws {
        let check = try #require(StorageConformance.checks.first { $0.name == "health counts what is stored" })
        let conformance = StorageConformance { _ in
            let storage = ForgetfulStorage()
            return { storage }
        }
        await #expect(throws: StorageConformance.Failure.self) { try await conformance.run(check) }
    }
}
