@_spi(Testing) @testable import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import Testing

/// A journal that grows past its threshold with new bookmarks only (a first sync, an import)
/// holds nothing a compaction would drop: the store writes a checkpoint of it instead of
/// rewriting it, and the next open reads that checkpoint as it reads a compaction's.
@Suite("Checkpoint in place of a compaction")
struct CheckpointInPlaceOfCompactionTests {
    /// Automatic compaction above 16 KiB, a checkpoint for any journal.
    func options(checkpoints: Bool = true, durability: JournalStorage.Options.Durability = .none) -> JournalStorage.Options {
        var options = journalOptions(durability: durability)
        options.compactionMinimumBytes = 16 * 1024
        options.checkpointMinimumBytes = checkpoints ? 0 : .max
        return options
    }

    /// Batches of `size` new bookmarks each, `count` of them, the next from illust `first`.
    func newBookmarks(count: Int, size: Int = 30, first: Int = 1) -> [[BookmarkChange]] {
        (0..<count).map { generatedBatch(first: first + $0 * size, count: size, order: -Int64(first + $0 * size)) }
    }

    /// The same `ids` bookmarks written again and again, each time with another title.
    func rewrites(count: Int, ids: Int = 30) -> [[BookmarkChange]] {
        (0..<count).map { round in
            (1...ids).map { .upsert(row($0, tags: ["tag\($0 % 7)"], order: -Int64($0), title: "version \(round) of \($0)")) }
        }
    }

    /// Writes `batches` through a store opened with `options`, then closes it (which waits for
    /// a compaction or checkpoint running); returns the store's events and the index written.
    func write(
        _ batches: [[BookmarkChange]], in directory: TemporaryDirectory, options: JournalStorage.Options,
        checkingAppendOnly: Bool = false
    ) async throws -> (events: [StoreEvent], model: BookmarkIndexState) {
        let store = try await BookmarksIndexStore.open(directory: directory.url, options: options)
        let events = await store.events()
        var model = BookmarkIndexState()
        var earlier = directory.journalBytes()
        for batch in batches {
            try await store.apply(batch)
            model.apply(batch)
            if checkingAppendOnly {
                let now = directory.journalBytes()
                #expect(Array(now.prefix(earlier.count)) == earlier, "the journal was only appended to")
                earlier = now
            }
        }
        try await store.close()
        var seen: [StoreEvent] = []
        for await event in events { seen.append(event) }
        return (seen, model)
    }

    func isCompactionEvent(_ event: StoreEvent) -> Bool {
        switch event {
        case .compactionStarted, .compactionFinished, .compactionFailed: true
        }
    }

    /// Appends `batches` to `journal`, a line each, and applies them to `model`.
    func append(_ batches: [[BookmarkChange]], to journal: JournalStorage, model: inout BookmarkIndexState) async throws {
        for batch in batches {
            try await journal.append(batch)
            model.apply(batch)
        }
    }

    func readCheckpoint(_ directory: TemporaryDirectory) throws -> (state: BookmarkIndexState, coverage: IndexCheckpoint.Coverage)? {
        try IndexCheckpoint.read(directory: directory.url.path, fileSystem: PosixFileSystem(), pool: .shared)
    }

    /// Durable appends write over room made ahead of them (spaces past the last line, cut at
    /// open): the checkpoint's coverage ends at the last line, not at the room.
    @Test(arguments: [JournalStorage.Options.Durability.none, .always])
    func newBookmarksAreCheckpointedNotRewritten(durability: JournalStorage.Options.Durability) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let batches = newBookmarks(count: 60)
        let (events, model) = try await write(
            batches, in: directory, options: options(durability: durability), checkingAppendOnly: durability == .none
        )
        #expect(!events.contains(where: isCompactionEvent), "\(events)")

        // Past 16 KiB, then past twice each length a checkpoint was taken at: the last one covers
        // more than half the journal, ends on a line, and holds what the lines it covers make.
        let journal = directory.journalBytes()
        #expect(journal.count > 4 * 16 * 1024)
        let checkpoint = try #require(try readCheckpoint(directory))
        #expect(checkpoint.coverage.length * 2 >= journal.count && checkpoint.coverage.length <= journal.count)
        #expect(journal[checkpoint.coverage.length - 1] == 0x0A)
        #expect(lineStarts(journal).contains(checkpoint.coverage.lastLineOffset))
        let coveredBatches = checkpoint.coverage.lastSequence
        #expect(checkpoint.coverage.lines == coveredBatches + 1)
        var covered = BookmarkIndexState()
        for batch in batches.prefix(coveredBatches) { covered.apply(batch) }
        #expect(StateDump(checkpoint.state) == StateDump(covered))

        // The next open reads the checkpoint, then only the lines after it.
        let counting = ReadCountingFileSystem()
        var reopening = options(durability: durability)
        reopening.fileSystem = counting
        let store = try await BookmarksIndexStore.open(directory: directory.url, options: reopening)
        #expect(StateDump(await store.state) == StateDump(model))
        // The header line, the last line the checkpoint covers (checked to be the batch it says),
        // and the lines after it.
        let headerLength = lineStarts(journal)[1]
        let lastCoveredLine = checkpoint.coverage.length - checkpoint.coverage.lastLineOffset
        let journalRead = counting.bytesRead(of: directory.journalPath)
        #expect(journalRead >= journal.count - checkpoint.coverage.length + lastCoveredLine)
        #expect(journalRead <= journal.count - checkpoint.coverage.length + lastCoveredLine + max(headerLength, 4096))
        let report = try await store.journalReport()
        #expect(report.recovery?.checkpointNotUsed == nil)
        #expect(report.checkpoint?.agreesWithJournal == true)
        try await store.close()
    }

    @Test func rewrittenBookmarksAreCompacted() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (events, model) = try await write(rewrites(count: 60), in: directory, options: options())
        #expect(events.contains { if case .compactionStarted = $0 { true } else { false } }, "\(events)")
        #expect(events.contains { if case .compactionFinished = $0 { true } else { false } }, "\(events)")
        let store = try await BookmarksIndexStore.open(directory: directory.url, options: options())
        #expect(StateDump(await store.state) == StateDump(model))
        try await store.close()
    }

    @Test func withoutCheckpointsNewBookmarksAreCompactedAsBefore() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (events, model) = try await write(newBookmarks(count: 60), in: directory, options: options(checkpoints: false))
        #expect(events.contains { if case .compactionFinished = $0 { true } else { false } }, "\(events)")
        #expect(try readCheckpoint(directory) == nil)
        let store = try await BookmarksIndexStore.open(directory: directory.url, options: options(checkpoints: false))
        #expect(StateDump(await store.state) == StateDump(model))
        try await store.close()
    }

    /// What was superseded before the journal was opened counts too: a file half as long again
    /// as its rows would take, at the bytes a record took in the lines appended since, is
    /// compacted, though every line appended since holds new bookmarks.
    @Test func aJournalOpenedWithMuchSupersededIsCompactedAsItGrows() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var model = BookmarkIndexState()
        do {
            let journal = try await JournalStorage.open(directory: directory.url, options: options())
            try await append(rewrites(count: 60), to: journal, model: &model)
            try await journal.close()
        }
        let store = try await BookmarksIndexStore.open(directory: directory.url, options: options())
        let events = await store.events()
        for batch in newBookmarks(count: 70, first: 1_000) {
            try await store.apply(batch)
            model.apply(batch)
        }
        try await store.close()
        var seen: [StoreEvent] = []
        for await event in events { seen.append(event) }
        #expect(seen.contains { if case .compactionFinished = $0 { true } else { false } }, "\(seen)")
        let reopened = try await BookmarksIndexStore.open(directory: directory.url, options: options())
        #expect(StateDump(await reopened.state) == StateDump(model))
        try await reopened.close()
    }

    /// A compaction pays when it would drop a quarter of the records or more: rows superseded,
    /// removed, or reset with their list.
    @Test func theJournalPrefersACheckpointWhileCompactingWouldDropLessThanAQuarter() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let journal = try await JournalStorage.open(directory: directory.url, options: options())
        var model = BookmarkIndexState()
        func append(_ batch: [BookmarkChange]) async throws {
            try await journal.append(batch)
            model.apply(batch)
        }
        try await append(generatedBatch(first: 1, count: 100))
        #expect(journal.prefersCheckpoint(over: model), "100 records, 100 rows")
        try await append(generatedBatch(first: 1, count: 33))
        #expect(journal.prefersCheckpoint(over: model), "133 records, 100 rows")
        try await append(generatedBatch(first: 1, count: 1))
        #expect(!journal.prefersCheckpoint(over: model), "134 records, 100 rows")

        // After a compaction, the file holds its rows once.
        try await journal.beginCompaction(to: model)()
        #expect(journal.prefersCheckpoint(over: model))
        try await append((1...26).map { .remove(BookmarkKey(illustID: $0, restrict: .public)) })
        #expect(!journal.prefersCheckpoint(over: model), "126 records, 74 rows")
        try await journal.close()

        // At open, the file is taken to hold its rows once.
        let reopened = try await JournalStorage.open(directory: directory.url, options: options())
        let loaded = try await reopened.load()
        #expect(reopened.prefersCheckpoint(over: loaded))
        try await reopened.close()
    }

    /// The checkpoint covers the journal as it was when it began: batches appended while it is
    /// written come after it, and the next open replays them.
    @Test func appendsWhileTheCheckpointIsWrittenAreReplayedAfterIt() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var model = BookmarkIndexState()
        let journal = try await JournalStorage.open(directory: directory.url, options: options())
        // Many batches in one append (an import's), whose last line the coverage names.
        let batches = newBookmarks(count: 40)
        try await journal.append(contentsOf: batches)
        for batch in batches { model.apply(batch) }
        let covered = model
        let lengthAtBegin = directory.journalBytes().count
        let work = try await journal.beginCheckpoint(of: covered)
        try await append(newBookmarks(count: 5, first: 100_000), to: journal, model: &model)
        await work()
        // The growth threshold is measured from where the checkpoint began.
        #expect(!journal.isCompactionDue)
        try await journal.close()

        let checkpoint = try #require(try readCheckpoint(directory))
        #expect(checkpoint.coverage.length == lengthAtBegin)
        #expect(checkpoint.coverage.lastSequence == 40)
        #expect(StateDump(checkpoint.state) == StateDump(covered))
        let reopened = try await JournalStorage.open(directory: directory.url, options: options())
        #expect(StateDump(try await reopened.load()) == StateDump(model))
        #expect(reopened.recovery.checkpointNotUsed == nil)
        #expect(try await reopened.journalReport().checkpoint?.agreesWithJournal == true)
        try await reopened.close()
    }

    /// The file a compaction leaves ends with the batches it carried; a checkpoint of it then
    /// names the last of them, and a reset's empty file its header.
    @Test func aCheckpointAfterACompactionOrAResetNamesTheFileItLeft() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var model = BookmarkIndexState()
        let journal = try await JournalStorage.open(directory: directory.url, options: options())
        try await append(newBookmarks(count: 10), to: journal, model: &model)
        let compaction = try await journal.beginCompaction(to: model)
        try await append(newBookmarks(count: 3, first: 100_000), to: journal, model: &model)
        try await compaction()
        await (try await journal.beginCheckpoint(of: model))()
        try await journal.close()
        do {
            let reopened = try await JournalStorage.open(directory: directory.url, options: options())
            #expect(StateDump(try await reopened.load()) == StateDump(model))
            #expect(reopened.recovery.checkpointNotUsed == nil)
            #expect(try #require(try readCheckpoint(directory)).coverage.length == directory.journalBytes().count)
            try await reopened.reset()
            await (try await reopened.beginCheckpoint(of: BookmarkIndexState()))()
            try await reopened.close()
        }
        let reset = try await JournalStorage.open(directory: directory.url, options: options())
        #expect(StateDump(try await reset.load()) == StateDump(BookmarkIndexState()))
        #expect(reset.recovery.checkpointNotUsed == nil)
        #expect(try #require(try readCheckpoint(directory)).coverage.lastSequence == 0)
        try await reset.close()
    }

    @Test func aCompactionRunningRefusesACheckpoint() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let journal = try await JournalStorage.open(directory: directory.url, options: options())
        let batch = generatedBatch(first: 1, count: 10)
        try await journal.append(batch)
        var model = BookmarkIndexState()
        model.apply(batch)
        let compaction = try await journal.beginCompaction(to: model)
        await #expect(throws: BookmarkIndexError.self) { _ = try await journal.beginCheckpoint(of: model) }
        try await compaction()
        try await journal.close()
    }
}
