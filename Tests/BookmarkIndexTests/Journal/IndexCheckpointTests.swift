@_spi(Testing) @testable import BookmarkIndex
import BookmarkJSON
import BookmarkIndexTesting
import Foundation
import Synchronization
import Testing

/// The checkpoint: a cache of the journal's first lines that open reads instead of
/// replaying them. It must give exactly what replaying gives, be used only for the journal it
/// was taken of, and, damaged in any way, be ignored rather than trusted or fatal.
@Suite("Checkpoint")
struct IndexCheckpointTests {
    /// Options that keep a checkpoint of any journal, however small.
    func checkpointOptions(
        durability: JournalStorage.Options.Durability = .none,
        fileSystem: any JournalFileSystem = PosixFileSystem()
    ) -> JournalStorage.Options {
        var options = journalOptions(durability: durability, fileSystem: fileSystem)
        options.checkpointMinimumBytes = 0
        return options
    }

    var checkpointPath: (TemporaryDirectory) -> String {
        { $0.url.path + "/" + JournalStorage.checkpointFileName }
    }

    /// Appends `count` random batches (from `seed`) to the journal in `directory`, compacts it
    /// (which writes its checkpoint) and closes it; returns the index the batches make.
    func compactedJournal(in directory: TemporaryDirectory, seed: UInt64, count: Int, options: JournalStorage.Options? = nil) async throws -> BookmarkIndexState {
        var model = BookmarkIndexState()
        let journal = try await JournalStorage.open(directory: directory.url, options: options ?? checkpointOptions())
        for batch in randomBatches(seed: seed, count: count) {
            try await journal.append(batch)
            model.apply(batch)
        }
        try await journal.beginCompaction(to: model)()
        try await journal.close()
        return model
    }

    /// Random batches over both lists: upserts with changing text and tags, removals, metadata.
    func randomBatches(seed: UInt64, count: Int, firstStep: Int = 0) -> [[BookmarkChange]] {
        var random = SeededRandom(seed: seed)
        return (firstStep..<firstStep + count).map { step in
            (0..<(1 + random.next() % 12)).map { _ -> BookmarkChange in
                let restrict: Restrict = random.next() % 3 == 0 ? .private : .public
                let id = Int(random.next() % 150)
                switch random.next() % 11 {
                case 0..<7:
                    let tags = (0..<random.next() % 6).map { _ in "t\(random.next() % 40)" + (random.next() % 2 == 0 ? "=訳\(random.next() % 3)" : "") }
                    return .upsert(row(id, restrict, tags: tags, order: Int64(random.next() % 300) - 150,
                                       title: "「\(step)」 \"\(random.next() % 5)\" \\ 🌸", artist: "作者\(random.next() % 7)",
                                       vanished: random.next() % 10 == 0 ? VanishReason.allCases[Int(random.next() % 5)] : nil,
                                       vanishedAt: random.next() % 2 == 0 ? Double(step) - 0.5 : nil, seen: Double(step)))
                case 10:
                    // A placeholder: over a row with content, it keeps the content.
                    return .upsert(row(id, restrict, order: Int64(random.next() % 300) - 150,
                                       vanished: VanishReason.allCases[Int(random.next() % 5)], seen: Double(step)))
                case 7, 8:
                    return .remove(BookmarkKey(illustID: id, restrict: restrict))
                default:
                    return .setMetadata(BookmarkIndexMetadata(lastDeltaSync: Date(timeIntervalSinceReferenceDate: Double(step))), for: restrict)
                }
            }
        }
    }

    /// Everything a query can see, compared in one go.
    func expectSameQueries(_ a: BookmarkIndexState, _ b: BookmarkIndexState, _ comment: Comment) {
        #expect(StateDump(a) == StateDump(b), comment)
        for restrict in Restrict.allCases {
            for visibility in BookmarkFilter.Visibility.allCases {
                // What is derived from the rows rather than stored (the vanished rows' counts and slots) too.
                #expect(a.tagHistogram(in: restrict, visibility: visibility) == b.tagHistogram(in: restrict, visibility: visibility), comment)
                #expect(a.count(in: restrict, matching: BookmarkFilter(visibility: visibility)) == b.count(in: restrict, matching: BookmarkFilter(visibility: visibility)), comment)
                #expect(a.bookmarks(in: restrict, matching: BookmarkFilter(visibility: visibility)) == b.bookmarks(in: restrict, matching: BookmarkFilter(visibility: visibility)), comment)
                for tag in ["t1", "t2", "訳1", "T3"] {
                    let filter = BookmarkFilter(allOf: [tag], noneOf: ["t5"], visibility: visibility)
                    #expect(a.bookmarks(in: restrict, matching: filter, limit: 7, offset: 2) == b.bookmarks(in: restrict, matching: filter, limit: 7, offset: 2), comment)
                    #expect(a.coOccurringTags(in: restrict, matching: filter) == b.coOccurringTags(in: restrict, matching: filter), comment)
                }
            }
            let text = BookmarkFilter(text: "作者3", visibility: .all)
            #expect(a.bookmarks(in: restrict, matching: text) == b.bookmarks(in: restrict, matching: text), comment)
            #expect(a.serverOrderBounds(in: restrict)?.newest == b.serverOrderBounds(in: restrict)?.newest, comment)
        }
    }

    @Test(arguments: [UInt64(1), 2])
    func aCheckpointReadsBackAsTheSameIndexAndKeepsWorkingAfterwards(seed: UInt64) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        var state = BookmarkIndexState()
        for batch in randomBatches(seed: seed, count: 400) { state.apply(batch) }
        let coverage = IndexCheckpoint.Coverage(schemaVersion: 1, journalID: 0xFEED, length: 123, lines: 9, lastSequence: 8, lastLineOffset: 100)
        try IndexCheckpoint.write(state, coverage: coverage, directory: directory.url.path, fileSystem: PosixFileSystem())

        var (read, readCoverage) = try #require(try IndexCheckpoint.read(directory: directory.url.path, fileSystem: PosixFileSystem(), pool: .shared))
        #expect(readCoverage == coverage)
        expectSameQueries(read, state, "as read")
        // Free slots, order stamps, arena garbage: the internals go on working after a read.
        for (index, batch) in randomBatches(seed: seed + 100, count: 400, firstStep: 400).enumerated() {
            state.apply(batch)
            read.apply(batch)
            if index % 100 == 99 { expectSameQueries(read, state, "after \(index + 1) more batches") }
        }
    }

    /// The fields of a vanished work, and the bookkeeping derived from them, survive a checkpoint.
    @Test func vanishedWorksRoundTripWithTheirReasonDateAndKeptContent() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        var state = BookmarkIndexState()
        state.apply((1...20).map { .upsert(row($0, tags: ["t\($0 % 3)=訳", "common"], order: Int64($0), title: "作品 \($0)", artist: "作者")) })
        for (index, reason) in VanishReason.allCases.enumerated() {
            state.apply(.upsert(row(index + 1, order: Int64(index + 1), vanished: reason, seen: 2_000 + Double(index))))
        }
        state.apply(.upsert(row(30, tags: [], order: 30, vanished: .unviewable, seen: 3_000)))
        #expect(state.count(in: .public, matching: BookmarkFilter(visibility: .vanished)) == VanishReason.allCases.count + 1)
        let coverage = IndexCheckpoint.Coverage(schemaVersion: 2, journalID: 7, length: 50, lines: 2, lastSequence: 1, lastLineOffset: 20)
        try IndexCheckpoint.write(state, coverage: coverage, directory: directory.url.path, fileSystem: PosixFileSystem())
        let read = try #require(try IndexCheckpoint.read(directory: directory.url.path, fileSystem: PosixFileSystem(), pool: .shared)).state
        let kept = try #require(read.bookmark(for: BookmarkKey(illustID: 2, restrict: .public)))
        #expect(kept.illust.vanishReason == .myPixivOnly && kept.vanishedAt == Date(timeIntervalSince1970: 2_001))
        #expect(kept.illust.title == "作品 2" && kept.illust.tags.map(\.name) == ["t2", "common"])
        #expect(read.bookmark(for: BookmarkKey(illustID: 30, restrict: .public))?.vanishedAt == nil)
        expectSameQueries(read, state, "as read")
        #expect(read.tagHistogram(in: .public, visibility: .vanished).first == ArtworkTagCount(name: "common", count: VanishReason.allCases.count))
    }

    @Test func anEmptyIndexRoundTrips() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        let coverage = IndexCheckpoint.Coverage(schemaVersion: 1, journalID: 1, length: 10, lines: 1, lastSequence: 0, lastLineOffset: 0)
        try IndexCheckpoint.write(BookmarkIndexState(), coverage: coverage, directory: directory.url.path, fileSystem: PosixFileSystem())
        let read = try #require(try IndexCheckpoint.read(directory: directory.url.path, fileSystem: PosixFileSystem(), pool: .shared))
        #expect(StateDump(read.state) == StateDump(BookmarkIndexState()))
    }

    /// Open reads the checkpoint and only the journal's lines after it.
    @Test func openReadsTheCheckpointThenOnlyTheLinesAfterIt() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var model = BookmarkIndexState()
        do {
            let journal = try await JournalStorage.open(directory: directory.url, options: checkpointOptions())
            for batch in randomBatches(seed: 3, count: 300) {
                try await journal.append(batch)
                model.apply(batch)
            }
            try await journal.beginCompaction(to: model)()
            for batch in randomBatches(seed: 4, count: 20, firstStep: 300) {
                try await journal.append(batch)
                model.apply(batch)
            }
            try await journal.close()
        }
        #expect(FileManager.default.fileExists(atPath: checkpointPath(directory)))
        let coverage = try #require(try IndexCheckpoint.read(directory: directory.url.path, fileSystem: PosixFileSystem(), pool: .shared)).coverage
        let compactedLength = coverage.length
        let journalLength = directory.journalBytes().count
        #expect(compactedLength < journalLength)

        let counting = ReadCountingFileSystem()
        let journal = try await JournalStorage.open(directory: directory.url, options: checkpointOptions(fileSystem: counting))
        expectSameQueries(try await journal.load(), model, "after open")
        #expect(journal.recovery.checkpointNotUsed == nil)
        #expect(journal.recovery.isClean)
        // The header line, the last line the checkpoint covers (checked to be the batch it says),
        // and the lines after it.
        let headerLength = lineStarts(directory.journalBytes())[1]
        let lastCoveredLine = coverage.length - coverage.lastLineOffset
        let journalRead = counting.bytesRead(of: directory.journalPath)
        #expect(journalRead >= journalLength - compactedLength + lastCoveredLine)
        #expect(journalRead <= journalLength - compactedLength + lastCoveredLine + max(headerLength, 4096))
        try await journal.close()
    }

    @Test func compactionKeepsTheCheckpointInStepAndAppendsAfterItAreReplayed() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = checkpointOptions()
        options.compactionMinimumBytes = 16 * 1024
        var model = BookmarkIndexState()
        var store: BookmarksIndexStore? = try await BookmarksIndexStore.open(directory: directory.url, options: options)
        for (index, batch) in randomBatches(seed: 5, count: 600).enumerated() {
            try await store!.apply(batch)
            model.apply(batch)
            if index % 75 == 74 {
                // Automatic compactions happen along the way; every reopen must use a checkpoint.
                try await store!.close()
                store = try await BookmarksIndexStore.open(directory: directory.url, options: options)
                let health = try await store!.journalReport()
                #expect(health.recovery?.checkpointNotUsed == nil, "reopen after batch \(index)")
                #expect(health.checkpoint?.agreesWithJournal == true)
                #expect(health.checkpoint?.notUsedBecause == nil)
                #expect(health.isHealthy)
                expectSameQueries(await store!.state, model, "reopen after batch \(index)")
            }
        }
        try await store!.close()
    }

    /// Between compactions the lines after a checkpoint grow; once they pass a quarter of what it
    /// covers, open writes a new checkpoint so the next open replays none of them.
    @Test func openRefreshesACheckpointWhoseTailHasGrownLong() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = checkpointOptions()
        options.checkpointMinimumBytes = 4 * 1024
        var model = try await compactedJournal(in: directory, seed: 18, count: 200, options: options)
        func coveredLength() throws -> Int {
            try #require(try IndexCheckpoint.read(directory: directory.url.path, fileSystem: PosixFileSystem(), pool: .shared)).coverage.length
        }
        let compacted = try coveredLength()

        // A short tail: replayed, the checkpoint left as it is.
        do {
            let journal = try await JournalStorage.open(directory: directory.url, options: options)
            let short = randomBatches(seed: 19, count: 2, firstStep: 200)
            for batch in short { try await journal.append(batch); model.apply(batch) }
            try await journal.close()
        }
        do {
            let journal = try await JournalStorage.open(directory: directory.url, options: options)
            #expect(StateDump(try await journal.load()) == StateDump(model))
            try await journal.close()
        }
        #expect(try coveredLength() == compacted)

        // A long one: the open that replays it writes a checkpoint of everything.
        do {
            let journal = try await JournalStorage.open(directory: directory.url, options: options)
            for batch in randomBatches(seed: 20, count: 120, firstStep: 202) { try await journal.append(batch); model.apply(batch) }
            try await journal.close()
        }
        #expect(directory.journalBytes().count - compacted > compacted / 4)
        do {
            let journal = try await JournalStorage.open(directory: directory.url, options: options)
            #expect(StateDump(try await journal.load()) == StateDump(model))
            try await journal.close()
        }
        #expect(try coveredLength() == directory.journalBytes().count)
        let counting = ReadCountingFileSystem()
        var countingOptions = options
        countingOptions.fileSystem = counting
        let journal = try await JournalStorage.open(directory: directory.url, options: countingOptions)
        expectSameQueries(try await journal.load(), model, "after the refreshed checkpoint")
        let refreshed = try #require(try IndexCheckpoint.read(directory: directory.url.path, fileSystem: PosixFileSystem(), pool: .shared)).coverage
        #expect(counting.bytesRead(of: directory.journalPath) <= 4 * 1024 + refreshed.length - refreshed.lastLineOffset, "the header and the last line the checkpoint covers")
        try await journal.close()
    }

    @Test func aCheckpointOfAnotherJournalIsNotUsed() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var model = BookmarkIndexState()
        let journal = try await JournalStorage.open(directory: directory.url, options: checkpointOptions())
        for batch in randomBatches(seed: 6, count: 50) { try await journal.append(batch); model.apply(batch) }
        try await journal.beginCompaction(to: model)()
        let old = try Data(contentsOf: URL(fileURLWithPath: checkpointPath(directory)))
        // The next compaction writes a journal with a new identity (and a new checkpoint).
        for batch in randomBatches(seed: 7, count: 50, firstStep: 50) { try await journal.append(batch); model.apply(batch) }
        try await journal.beginCompaction(to: model)()
        try await journal.close()
        try old.write(to: URL(fileURLWithPath: checkpointPath(directory)))

        let counting = ReadCountingFileSystem()
        let reopened = try await JournalStorage.open(directory: directory.url, options: checkpointOptions(fileSystem: counting))
        expectSameQueries(try await reopened.load(), model, "with the old checkpoint")
        #expect(reopened.recovery.checkpointNotUsed?.contains("another journal") == true)
        #expect(counting.bytesRead(of: checkpointPath(directory)) < 1_024, "turned down on its header, before its sections")
        #expect(reopened.recovery.isClean, "a checkpoint not used loses nothing")
        try await reopened.close()
        // That open wrote a checkpoint of the journal it read, which the next one uses.
        let again = try await JournalStorage.open(directory: directory.url, options: checkpointOptions())
        #expect(again.recovery.checkpointNotUsed == nil)
        expectSameQueries(try await again.load(), model, "with the rewritten checkpoint")
        try await again.close()
    }

    @Test func smallJournalsKeepNoCheckpointAndAResetRemovesOne() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = journalOptions(durability: .none)
        options.checkpointMinimumBytes = 8 * 1024
        let journal = try await JournalStorage.open(directory: directory.url, options: options)
        var model = BookmarkIndexState()
        let small = generatedBatch(first: 0, count: 3)
        try await journal.append(small)
        model.apply(small)
        try await journal.beginCompaction(to: model)()
        #expect(!FileManager.default.fileExists(atPath: checkpointPath(directory)))
        for batch in randomBatches(seed: 10, count: 60) { try await journal.append(batch); model.apply(batch) }
        try await journal.beginCompaction(to: model)()
        #expect(FileManager.default.fileExists(atPath: checkpointPath(directory)))
        try await journal.reset()
        #expect(!FileManager.default.fileExists(atPath: checkpointPath(directory)))
        try await journal.close()
    }

    @Test func removeJournalRemovesTheCheckpointToo() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let journal = try await JournalStorage.open(directory: directory.url, options: checkpointOptions())
        try await journal.append(generatedBatch(first: 0, count: 5))
        var state = BookmarkIndexState()
        state.apply(generatedBatch(first: 0, count: 5))
        try await journal.beginCompaction(to: state)()
        try await journal.close()
        #expect(FileManager.default.fileExists(atPath: checkpointPath(directory)))
        try await JournalStorage.removeJournal(in: directory.url)
        #expect(!FileManager.default.fileExists(atPath: checkpointPath(directory)))
        #expect(!FileManager.default.fileExists(atPath: directory.journalPath))
    }

    /// A read-only open (`bookmarks list` while a sync runs) can race the writer's compaction:
    /// it must read one journal file throughout, not the header and checkpoint of the old one and
    /// the lines of the new one.
    @Test func aReadOnlyOpenRacingACompactionReadsOneJournal() async throws {
        let directory = TemporaryDirectory(), other = TemporaryDirectory()
        defer { directory.remove(); other.remove() }
        var model = BookmarkIndexState()
        do {
            let journal = try await JournalStorage.open(directory: directory.url, options: checkpointOptions())
            for batch in randomBatches(seed: 15, count: 60) { try await journal.append(batch); model.apply(batch) }
            try await journal.beginCompaction(to: model)()
            for batch in randomBatches(seed: 16, count: 10, firstStep: 60) { try await journal.append(batch); model.apply(batch) }
            try await journal.close()
            // What a compaction would put in its place: another file, other lines.
            let replacement = try await JournalStorage.open(directory: other.url, options: checkpointOptions())
            for batch in randomBatches(seed: 17, count: 90) { try await replacement.append(batch) }
            try await replacement.close()
        }
        let journalPath = directory.journalPath, replacementPath = other.journalPath
        let swapped = Mutex(false)
        // The "writer" renames its new journal in just as the reader turns to the checkpoint.
        let racing = ReadCountingFileSystem { path in
            guard path.hasSuffix(JournalStorage.checkpointFileName), !swapped.withLock({ $0 }) else { return }
            swapped.withLock { $0 = true }
            _ = rename(replacementPath, journalPath)
        }
        let reader = try await JournalReader.open(directory: directory.url, options: checkpointOptions(fileSystem: racing))
        #expect(swapped.withLock { $0 })
        #expect(reader.recovery.checkpointNotUsed == nil)
        #expect(StateDump(try await reader.load()) == StateDump(model), "the file it started reading, checkpoint and lines after it")
    }

    @Test func aReadOnlyOpenUsesTheCheckpointAndWritesNothing() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var model = BookmarkIndexState()
        let writer = try await JournalStorage.open(directory: directory.url, options: checkpointOptions())
        for batch in randomBatches(seed: 11, count: 60) { try await writer.append(batch); model.apply(batch) }
        try await writer.beginCompaction(to: model)()
        let extra = generatedBatch(first: 1_000, count: 4)
        try await writer.append(extra)
        model.apply(extra)
        let checkpointBefore = try Data(contentsOf: URL(fileURLWithPath: checkpointPath(directory)))
        let journalBefore = directory.journalFingerprint()

        // While the writer holds the store, as `bookmarks list` reads a store being synced.
        let reader = try await JournalReader.open(directory: directory.url, options: checkpointOptions())
        #expect(reader.recovery.checkpointNotUsed == nil)
        #expect(StateDump(try await reader.load()) == StateDump(model))
        #expect(try Data(contentsOf: URL(fileURLWithPath: checkpointPath(directory))) == checkpointBefore)
        #expect(directory.journalFingerprint() == journalBefore)
        try await writer.close()
    }

    @Test func xxh64MatchesItsPublishedVectors() async {
        func hash(_ text: String) -> UInt64 { Array(text.utf8).withUnsafeBytes { XXH64.hash($0) } }
        #expect(hash("") == 0xEF46_DB37_51D8_E999)
        #expect(hash("a") == 0xD24E_C4F1_A98C_6E5B)
        #expect(hash("abc") == 0x44BC_2CF5_AD77_0999)
        #expect(hash("The quick brown fox jumps over the lazy dog") == 0x0B24_2D36_1FDA_71BC)
    }
}
