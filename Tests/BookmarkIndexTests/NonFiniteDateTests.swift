@_spi(Testing) @testable import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import Testing

/// Dates that are NaN or infinite (issue 26): the journal writes dates as JSON numbers, which
/// have none, and trapped on the I/O thread. Every write now refuses them up front, naming the
/// field, and writes nothing.
@Suite("Non-finite dates")
struct NonFiniteDateTests {
    static let values: [Double] = [.nan, .infinity, -.infinity, .signalingNaN]

    /// A bookmark with one of its dates not finite, and the field's name.
    struct BadBookmark: Sendable, CustomTestStringConvertible {
        var field: String
        var value: Double
        var bookmark: IndexedBookmark

        var testDescription: String { "\(field) = \(value)" }

        static func all(id: Int = 77, restrict: Restrict = .public) -> [BadBookmark] {
            values.flatMap { value -> [BadBookmark] in
                let date = Date(timeIntervalSinceReferenceDate: value)
                var created = row(id, restrict, title: "created"), first = row(id, restrict), seen = row(id, restrict)
                // A vanished work whose content the index kept: the journal writes its date.
                var vanished = row(id, restrict, vanished: .deleted, vanishedAt: 500)
                created.illust.createDate = date
                first.firstIndexedAt = date
                seen.lastSeenAt = date
                vanished.vanishedAt = date
                return [
                    BadBookmark(field: "createDate", value: value, bookmark: created),
                    BadBookmark(field: "firstIndexedAt", value: value, bookmark: first),
                    BadBookmark(field: "lastSeenAt", value: value, bookmark: seen),
                    BadBookmark(field: "vanishedAt", value: value, bookmark: vanished),
                ]
            }
        }
    }

    /// Metadata with one of its dates not finite, and the field's name.
    static let badMetadata: [(field: String, metadata: BookmarkIndexMetadata)] = values.flatMap { value in
        let date = Date(timeIntervalSinceReferenceDate: value)
        return [
            ("lastFullSync", BookmarkIndexMetadata(lastFullSync: date)),
            ("lastDeltaSync", BookmarkIndexMetadata(lastFullSync: Date(timeIntervalSinceReferenceDate: 10), lastDeltaSync: date)),
        ]
    }

    static let goodRows = [row(1, order: 2, title: "one"), row(2, .private, order: 1, title: "two", vanished: .deleted, vanishedAt: 900)]

    /// A store over a journal holding `goodRows`, run by `body`, then closed; what it held before
    /// `body` and the journal's bytes then.
    static func withStore(_ body: (BookmarksIndexStore, TemporaryDirectory) async throws -> Void) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await BookmarksIndexStore(storage: JournalStorage.open(directory: directory.url, options: journalOptions()))
        try await store.upsert(goodRows)
        try await store.setMetadata(BookmarkIndexMetadata(lastFullSync: Date(timeIntervalSinceReferenceDate: 5)), for: .public)
        do {
            try await body(store, directory)
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    /// Runs `write`, which must throw ``BookmarkIndexError/Code/invalidArgument`` naming `field`;
    /// checks that the store and its journal are as they were, and that they still take writes.
    static func expectRefused(
        naming field: String, store: BookmarksIndexStore, directory: TemporaryDirectory,
        sourceLocation: SourceLocation = #_sourceLocation, _ write: () async throws -> Void
    ) async throws {
        let before = StateDump(await store.state)
        let bytes = directory.journalFingerprint()
        let error = try await #require(throws: BookmarkIndexError.self, sourceLocation: sourceLocation) { try await write() }
        #expect(error.code == .invalidArgument, sourceLocation: sourceLocation)
        #expect(error.message.contains(field), "\(error.message)", sourceLocation: sourceLocation)
        #expect(error.message.contains("not a finite date"), "\(error.message)", sourceLocation: sourceLocation)
        #expect(StateDump(await store.state) == before, "the index is unchanged", sourceLocation: sourceLocation)
        #expect(directory.journalFingerprint() == bytes, "the journal has no new line", sourceLocation: sourceLocation)
        // Reopened, the journal holds the same rows.
        let reader = try await JournalReader.open(directory: directory.url, options: journalOptions())
        #expect(StateDump(try await reader.load()) == before, sourceLocation: sourceLocation)
        #expect(reader.recovery.isClean, sourceLocation: sourceLocation)
    }

    // MARK: Through the store

    @Test(arguments: BadBookmark.all())
    func anUpsertWithANonFiniteDateIsRefused(_ bad: BadBookmark) async throws {
        try await Self.withStore { store, directory in
            try await Self.expectRefused(naming: bad.field, store: store, directory: directory) {
                try await store.upsert([bad.bookmark])
            }
            // In a batch with good changes: none of them is written either.
            try await Self.expectRefused(naming: bad.field, store: store, directory: directory) {
                try await store.apply([.upsert(row(3, order: 3)), .upsert(bad.bookmark), .remove(BookmarkKey(illustID: 1, restrict: .public))])
            }
            // Over an existing row (whose earlier first date the index would keep).
            var over = bad.bookmark
            over.illust.id = 1
            try await Self.expectRefused(naming: bad.field, store: store, directory: directory) {
                try await store.upsert([over])
            }
            // The store still writes.
            try await store.upsert([row(4, order: 4, title: "after")])
            #expect(await store.bookmark(for: BookmarkKey(illustID: 4, restrict: .public))?.illust.title == "after")
        }
    }

    @Test func metadataWithANonFiniteDateIsRefused() async throws {
        for (field, metadata) in Self.badMetadata {
            try await Self.withStore { store, directory in
                for restrict in Restrict.allCases {
                    try await Self.expectRefused(naming: field, store: store, directory: directory) {
                        try await store.setMetadata(metadata, for: restrict)
                    }
                }
                try await Self.expectRefused(naming: field, store: store, directory: directory) {
                    try await store.apply([.setMetadata(BookmarkIndexMetadata(), for: .private), .setMetadata(metadata, for: .public)])
                }
                #expect(await store.metadata(for: .public).lastFullSync == Date(timeIntervalSinceReferenceDate: 5))
            }
        }
    }

    /// The store refuses before its storage sees the batch, whatever the storage.
    @Test func theStoreRefusesOverAnyStorage() async throws {
        let storage = InMemoryStorage()
        let store = try await BookmarksIndexStore(storage: storage)
        try await store.upsert(Self.goodRows)
        let batches = storage.appendedBatches
        for bad in BadBookmark.all() {
            let error = try await #require(throws: BookmarkIndexError.self) { try await store.upsert([bad.bookmark]) }
            #expect(error.code == .invalidArgument && error.message.contains(bad.field), "\(error.message)")
        }
        for (field, metadata) in Self.badMetadata {
            let error = try await #require(throws: BookmarkIndexError.self) { try await store.setMetadata(metadata, for: .private) }
            #expect(error.code == .invalidArgument && error.message.contains(field), "\(error.message)")
        }
        #expect(storage.appendedBatches == batches)
        #expect(await store.count(in: .public) == 1)
        #expect(await !store.contains(BookmarkKey(illustID: 77, restrict: .public)))
    }

    // MARK: Through the journal

    @Test func theJournalRefusesABatchWithANonFiniteDate() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await withJournal(in: directory) { journal in
            try await journal.append(Self.goodRows.map(BookmarkChange.upsert))
            let bytes = directory.journalFingerprint()
            for bad in BadBookmark.all(restrict: .private) {
                let error = try await #require(throws: BookmarkIndexError.self) {
                    try await journal.append([.upsert(row(5, order: 5)), .upsert(bad.bookmark)])
                }
                #expect(error.code == .invalidArgument)
                #expect(error.message.contains(bad.field) && error.message.contains("Change 2 of the batch"), "\(error.message)")
            }
            for (field, metadata) in Self.badMetadata {
                let error = try await #require(throws: BookmarkIndexError.self) { try await journal.append([.setMetadata(metadata, for: .public)]) }
                #expect(error.code == .invalidArgument && error.message.contains(field), "\(error.message)")
            }
            #expect(directory.journalFingerprint() == bytes, "no line was written")
            // The journal goes on: the next batch has the next sequence number.
            try await journal.append([.upsert(row(6, order: 6))])
        }
        let reopened = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        #expect(reopened.recovery.isClean)
        var expected = BookmarkIndexState()
        expected.apply(Self.goodRows.map(BookmarkChange.upsert) + [.upsert(row(6, order: 6))])
        #expect(StateDump(try await reopened.load()) == StateDump(expected))
        try await reopened.close()
    }

    /// A state built in memory takes any date; compacting the journal to one that holds a
    /// non-finite date is refused before anything is carried or written.
    @Test func compactionToAStateWithANonFiniteDateIsRefused() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var good = BookmarkIndexState()
        good.apply(Self.goodRows.map(BookmarkChange.upsert))
        // Each state, with what the refusal names: the row's key, or the metadata's field.
        var cases: [(name: String, named: String, state: BookmarkIndexState)] = BadBookmark.all(id: 88).map { bad in
            var state = good
            state.apply(.upsert(bad.bookmark))
            return (bad.testDescription, "88-public", state)
        }
        for (field, metadata) in Self.badMetadata {
            var state = good
            state.apply(.setMetadata(metadata, for: .private))
            cases.append((field, field, state))
        }
        try await withJournal(in: directory) { journal in
            try await journal.append(Self.goodRows.map(BookmarkChange.upsert))
            let bytes = directory.journalFingerprint()
            for (name, named, state) in cases {
                let error = try await #require(throws: BookmarkIndexError.self, "\(name)") { _ = try await journal.beginCompaction(to: state) }
                #expect(error.code == .invalidArgument, "\(name)")
                #expect(error.message.contains("finite"), "\(name): \(error.message)")
                #expect(error.message.contains(named), "\(name): \(error.message)")
                #expect(directory.journalFingerprint() == bytes, "\(name): nothing was written")
            }
            // Nothing was left half begun: the journal appends, and compacts to a good state.
            try await journal.append([.upsert(row(6, order: 6))])
            good.apply(.upsert(row(6, order: 6)))
            try await journal.beginCompaction(to: good)()
        }
        let reopened = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        #expect(reopened.recovery.isClean)
        #expect(StateDump(try await reopened.load()) == StateDump(good))
        try await reopened.close()
    }
}
