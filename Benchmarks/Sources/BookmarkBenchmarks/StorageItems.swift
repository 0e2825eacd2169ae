import BookmarkIndex
import BookmarkIndexTesting
import Foundation

/// Item 10: the index over SQLite storage beside the index over the journal — the same
/// `BookmarksIndexStore` on two `BookmarkStorage` backends — and the storage conformance suite
/// run against the SQLite one, the proof that a real database fits the seam.
struct StorageItems {
    let dataset: Dataset
    let sampling: Sampling
    let scratch: Scratch

    /// Batches the store-level durable appends write: at most 10,000 bookmarks' worth, since
    /// every batch is an fsync (the journal's own `append_durable` covers the whole data set).
    var durableBatches: ArraySlice<[BookmarkChange]> { dataset.changeBatches.prefix(10_000 / Dataset.batchSize) }

    /// Runs the conformance suite against ``SQLiteStorage``; throws its first failure.
    func checkSQLiteConformance() async throws {
        try await StorageConformance { directory in
            { try await SQLiteStorage.open(directory: directory, durable: true) }
        }.runAll()
    }

    /// `store.apply` of ``durableBatches`` into a fresh store, durably: over the journal
    /// (`.always`) and over SQLite (`synchronous=FULL`).
    func appendDurable() async throws -> (journal: Figure, sqlite: Figure) {
        let journal = try await sampling.measure {
            let directory = try scratch.directory("store-journal")
            defer { scratch.remove(directory) }
            let store = try await BookmarksIndexStore.open(directory: directory, options: JournalItems.options(.always))
            let elapsed = try await elapsedMilliseconds {
                for batch in durableBatches { try await store.apply(batch) }
            }
            try await store.close()
            return elapsed
        }
        let sqlite = try await sampling.measure {
            let directory = try scratch.directory("store-sqlite")
            defer { scratch.remove(directory) }
            let store = try await BookmarksIndexStore(storage: SQLiteStorage.open(directory: directory, durable: true))
            let elapsed = try await elapsedMilliseconds {
                for batch in durableBatches { try await store.apply(batch) }
            }
            try await store.close()
            return elapsed
        }
        return (journal, sqlite)
    }

    /// Opening a store of the whole data set and asking for its top 50 tags: over the journal
    /// in `journalDirectory` (compacted, with its checkpoint) and over SQLite storage written here
    /// (untimed) with every batch.
    func open(journalDirectory: URL) async throws -> (journal: Figure, sqlite: Figure) {
        let journal = try await JournalItems(dataset: dataset, sampling: sampling, scratch: scratch).openStore(directory: journalDirectory)
        let directory = try scratch.directory("store-sqlite-open")
        defer { scratch.remove(directory) }
        let writer = try await SQLiteStorage.open(directory: directory, durable: false)
        for batch in dataset.changeBatches { try await writer.append(batch) }
        try await writer.close()
        let reader = try await BookmarksIndexStore(storage: JournalReader.open(directory: journalDirectory))
        let expected = await reader.tagHistogram(in: .public, limit: 50)
        let sqlite = try await sampling.measure {
            var store: BookmarksIndexStore?
            var tags: [ArtworkTagCount] = []
            let elapsed = try await elapsedMilliseconds {
                store = try await BookmarksIndexStore(storage: SQLiteStorage.open(directory: directory, durable: true))
                tags = await store?.tagHistogram(in: .public, limit: 50) ?? []
            }
            try await store?.close()
            guard tags.count == 50, tags == expected else {
                throw HarnessError("the store over SQLite storage answers another histogram than the journal's")
            }
            return elapsed
        }
        return (journal, sqlite)
    }
}
