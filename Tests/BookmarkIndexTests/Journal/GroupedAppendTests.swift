@_spi(Testing) @testable import BookmarkIndex
@_spi(Testing) import BookmarkIndexTesting
import Foundation
import Testing

/// Many batches appended in one call (issue 25: an import's or a migration's writes, one
/// hand-over for them all): one line each, in order, all on disk or none, and carried over by a
/// compaction under way.
@Suite("Grouped appends")
struct GroupedAppendTests {
    static let history = [generatedBatch(first: 1, count: 4)]
    static let group = [
        generatedBatch(first: 10, count: 3), generatedBatch(first: 20, count: 2, restrict: .private),
        [.remove(BookmarkKey(illustID: 2, restrict: .public))], generatedBatch(first: 30, count: 5, order: 100),
    ]

    static func state(_ batches: [[BookmarkChange]]) -> StateDump {
        var state = BookmarkIndexState()
        for batch in batches { state.apply(batch) }
        return StateDump(state)
    }

    @Test func eachBatchIsALineWithTheNextSequenceAndOneFsyncForThemAll() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions(fileSystem: fileSystem))
        for batch in Self.history { try await journal.append(batch) }
        let linesBefore = lineStarts(directory.journalBytes()).count
        let logged = fileSystem.operationLog.count
        try await journal.append(contentsOf: Self.group)
        #expect(fileSystem.operationLog.dropFirst(logged) == [.write, .synchronizeData], "one write and one fdatasync for the group")
        #expect(lineStarts(directory.journalBytes()).count == linesBefore + Self.group.count)
        // The sequence goes on after the group: a batch appended alone comes next.
        try await journal.append(generatedBatch(first: 50, count: 1))
        try await journal.close()
        let report = try await JournalStorage.verify(directory: directory.url)
        #expect(report.isHealthy, "\(report)")
        #expect(try await withJournal(in: directory) { StateDump(try await $0.load()) }
            == Self.state(Self.history + Self.group + [generatedBatch(first: 50, count: 1)]))
    }

    @Test func aFailedGroupLeavesNoneOfItsBatchesAndTheJournalWritable() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions(fileSystem: fileSystem))
        for batch in Self.history { try await journal.append(batch) }
        let before = directory.journalLines()
        for fault in [FaultInjectingFileSystem.Operation.write, .synchronize, .synchronizeData] {
            // The first failure cuts the room off with the lines; each later append makes room
            // (a write of spaces and an fsync) before it writes its lines and fdatasyncs.
            switch fault {
            case .write: fileSystem.inject(.cutShort(keeping: 700), atNext: .write)
            default: fileSystem.inject(.fail, atNext: fault)
            }
            let error = try await #require(throws: BookmarkIndexError.self) { try await journal.append(contentsOf: Self.group) }
            #expect(error.code == .io && error.message.contains("batches 2 to 5") && error.message.contains("none of them was stored"), "\(error.message)")
            #expect(fingerprint(directory.journalBytes()) == fingerprint(before), "\(fault): the group's lines (and the room) were cut off")
        }
        try await journal.append(contentsOf: Self.group)
        try await journal.close()
        #expect(try await withJournal(in: directory) { StateDump(try await $0.load()) } == Self.state(Self.history + Self.group))
    }

    @Test func aBadDateInAnyBatchRefusesTheWholeGroupBeforeWriting() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        var bad = generatedBatch(first: 90, count: 1)
        if case .upsert(var row) = bad[0] {
            row.lastSeenAt = Date(timeIntervalSinceReferenceDate: .nan)
            bad[0] = .upsert(row)
        }
        let before = directory.journalBytes()
        let error = try await #require(throws: BookmarkIndexError.self) { try await journal.append(contentsOf: Self.group + [bad]) }
        #expect(error.code == .invalidArgument)
        #expect(directory.journalBytes() == before)
        try await journal.close()
    }

    @Test func aCompactionUnderWayCarriesTheGroup() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        var expected = try await journal.load()
        for batch in Self.history {
            try await journal.append(batch)
            expected.apply(batch)
        }
        let work = try await journal.beginCompaction(to: expected)
        try await journal.append(contentsOf: Self.group)
        try await work()
        try await journal.close()
        #expect(try await withJournal(in: directory) { StateDump(try await $0.load()) } == Self.state(Self.history + Self.group))
    }

    /// The store writes a group in one storage call, applies it as one write (one change for
    /// observers) and leaves the index as the batches one by one would.
    @Test func theStoreAppliesAGroupAsOneWrite() async throws {
        let storage = InMemoryStorage()
        let store = try await BookmarksIndexStore(storage: storage)
        try await store.apply(Self.history[0])
        let changes = await store.changes()
        let revision = await store.state.revision
        try await store.apply(contentsOf: Self.group + [[]])
        #expect(storage.appendedBatches == 1 + Self.group.count)
        #expect(StateDump(await store.state) == Self.state(Self.history + Self.group))
        #expect(await store.state.revision == revision + 1)
        var iterator = changes.makeAsyncIterator()
        let change = try #require(await iterator.next())
        #expect(change.revision == revision + 1)
        #expect(change[.public].added.count == 8 && change[.public].removed == [BookmarkKey(illustID: 2, restrict: .public)])
        #expect(change[.private].added.count == 2)
        try await store.apply(contentsOf: [[], []])
        #expect(storage.appendedBatches == 1 + Self.group.count, "empty batches write nothing")
    }
}
