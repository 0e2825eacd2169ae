import BookmarkIndex
import Foundation

/// The checks every ``BookmarkStorage`` must pass: the storage seam's contract, run against a
/// backend the way the store uses it.
///
/// A backend's tests give it a way to make a new, empty place to store into (a directory, a
/// database file) and to open the storage kept there; a check opens, writes, closes and opens
/// again, and compares what it loads with what it wrote, content by content.
///
/// ```swift
/// @Test func journalConforms() async throws {
///     try await StorageConformance { directory in
///         { try await JournalStorage.open(directory: directory) }
///     }.runAll()
/// }
/// ```
///
/// A storage that is also a ``CompactableStorage`` is checked compacting too, with batches
/// appended while the compaction runs.
public struct StorageConformance: Sendable {
    /// Opens the storage kept in one place; called again, after the storage was closed, to
    /// reopen the same place.
    public typealias Opener = @Sendable () async throws -> any BookmarkStorage

    /// One check: its name and what it does.
    public struct Check: Sendable {
        /// What the check is called in a failure.
        public let name: String
        let body: @Sendable (Opener) async throws -> Void
    }

    /// A check that failed: which one, and what differed.
    public struct Failure: Error, CustomStringConvertible {
        /// The check's name.
        public var check: String
        /// What was expected and what was found.
        public var message: String

        public var description: String { "\(check): \(message)" }
    }

    /// What a check found wrong; ``run(_:)`` names the check.
    struct Mismatch: Error {
        var message: String
    }

    private let newPlace: @Sendable (URL) async throws -> Opener

    /// Checks the storage that `newPlace` opens. It is given a new, empty directory of its own
    /// for each check (which it may ignore, for a storage kept elsewhere), and returns how to
    /// open the storage kept there.
    public init(newPlace: @escaping @Sendable (URL) async throws -> Opener) {
        self.newPlace = newPlace
    }

    /// Runs every check, each in a place of its own; throws the first ``Failure``.
    public func runAll() async throws {
        for check in Self.checks { try await run(check) }
    }

    /// Runs one check in a new place.
    public func run(_ check: Check) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("storage-conformance-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let open = try await newPlace(directory)
        do {
            try await check.body(open)
        } catch let mismatch as Mismatch {
            throw Failure(check: check.name, message: mismatch.message)
        } catch {
            throw Failure(check: check.name, message: "threw \(error)")
        }
    }

    /// Every check, in the order ``runAll()`` runs them.
    public static let checks: [Check] = [
        Check(name: "a new place loads empty", body: loadsEmpty),
        Check(name: "batches survive a reopen, in order", body: batchesSurviveReopen),
        Check(name: "batches appended in one call survive a reopen, in order", body: groupedBatchesSurviveReopen),
        Check(name: "every field and the metadata round-trip", body: fieldsRoundTrip),
        Check(name: "reset empties, and writes after it survive", body: resetEmpties),
        Check(name: "a closed storage refuses writes", body: closedRefusesWrites),
        Check(name: "health counts what is stored", body: healthCounts),
        Check(name: "a store over it answers as before a restart", body: storeSurvivesRestart),
        Check(name: "compaction keeps batches appended while it runs", body: compactionCarriesWrites),
        Check(name: "close from a cancelled task closes, and keeps every batch", body: closeFromACancelledTask),
    ]
}

// MARK: The checks

extension StorageConformance {
    static func loadsEmpty(_ open: Opener) async throws {
        let storage = try await open()
        try expectSameContent(try await storage.load(), BookmarkIndexState(), "a new place")
        try await storage.close()
    }

    static func batchesSurviveReopen(_ open: Opener) async throws {
        let batches = sampleBatches(seed: 1)
        var expected = BookmarkIndexState()
        let storage = try await open()
        _ = try await storage.load()
        for batch in batches {
            try await storage.append(batch)
            expected.apply(batch)
        }
        try await storage.close()
        let reopened = try await open()
        try expectSameContent(try await reopened.load(), expected, "after \(batches.count) batches and a reopen")
        try await reopened.close()
    }

    static func groupedBatchesSurviveReopen(_ open: Opener) async throws {
        let batches = sampleBatches(seed: 2, count: 9)
        var expected = BookmarkIndexState()
        let storage = try await open()
        _ = try await storage.load()
        try await storage.append(batches[0])
        try await storage.append(contentsOf: Array(batches[1..<6]))
        try await storage.append(contentsOf: [])
        try await storage.append(contentsOf: Array(batches[6...]))
        for batch in batches { expected.apply(batch) }
        try await storage.close()
        let reopened = try await open()
        try expectSameContent(try await reopened.load(), expected, "after \(batches.count) batches in three calls and a reopen")
        try await reopened.close()
    }

    static func fieldsRoundTrip(_ open: Opener) async throws {
        let payload = try VersionedPayload(version: 7, json: Data(#"{"cursor":"é—🎨","n":[1,2.5,null]}"#.utf8))
        let metadata = BookmarkIndexMetadata(
            lastFullSync: Date(timeIntervalSince1970: 1_780_000_000.25),
            lastDeltaSync: Date(timeIntervalSince1970: 1_780_000_100),
            schemaVersion: 1,
            syncState: payload
        )
        let batch = sampleBatches(seed: 2, count: 1, size: 200)[0] + [.setMetadata(metadata, for: .private)]
        var expected = BookmarkIndexState()
        expected.apply(batch)
        let storage = try await open()
        _ = try await storage.load()
        try await storage.append(batch)
        try await storage.close()
        let reopened = try await open()
        let loaded = try await reopened.load()
        try expectSameContent(loaded, expected, "a batch of 200 bookmarks (some vanished) and metadata")
        guard loaded.metadata(for: .private) == metadata else {
            throw Mismatch(message: "stored \(metadata), loaded \(loaded.metadata(for: .private))")
        }
        try await reopened.close()
    }

    static func resetEmpties(_ open: Opener) async throws {
        let batches = sampleBatches(seed: 3)
        let storage = try await open()
        _ = try await storage.load()
        for batch in batches { try await storage.append(batch) }
        try await storage.reset()
        var expected = BookmarkIndexState()
        expected.apply(batches[0])
        try await storage.append(batches[0])
        try await storage.close()
        let reopened = try await open()
        try expectSameContent(try await reopened.load(), expected, "after a reset and one batch")
        try await reopened.close()
    }

    static func closedRefusesWrites(_ open: Opener) async throws {
        let storage = try await open()
        _ = try await storage.load()
        try await storage.close()
        for (call, write) in [
            ("append", { try await storage.append(sampleBatches(seed: 4, count: 1)[0]) }),
            ("append(contentsOf:)", { try await storage.append(contentsOf: sampleBatches(seed: 4, count: 2)) }),
            ("reset", { try await storage.reset() }),
        ] as [(String, () async throws -> Void)] {
            do {
                try await write()
            } catch let error as BookmarkIndexError where error.code == .closed {
                continue
            } catch {
                throw Mismatch(message: "\(call) after close threw \(error), not BookmarkIndexError.closed")
            }
            throw Mismatch(message: "\(call) after close did not throw")
        }
    }

    /// A graceful shutdown closes from a task that was cancelled: the close must complete (a
    /// reopen finds every batch) and a write after it must be refused as closed.
    static func closeFromACancelledTask(_ open: Opener) async throws {
        var expected = BookmarkIndexState()
        let storage = try await open()
        _ = try await storage.load()
        for batch in sampleBatches(seed: 9, count: 3) {
            try await storage.append(batch)
            expected.apply(batch)
        }
        let closing = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await storage.close()
        }
        do {
            try await closing.value
        } catch {
            throw Mismatch(message: "close from a cancelled task threw \(error)")
        }
        do {
            try await storage.append(sampleBatches(seed: 10, count: 1)[0])
            throw Mismatch(message: "an append after a close from a cancelled task did not throw")
        } catch let error as BookmarkIndexError where error.code == .closed {}
        let reopened = try await open()
        try expectSameContent(try await reopened.load(), expected, "reopened after a close from a cancelled task")
        try await reopened.close()
    }

    static func healthCounts(_ open: Opener) async throws {
        var expected = BookmarkIndexState()
        let storage = try await open()
        _ = try await storage.load()
        for batch in sampleBatches(seed: 5) {
            try await storage.append(batch)
            expected.apply(batch)
        }
        let health = try await storage.health()
        let counts = (health.publicBookmarks, health.privateBookmarks)
        guard counts == (expected.count(in: .public), expected.count(in: .private)), health.isHealthy else {
            throw Mismatch(message: "reports \(counts.0) public, \(counts.1) private, problems \(health.problems); stored \(expected.count(in: .public)) and \(expected.count(in: .private))"
            )
        }
        try await storage.close()
    }

    static func storeSurvivesRestart(_ open: Opener) async throws {
        let batches = sampleBatches(seed: 6)
        let store = try await BookmarksIndexStore(storage: try await open())
        for batch in batches { try await store.apply(batch) }
        let histogram = await store.tagHistogram(in: .public, limit: 20)
        let before = await store.state
        try await store.close()
        let reopened = try await BookmarksIndexStore(storage: try await open())
        try expectSameContent(await reopened.state, before, "a store reopened")
        let after = await reopened.tagHistogram(in: .public, limit: 20)
        guard after == histogram else {
            throw Mismatch(message: "the histogram was \(histogram), after a restart \(after)")
        }
        try await reopened.close()
    }

    static func compactionCarriesWrites(_ open: Opener) async throws {
        let storage = try await open()
        var expected = try await storage.load()
        guard let compactable = storage as? any CompactableStorage else {
            try await storage.close()
            return // compaction is optional
        }
        let batches = sampleBatches(seed: 7, count: 12)
        for batch in batches[..<6] {
            try await storage.append(batch)
            expected.apply(batch)
        }
        // Begun, then batches appended, then the work run: what the storage must carry over is
        // there for certain (the store's own interleavings are this one and finer ones).
        let work = try await compactable.beginCompaction(to: expected)
        for batch in batches[6...] {
            try await storage.append(batch)
            expected.apply(batch)
        }
        try await work()
        let last = sampleBatches(seed: 8, count: 1)[0]
        try await storage.append(last)
        expected.apply(last)
        try await storage.close()
        let reopened = try await open()
        try expectSameContent(try await reopened.load(), expected, "after a compaction with batches appended during it")
        try await reopened.close()
    }
}

// MARK: Data and comparison

extension StorageConformance {
    /// `count` batches of `size` changes over both lists: upserts (some of works that vanished),
    /// replacements (each batch overlaps the one before by half), removals and metadata, the
    /// same for the same seed.
    static func sampleBatches(seed: UInt64, count: Int = 8, size: Int = 30) -> [[BookmarkChange]] {
        let generator = SyntheticBookmarks(tagCount: 200, invisibleShare: 0.1)
        var random = SeededRandom(seed: seed)
        return (0..<count).map { index in
            let restrict: Restrict = index % 3 == 2 ? .private : .public
            let illusts = generator.illusts(count: size, seed: seed &* 31 &+ UInt64(index), firstIllustID: 1_000 + index * size / 2)
            // Each row its own place in the list, later batches above earlier ones (as a sync's
            // pages are): an order with ties would leave a backend free to break them either way.
            var batch = generator.indexedBookmarks(illusts, in: restrict).enumerated().map { position, bookmark in
                var bookmark = bookmark
                bookmark.serverOrder = Int64((index + 1) * 1_000_000 - position)
                return BookmarkChange.upsert(bookmark)
            }
            if index % 4 == 3, let first = illusts.first {
                batch.append(.remove(BookmarkKey(illustID: first.id, restrict: restrict)))
            }
            if index % 5 == 4 {
                batch.append(.setMetadata(BookmarkIndexMetadata(lastDeltaSync: Date(timeIntervalSince1970: 1_780_000_000 + Double(random.next() % 1_000))), for: restrict))
            }
            return batch
        }
    }

    static func expectSameContent(_ actual: BookmarkIndexState, _ expected: BookmarkIndexState, _ context: String) throws {
        for restrict in Restrict.allCases {
            let found = actual.allBookmarks(in: restrict), wanted = expected.allBookmarks(in: restrict)
            if found != wanted {
                let first = zip(found, wanted).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(found.count, wanted.count)
                throw Mismatch(message: "\(context): the \(restrict) list has \(found.count) bookmarks, expected \(wanted.count); they first differ at position \(first)"
                )
            }
            if actual.metadata(for: restrict) != expected.metadata(for: restrict) {
                throw Mismatch(message: "\(context): the \(restrict) list's metadata is \(actual.metadata(for: restrict)), expected \(expected.metadata(for: restrict))")
            }
        }
    }
}
