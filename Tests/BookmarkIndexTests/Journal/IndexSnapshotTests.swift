@testable import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import Synchronization
import Testing

/// The index snapshot: a cache of the journal's first lines that open reads instead of
/// replaying them. It must give exactly what replaying gives, be used only for the journal it
/// was taken of, and, damaged in any way, be ignored rather than trusted or fatal.
@Suite("Index snapshot")
struct IndexSnapshotTests {
    /// Options that keep a snapshot of any journal, however small.
    func snapshotOptions(
        durability: JournalStorage.Options.Durability = .none,
        fileSystem: any JournalFileSystem = PosixFileSystem()
    ) -> JournalStorage.Options {
        var options = journalOptions(durability: durability, fileSystem: fileSystem)
        options.snapshotMinimumBytes = 0
        return options
    }

    var snapshotPath: (TemporaryDirectory) -> String {
        { $0.url.path + "/" + JournalStorage.snapshotFileName }
    }

    /// Appends `count` random batches (from `seed`) to the journal in `directory`, compacts it
    /// (which writes its snapshot) and closes it; returns the index the batches make.
    func compactedJournal(in directory: TemporaryDirectory, seed: UInt64, count: Int, options: JournalStorage.Options? = nil) throws -> BookmarkIndexState {
        var model = BookmarkIndexState()
        let journal = try JournalStorage(directory: directory.url, options: options ?? snapshotOptions())
        for batch in randomBatches(seed: seed, count: count) {
            try journal.append(batch)
            model.apply(batch)
        }
        try journal.compact(model)
        try journal.close()
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
    func aSnapshotReadsBackAsTheSameIndexAndKeepsWorkingAfterwards(seed: UInt64) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        var state = BookmarkIndexState()
        for batch in randomBatches(seed: seed, count: 400) { state.apply(batch) }
        let coverage = IndexSnapshot.Coverage(schemaVersion: 1, journalID: 0xFEED, length: 123, lines: 9, lastSequence: 8, lastLineOffset: 100)
        try IndexSnapshot.write(state, coverage: coverage, directory: directory.url.path, fileSystem: PosixFileSystem())

        var (read, readCoverage) = try #require(try IndexSnapshot.read(directory: directory.url.path, fileSystem: PosixFileSystem()))
        #expect(readCoverage == coverage)
        expectSameQueries(read, state, "as read")
        // Free slots, order stamps, arena garbage: the internals go on working after a read.
        for (index, batch) in randomBatches(seed: seed + 100, count: 400, firstStep: 400).enumerated() {
            state.apply(batch)
            read.apply(batch)
            if index % 100 == 99 { expectSameQueries(read, state, "after \(index + 1) more batches") }
        }
    }

    /// The fields of a vanished work, and the bookkeeping derived from them, survive a snapshot.
    @Test func vanishedWorksRoundTripWithTheirReasonDateAndKeptContent() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        var state = BookmarkIndexState()
        state.apply((1...20).map { .upsert(row($0, tags: ["t\($0 % 3)=訳", "common"], order: Int64($0), title: "作品 \($0)", artist: "作者")) })
        for (index, reason) in VanishReason.allCases.enumerated() {
            state.apply(.upsert(row(index + 1, order: Int64(index + 1), vanished: reason, seen: 2_000 + Double(index))))
        }
        state.apply(.upsert(row(30, tags: [], order: 30, vanished: .unviewable, seen: 3_000)))
        #expect(state.count(in: .public, matching: BookmarkFilter(visibility: .vanished)) == 6)
        let coverage = IndexSnapshot.Coverage(schemaVersion: 2, journalID: 7, length: 50, lines: 2, lastSequence: 1, lastLineOffset: 20)
        try IndexSnapshot.write(state, coverage: coverage, directory: directory.url.path, fileSystem: PosixFileSystem())
        let read = try #require(try IndexSnapshot.read(directory: directory.url.path, fileSystem: PosixFileSystem())).state
        let kept = try #require(read.bookmark(for: BookmarkKey(illustID: 2, restrict: .public)))
        #expect(kept.illust.vanishReason == .myPixivOnly && kept.vanishedAt == Date(timeIntervalSince1970: 2_001))
        #expect(kept.illust.title == "作品 2" && kept.illust.tags.map(\.name) == ["t2", "common"])
        #expect(read.bookmark(for: BookmarkKey(illustID: 30, restrict: .public))?.vanishedAt == nil)
        expectSameQueries(read, state, "as read")
        #expect(read.tagHistogram(in: .public, visibility: .vanished).first == TagCount(name: "common", count: 5))
    }

    @Test func anEmptyIndexRoundTrips() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        let coverage = IndexSnapshot.Coverage(schemaVersion: 1, journalID: 1, length: 10, lines: 1, lastSequence: 0, lastLineOffset: 0)
        try IndexSnapshot.write(BookmarkIndexState(), coverage: coverage, directory: directory.url.path, fileSystem: PosixFileSystem())
        let read = try #require(try IndexSnapshot.read(directory: directory.url.path, fileSystem: PosixFileSystem()))
        #expect(StateDump(read.state) == StateDump(BookmarkIndexState()))
    }

    /// Open reads the snapshot and only the journal's lines after it.
    @Test func openReadsTheSnapshotThenOnlyTheLinesAfterIt() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var model = BookmarkIndexState()
        do {
            let journal = try JournalStorage(directory: directory.url, options: snapshotOptions())
            for batch in randomBatches(seed: 3, count: 300) {
                try journal.append(batch)
                model.apply(batch)
            }
            try journal.compact(model)
            for batch in randomBatches(seed: 4, count: 20, firstStep: 300) {
                try journal.append(batch)
                model.apply(batch)
            }
            try journal.close()
        }
        #expect(FileManager.default.fileExists(atPath: snapshotPath(directory)))
        let coverage = try #require(try IndexSnapshot.read(directory: directory.url.path, fileSystem: PosixFileSystem())).coverage
        let compactedLength = coverage.length
        let journalLength = directory.journalBytes().count
        #expect(compactedLength < journalLength)

        let counting = ReadCountingFileSystem()
        let journal = try JournalStorage(directory: directory.url, options: snapshotOptions(fileSystem: counting))
        expectSameQueries(try journal.load(), model, "after open")
        #expect(journal.recovery.snapshotNotUsed == nil)
        #expect(journal.recovery.isClean)
        // The header line, the last line the snapshot covers (checked to be the batch it says),
        // and the lines after it.
        let headerLength = lineStarts(directory.journalBytes())[1]
        let lastCoveredLine = coverage.length - coverage.lastLineOffset
        let journalRead = counting.bytesRead(of: directory.journalPath)
        #expect(journalRead >= journalLength - compactedLength + lastCoveredLine)
        #expect(journalRead <= journalLength - compactedLength + lastCoveredLine + max(headerLength, 4096))
        try journal.close()
    }

    @Test func compactionKeepsTheSnapshotInStepAndAppendsAfterItAreReplayed() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = snapshotOptions()
        options.compactionMinimumBytes = 16 * 1024
        var model = BookmarkIndexState()
        var store: BookmarksIndexStore? = try BookmarksIndexStore(directory: directory.url, options: options)
        for (index, batch) in randomBatches(seed: 5, count: 600).enumerated() {
            try await store!.apply(batch)
            model.apply(batch)
            if index % 75 == 74 {
                // Automatic compactions happen along the way; every reopen must use a snapshot.
                try await store!.close()
                store = try BookmarksIndexStore(directory: directory.url, options: options)
                let health = try await store!.journalHealth()
                #expect(health.recovery?.snapshotNotUsed == nil, "reopen after batch \(index)")
                #expect(health.snapshot?.agreesWithJournal == true)
                #expect(health.snapshot?.notUsedBecause == nil)
                #expect(health.isHealthy)
                expectSameQueries(await store!.snapshot, model, "reopen after batch \(index)")
            }
        }
        try await store!.close()
    }

    /// Between compactions the lines after a snapshot grow; once they pass a quarter of what it
    /// covers, open writes a new snapshot so the next open replays none of them.
    @Test func openRefreshesASnapshotWhoseTailHasGrownLong() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = snapshotOptions()
        options.snapshotMinimumBytes = 4 * 1024
        var model = try compactedJournal(in: directory, seed: 18, count: 200, options: options)
        func coveredLength() throws -> Int {
            try #require(try IndexSnapshot.read(directory: directory.url.path, fileSystem: PosixFileSystem())).coverage.length
        }
        let compacted = try coveredLength()

        // A short tail: replayed, the snapshot left as it is.
        do {
            let journal = try JournalStorage(directory: directory.url, options: options)
            let short = randomBatches(seed: 19, count: 2, firstStep: 200)
            for batch in short { try journal.append(batch); model.apply(batch) }
            try journal.close()
        }
        do {
            let journal = try JournalStorage(directory: directory.url, options: options)
            #expect(StateDump(try journal.load()) == StateDump(model))
            try journal.close()
        }
        #expect(try coveredLength() == compacted)

        // A long one: the open that replays it writes a snapshot of everything.
        do {
            let journal = try JournalStorage(directory: directory.url, options: options)
            for batch in randomBatches(seed: 20, count: 120, firstStep: 202) { try journal.append(batch); model.apply(batch) }
            try journal.close()
        }
        #expect(directory.journalBytes().count - compacted > compacted / 4)
        do {
            let journal = try JournalStorage(directory: directory.url, options: options)
            #expect(StateDump(try journal.load()) == StateDump(model))
            try journal.close()
        }
        #expect(try coveredLength() == directory.journalBytes().count)
        let counting = ReadCountingFileSystem()
        var countingOptions = options
        countingOptions.fileSystem = counting
        let journal = try JournalStorage(directory: directory.url, options: countingOptions)
        expectSameQueries(try journal.load(), model, "after the refreshed snapshot")
        let refreshed = try #require(try IndexSnapshot.read(directory: directory.url.path, fileSystem: PosixFileSystem())).coverage
        #expect(counting.bytesRead(of: directory.journalPath) <= 4 * 1024 + refreshed.length - refreshed.lastLineOffset, "the header and the last line the snapshot covers")
        try journal.close()
    }

    @Test func aSnapshotOfAnotherJournalIsNotUsed() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var model = BookmarkIndexState()
        let journal = try JournalStorage(directory: directory.url, options: snapshotOptions())
        for batch in randomBatches(seed: 6, count: 50) { try journal.append(batch); model.apply(batch) }
        try journal.compact(model)
        let old = try Data(contentsOf: URL(fileURLWithPath: snapshotPath(directory)))
        // The next compaction writes a journal with a new identity (and a new snapshot).
        for batch in randomBatches(seed: 7, count: 50, firstStep: 50) { try journal.append(batch); model.apply(batch) }
        try journal.compact(model)
        try journal.close()
        try old.write(to: URL(fileURLWithPath: snapshotPath(directory)))

        let counting = ReadCountingFileSystem()
        let reopened = try JournalStorage(directory: directory.url, options: snapshotOptions(fileSystem: counting))
        expectSameQueries(try reopened.load(), model, "with the old snapshot")
        #expect(reopened.recovery.snapshotNotUsed?.contains("another journal") == true)
        #expect(counting.bytesRead(of: snapshotPath(directory)) < 1_024, "turned down on its header, before its sections")
        #expect(reopened.recovery.isClean, "a snapshot not used loses nothing")
        try reopened.close()
        // That open wrote a snapshot of the journal it read, which the next one uses.
        let again = try JournalStorage(directory: directory.url, options: snapshotOptions())
        #expect(again.recovery.snapshotNotUsed == nil)
        expectSameQueries(try again.load(), model, "with the rewritten snapshot")
        try again.close()
    }

    /// Rewrites the snapshot in `directory` with `edit` applied to its bytes, then every
    /// section's checksum and the header's recomputed: a well-formed file with made-up values,
    /// as a bug, or someone, might write.
    func forgeSnapshot(in directory: TemporaryDirectory, _ edit: (inout [UInt8], _ sectionStart: (Int) -> Int) -> Void) throws {
        let url = URL(fileURLWithPath: snapshotPath(directory))
        var bytes = try [UInt8](Data(contentsOf: url))
        let fixed = 80, count = 20
        func int64(at offset: Int) -> Int { Int(bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: Int64.self) }) }
        let sizes = (0..<count).map { int64(at: fixed + 8 * $0) }
        let headerSize = fixed + 16 * count + 8
        func sectionStart(_ index: Int) -> Int { headerSize + sizes[..<index].reduce(0, +) }
        edit(&bytes, sectionStart)
        let newSizes = (0..<count).map { int64(at: fixed + 8 * $0) }
        for index in 0..<count {
            let start = headerSize + newSizes[..<index].reduce(0, +)
            let end = min(bytes.count, start + max(0, newSizes[index]))
            let hash = start <= end ? bytes[start..<end].withUnsafeBytes { XXH64.hash($0) } : 0
            withUnsafeBytes(of: hash) { bytes.replaceSubrange(fixed + 8 * count + 8 * index..<fixed + 8 * count + 8 * index + 8, with: $0) }
        }
        let headerHash = bytes[..<(headerSize - 8)].withUnsafeBytes { XXH64.hash($0) }
        withUnsafeBytes(of: headerHash) { bytes.replaceSubrange(headerSize - 8..<headerSize, with: $0) }
        try Data(bytes).write(to: url)
    }

    /// A snapshot whose checksums all pass but whose numbers are made up is refused (or, when
    /// it does not fit the journal after it, dropped for the journal read whole): never a trap,
    /// never a healthy journal called corrupt, never a wrong next batch number.
    @Test func aForgedSnapshotIsNeverFatalAndNeverTrusted() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let model = try compactedJournal(in: directory, seed: 21, count: 80)
        let good = try Data(contentsOf: URL(fileURLWithPath: snapshotPath(directory)))
        let goodJournal = directory.journalBytes()
        func setInt64(_ value: Int64, at offset: Int) -> (inout [UInt8], (Int) -> Int) -> Void {
            { bytes, _ in withUnsafeBytes(of: value) { bytes.replaceSubrange(offset..<offset + 8, with: $0) } }
        }
        func adjust(_ offset: Int, by delta: Int64) -> (inout [UInt8], (Int) -> Int) -> Void {
            { bytes, _ in
                let value = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: Int64.self) } + delta
                withUnsafeBytes(of: value) { bytes.replaceSubrange(offset..<offset + 8, with: $0) }
            }
        }
        let forgeries: [(String, (inout [UInt8], (Int) -> Int) -> Void)] = [
            ("length Int64.min", setInt64(.min, at: 32)),
            ("lines Int64.max", setInt64(.max, at: 40)),
            ("last batch Int64.max", setInt64(.max, at: 48)),
            ("last line offset past the end", setInt64(.max, at: 56)),
            ("lines and last batch one more", { bytes, start in adjust(40, by: 1)(&bytes, start); adjust(48, by: 1)(&bytes, start) }),
            ("lines and last batch one fewer", { bytes, start in adjust(40, by: -1)(&bytes, start); adjust(48, by: -1)(&bytes, start) }),
            ("last line offset one later", adjust(56, by: 1)),
            ("a section 2^45 bytes long", setInt64(1 << 45, at: 80)),
            ("a negative section size", setInt64(-8, at: 80 + 8 * 3)),
            ("garbage text Int64.max", { bytes, start in setInt64(.max, at: start(2))(&bytes, start) }),
            ("next stamp 0", { bytes, start in setInt64(0, at: start(2) + 16)(&bytes, start) }),
        ]
        for (what, forge) in forgeries {
            try Data(good).write(to: URL(fileURLWithPath: snapshotPath(directory)))
            try forgeSnapshot(in: directory, forge)
            let journal = try JournalStorage(directory: directory.url, options: snapshotOptions())
            #expect(StateDump(try journal.load()) == StateDump(model), "\(what)")
            #expect(journal.recovery.snapshotNotUsed != nil, "\(what)")
            // The next batch gets the number after the journal's last: the journal stays whole.
            let extra = generatedBatch(first: 7_000, count: 1)
            try journal.append(extra)
            try journal.close()
            let report = try JournalStorage.verify(directory: directory.url)
            #expect(report.damage.isEmpty && report.isHealthy, "\(what): \(report.damage)")
            directory.writeJournal(goodJournal)
        }
    }

    /// Verify reads the journal twice (whole, and after the snapshot): a line a writer appends
    /// between the two must not make the snapshot look wrong.
    @Test func verifyIgnoresLinesAppendedWhileItRuns() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var model = BookmarkIndexState()
        let writer = try JournalStorage(directory: directory.url, options: snapshotOptions())
        for batch in randomBatches(seed: 22, count: 40) { try writer.append(batch); model.apply(batch) }
        try writer.compact(model)
        let opens = Mutex(0)
        let racing = ReadCountingFileSystem { path in
            guard path.hasSuffix(JournalStorage.journalFileName) else { return }
            // The journal's third opening for reading is verify's second pass.
            if opens.withLock({ $0 += 1; return $0 }) == 3 { try? writer.append(generatedBatch(first: 8_000, count: 2)) }
        }
        let report = try JournalStorage.verify(directory: directory.url, fileSystem: racing)
        #expect(opens.withLock { $0 } >= 3)
        #expect(report.snapshot?.agreesWithJournal == true)
        #expect(report.isHealthy)
        try writer.close()
    }

    /// A snapshot rewritten while verify runs (a writer appended enough and reopened) covers
    /// lines verify did not read: it is not compared, rather than called wrong.
    @Test func verifyDoesNotCompareASnapshotWrittenWhileItRuns() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = snapshotOptions()
        options.snapshotMinimumBytes = 1_024
        _ = try compactedJournal(in: directory, seed: 23, count: 40, options: options)
        let opens = Mutex(0)
        let batches = randomBatches(seed: 24, count: 60, firstStep: 40)
        let racing = ReadCountingFileSystem { [options] path in
            guard path.hasSuffix(JournalStorage.journalFileName), opens.withLock({ $0 += 1; return $0 }) == 3 else { return }
            // Between verify's two passes: many batches, then an open that refreshes the snapshot.
            guard let writer = try? JournalStorage(directory: directory.url, options: options) else { return }
            for batch in batches { try? writer.append(batch) }
            try? writer.close()
            try? JournalStorage(directory: directory.url, options: options).close()
        }
        let report = try JournalStorage.verify(directory: directory.url, fileSystem: racing)
        let rewritten = try #require(try IndexSnapshot.read(directory: directory.url.path, fileSystem: PosixFileSystem())).coverage
        #expect(rewritten.length > report.bytes, "the snapshot was rewritten to cover the new lines")
        #expect(report.snapshot?.agreesWithJournal == true)
        #expect(report.isHealthy)
    }

    /// Flipped bytes anywhere, cuts at any length, bytes appended: never trusted, never fatal.
    @Test func aDamagedSnapshotIsNotUsedAndTheJournalIsReadWhole() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let model = try compactedJournal(in: directory, seed: 8, count: 80)
        let good = try [UInt8](Data(contentsOf: URL(fileURLWithPath: snapshotPath(directory))))
        var damaged: [(String, [UInt8])] = []
        // Every byte of the header and section table, then bytes spread over the sections.
        for offset in Array(0..<400) + Array(stride(from: 400, to: good.count, by: max(1, good.count / 300))) {
            var bytes = good
            bytes[offset] ^= 0x20
            damaged.append(("byte \(offset) flipped", bytes))
        }
        for length in [0, 7, 100, good.count / 2, good.count - 1] {
            damaged.append(("cut to \(length) bytes", Array(good[..<length])))
        }
        damaged.append(("a byte appended", good + [0]))

        for (what, bytes) in damaged {
            let url = URL(fileURLWithPath: snapshotPath(directory))
            try Data(bytes).write(to: url)
            var options = snapshotOptions()
            options.readOnly = true  // Leaves the damaged snapshot in place for verify.
            let journal = try JournalStorage(directory: directory.url, options: options)
            #expect(StateDump(try journal.load()) == StateDump(model), "\(what)")
            #expect(journal.recovery.snapshotNotUsed != nil, "\(what)")
            let report = try JournalStorage.verify(directory: directory.url)
            #expect(report.snapshot?.notUsedBecause != nil, "\(what)")
            #expect(report.isHealthy, "\(what): a snapshot that is not used is harmless")
        }
    }

    @Test func aJournalCutShorterThanItsSnapshotIsReadWhole() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var states: [BookmarkIndexState] = []
        do {
            let journal = try JournalStorage(directory: directory.url, options: snapshotOptions())
            var model = BookmarkIndexState()
            for batch in randomBatches(seed: 9, count: 30) { try journal.append(batch); model.apply(batch) }
            try journal.compact(model)
            states.append(model)
            try journal.close()
        }
        // The compacted journal loses its last line's end: it is a torn tail now, and the
        // snapshot, which covers that line, must not stand in for it.
        let bytes = directory.journalBytes()
        directory.writeJournal(Array(bytes.dropLast(5)))
        let expected = try replayed(Array(bytes.dropLast(5)))

        let journal = try JournalStorage(directory: directory.url, options: snapshotOptions())
        #expect(journal.recovery.snapshotNotUsed?.contains("does not end its lines where the index snapshot says") == true)
        #expect(journal.recovery.truncatedTail != nil)
        #expect(StateDump(try journal.load()) == StateDump(expected))
        #expect(StateDump(expected) != StateDump(states[0]), "the cut removed a batch")
        try journal.close()
    }

    /// What opening `bytes` as a journal, with no snapshot, gives.
    func replayed(_ bytes: [UInt8]) throws -> BookmarkIndexState {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        directory.writeJournal(bytes)
        var options = journalOptions()
        options.readOnly = true
        return try JournalStorage(directory: directory.url, options: options).load()
    }

    @Test func smallJournalsKeepNoSnapshotAndAResetRemovesOne() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = journalOptions(durability: .none)
        options.snapshotMinimumBytes = 8 * 1024
        let journal = try JournalStorage(directory: directory.url, options: options)
        var model = BookmarkIndexState()
        let small = generatedBatch(first: 0, count: 3)
        try journal.append(small)
        model.apply(small)
        try journal.compact(model)
        #expect(!FileManager.default.fileExists(atPath: snapshotPath(directory)))
        for batch in randomBatches(seed: 10, count: 60) { try journal.append(batch); model.apply(batch) }
        try journal.compact(model)
        #expect(FileManager.default.fileExists(atPath: snapshotPath(directory)))
        try journal.reset()
        #expect(!FileManager.default.fileExists(atPath: snapshotPath(directory)))
        try journal.close()
    }

    @Test func removeJournalRemovesTheSnapshotToo() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let journal = try JournalStorage(directory: directory.url, options: snapshotOptions())
        try journal.append(generatedBatch(first: 0, count: 5))
        var state = BookmarkIndexState()
        state.apply(generatedBatch(first: 0, count: 5))
        try journal.compact(state)
        try journal.close()
        #expect(FileManager.default.fileExists(atPath: snapshotPath(directory)))
        try JournalStorage.removeJournal(in: directory.url)
        #expect(!FileManager.default.fileExists(atPath: snapshotPath(directory)))
        #expect(!FileManager.default.fileExists(atPath: directory.journalPath))
    }

    /// A read-only open (`bookmarks list` while a sync runs) can race the writer's compaction:
    /// it must read one journal file throughout, not the header and snapshot of the old one and
    /// the lines of the new one.
    @Test func aReadOnlyOpenRacingACompactionReadsOneJournal() throws {
        let directory = TemporaryDirectory(), other = TemporaryDirectory()
        defer { directory.remove(); other.remove() }
        var model = BookmarkIndexState()
        do {
            let journal = try JournalStorage(directory: directory.url, options: snapshotOptions())
            for batch in randomBatches(seed: 15, count: 60) { try journal.append(batch); model.apply(batch) }
            try journal.compact(model)
            for batch in randomBatches(seed: 16, count: 10, firstStep: 60) { try journal.append(batch); model.apply(batch) }
            try journal.close()
            // What a compaction would put in its place: another file, other lines.
            let replacement = try JournalStorage(directory: other.url, options: snapshotOptions())
            for batch in randomBatches(seed: 17, count: 90) { try replacement.append(batch) }
            try replacement.close()
        }
        let journalPath = directory.journalPath, replacementPath = other.journalPath
        let swapped = Mutex(false)
        // The "writer" renames its new journal in just as the reader turns to the snapshot.
        let racing = ReadCountingFileSystem { path in
            guard path.hasSuffix(JournalStorage.snapshotFileName), !swapped.withLock({ $0 }) else { return }
            swapped.withLock { $0 = true }
            _ = rename(replacementPath, journalPath)
        }
        var options = snapshotOptions(fileSystem: racing)
        options.readOnly = true
        let reader = try JournalStorage(directory: directory.url, options: options)
        #expect(swapped.withLock { $0 })
        #expect(reader.recovery.snapshotNotUsed == nil)
        #expect(StateDump(try reader.load()) == StateDump(model), "the file it started reading, snapshot and lines after it")
    }

    @Test func aReadOnlyOpenUsesTheSnapshotAndWritesNothing() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var model = BookmarkIndexState()
        let writer = try JournalStorage(directory: directory.url, options: snapshotOptions())
        for batch in randomBatches(seed: 11, count: 60) { try writer.append(batch); model.apply(batch) }
        try writer.compact(model)
        let extra = generatedBatch(first: 1_000, count: 4)
        try writer.append(extra)
        model.apply(extra)
        let snapshotBefore = try Data(contentsOf: URL(fileURLWithPath: snapshotPath(directory)))
        let journalBefore = directory.journalFingerprint()

        // While the writer holds the store, as `bookmarks list` reads a store being synced.
        var options = snapshotOptions()
        options.readOnly = true
        let reader = try JournalStorage(directory: directory.url, options: options)
        #expect(reader.recovery.snapshotNotUsed == nil)
        #expect(StateDump(try reader.load()) == StateDump(model))
        #expect(try Data(contentsOf: URL(fileURLWithPath: snapshotPath(directory))) == snapshotBefore)
        #expect(directory.journalFingerprint() == journalBefore)
        try writer.close()
    }

    /// A crash at any step of a compaction that writes a snapshot, with or without losing what
    /// was not fsynced: the next open, and the one after, give the compacted index.
    @Test(arguments: [false, true])
    func crashAtEveryStepOfACompactionWithASnapshot(powerLoss: Bool) throws {
        var model = BookmarkIndexState()
        let batches = randomBatches(seed: 12, count: 40)
        for batch in batches { model.apply(batch) }

        func openWithHistory(_ directory: TemporaryDirectory, _ fileSystem: FaultInjectingFileSystem) throws -> JournalStorage {
            // Acknowledged batches are fsynced: a power loss may only take what a crash cut short.
            let journal = try JournalStorage(directory: directory.url, options: snapshotOptions(durability: .always, fileSystem: fileSystem))
            for batch in batches { try journal.append(batch) }
            return journal
        }
        let steps: Int
        do {
            let directory = TemporaryDirectory()
            defer { directory.remove() }
            let fileSystem = FaultInjectingFileSystem()
            let journal = try openWithHistory(directory, fileSystem)
            let start = fileSystem.mutatingOperations
            try journal.compact(model)
            steps = fileSystem.mutatingOperations - start
            #expect(fileSystem.operationLog.suffix(steps).last == .rename, "the snapshot's rename ends a compaction")
        }
        for step in 0..<steps {
            let directory = TemporaryDirectory()
            defer { directory.remove() }
            let fileSystem = FaultInjectingFileSystem()
            do {
                let journal = try openWithHistory(directory, fileSystem)
                fileSystem.inject(.crash(keepingBytes: 100), at: fileSystem.mutatingOperations + step)
                try? journal.compact(model)
            }
            fileSystem.restart(losingUnsyncedData: powerLoss)
            for open in 1...2 {
                let journal = try JournalStorage(directory: directory.url, options: snapshotOptions())
                #expect(StateDump(try journal.load()) == StateDump(model), "crash at step \(step), open \(open), power loss \(powerLoss)")
                try journal.close()
            }
        }
    }

    @Test func verifyFindsASnapshotThatDisagreesWithItsJournal() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let model = try compactedJournal(in: directory, seed: 13, count: 40)
        #expect(try JournalStorage.verify(directory: directory.url).snapshot?.agreesWithJournal == true)

        // A well-formed snapshot of a different index that claims the same journal: only a
        // bug could write one, and verify is what would catch it.
        let coverage = try #require(try IndexSnapshot.read(directory: directory.url.path, fileSystem: PosixFileSystem())).coverage
        var other = model
        other.apply(generatedBatch(first: 5_000, count: 1))
        try IndexSnapshot.write(other, coverage: coverage, directory: directory.url.path, fileSystem: PosixFileSystem())
        let report = try JournalStorage.verify(directory: directory.url)
        #expect(report.snapshot?.agreesWithJournal == false)
        #expect(report.snapshot?.notUsedBecause == nil)
        #expect(!report.isHealthy)
    }

    /// The checks a snapshot's lists pass before they are used: each inconsistency that would
    /// otherwise trap (or mislead) a later read is refused.
    @Test func inconsistentListPartsAreRefused() throws {
        var state = BookmarkIndexState()
        for batch in randomBatches(seed: 14, count: 60) { state.apply(batch) }
        // Removals last, so the list has free slots.
        state.apply(state.allBookmarks(in: .public).prefix(3).map { BookmarkChange.remove($0.key) })
        let good = state.lists[0].parts
        let refCount = state.tags.refs.count
        func build(_ parts: ListIndex.Parts) throws -> ListIndex {
            let rows = try ListIndex.indexRows(parts.slots, textCount: parts.text.count, tagRefCount: parts.tagRefs.count)
            try ListIndex.checkSlots(parts)
            try ListIndex.checkOrder(parts.order, slots: parts.slots)
            let checked = try ListIndex.checkedTagIndex(parts, tags: state.tags)
            return try ListIndex(parts: parts, rows: rows, tagIndex: checked)
        }
        _ = try build(good)

        let live = try #require(good.slots.firstIndex { $0.isLive })
        let tagged = try #require(good.slots.firstIndex { $0.isLive && $0.tagCount > 0 })
        let tag = try #require(good.postingCounts.firstIndex { $0 > 1 })
        var cases: [(String, ListIndex.Parts)] = []
        var parts = good
        parts.slots[live].textStart = good.text.count
        cases.append(("text out of bounds", parts))
        parts = good
        parts.slots[tagged].tagStart = good.tagRefs.count
        cases.append(("tags out of bounds", parts))
        parts = good
        let other = try #require(good.slots.indices.last { $0 != live && good.slots[$0].isLive })
        parts.slots[other].illustID = good.slots[live].illustID
        cases.append(("two rows of one illust", parts))
        parts = good
        parts.tagRefs[0] = TagRefID(refCount)
        cases.append(("an unknown tag", parts))
        parts = good
        parts.order.append(parts.order[0])
        cases.append(("a row listed twice", parts))
        parts = good
        parts.order.swapAt(0, parts.order.count - 1)
        cases.append(("order not newest first", parts))
        parts = good
        parts.order.removeLast()
        cases.append(("a row missing from the order", parts))
        parts = good
        parts.postingCounts[tag] += 1
        cases.append(("postings longer than their count", parts))
        parts = good
        let start = good.postingCounts[..<tag].reduce(0) { $0 + Int($1) }
        parts.postingSlots.swapAt(start, start + 1)
        cases.append(("postings out of order", parts))
        parts = good
        parts.freeSlots.append(Int32(live))
        cases.append(("a live row as a free slot", parts))
        parts = good
        parts.slots[live].flags = 0
        cases.append(("a dropped row still in postings or order", parts))
        parts = good
        parts.tagCounts = parts.tagCounts.map { _ in 0 }
        parts.postingCounts = parts.postingCounts.map { _ in 0 }
        parts.postingSlots = []
        cases.append(("counts and postings emptied while rows carry tags", parts))
        parts = good
        let free = try #require(good.freeSlots.first)
        parts.freeSlots.append(free)
        cases.append(("a free slot listed twice", parts))
        parts = good
        parts.nextStamp = 0
        cases.append(("order stamps at or above the next one", parts))
        parts = good
        parts.slots[live].vanishReason = UInt8(VanishReason.allCases.count + 1)
        cases.append(("a vanish reason the index does not write", parts))
        parts = good
        let visible = try #require(good.slots.firstIndex { $0.isLive && $0.isVisible })
        parts.slots[visible].flags |= ListIndex.Row.hasVanishedAtFlag
        cases.append(("a visible row with a vanish date", parts))
        // Postings of the right length and order, naming a row that does not carry the tag.
        parts = good
        let postingStart = good.postingCounts[..<tag].reduce(0) { $0 + Int($1) }
        let tagPostings = Array(good.postingSlots[postingStart..<postingStart + Int(good.postingCounts[tag])])
        let stranger = try #require(good.slots.indices.first { slot in
            good.slots[slot].isLive && !tagPostings.contains(Int32(slot))
        })
        let replaced = (tagPostings.dropFirst() + [Int32(stranger)]).sorted()
        parts.postingSlots.replaceSubrange(postingStart..<postingStart + replaced.count, with: replaced)
        cases.append(("postings naming a row without the tag", parts))

        for (what, parts) in cases {
            #expect(throws: ListIndex.InconsistentParts.self, "\(what)") { try build(parts) }
        }
    }

    @Test func xxh64MatchesItsPublishedVectors() {
        func hash(_ text: String) -> UInt64 { Array(text.utf8).withUnsafeBytes { XXH64.hash($0) } }
        #expect(hash("") == 0xEF46_DB37_51D8_E999)
        #expect(hash("a") == 0xD24E_C4F1_A98C_6E5B)
        #expect(hash("abc") == 0x44BC_2CF5_AD77_0999)
        #expect(hash("The quick brown fox jumps over the lazy dog") == 0x0B24_2D36_1FDA_71BC)
    }
}

/// The POSIX file system, counting the bytes read from each path, and calling `onOpenForReading`
/// before each file is opened for reading.
final class ReadCountingFileSystem: JournalFileSystem {
    private let base = PosixFileSystem()
    private let counts = Mutex<[String: Int]>([:])
    private let onOpenForReading: @Sendable (String) -> Void

    init(onOpenForReading: @escaping @Sendable (String) -> Void = { _ in }) {
        self.onOpenForReading = onOpenForReading
    }

    func bytesRead(of path: String) -> Int { counts.withLock { $0[path, default: 0] } }

    func read(_ file: JournalFileHandle, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = try base.read(file, into: buffer)
        counts.withLock { $0[file.path, default: 0] += count }
        return count
    }

    func seek(_ file: JournalFileHandle, toOffset offset: Int) throws { try base.seek(file, toOffset: offset) }
    func createDirectory(atPath path: String) throws { try base.createDirectory(atPath: path) }
    func fileExists(atPath path: String) -> Bool { base.fileExists(atPath: path) }
    func openForReading(atPath path: String) throws -> JournalFileHandle? {
        onOpenForReading(path)
        return try base.openForReading(atPath: path)
    }
    func openForAppending(atPath path: String, truncating: Bool) throws -> JournalFileHandle { try base.openForAppending(atPath: path, truncating: truncating) }
    func write(_ bytes: UnsafeRawBufferPointer, to file: JournalFileHandle) throws { try base.write(bytes, to: file) }
    func synchronize(_ file: JournalFileHandle) throws { try base.synchronize(file) }
    func truncate(_ file: JournalFileHandle, toLength length: Int) throws { try base.truncate(file, toLength: length) }
    func close(_ file: JournalFileHandle) throws { try base.close(file) }
    func rename(atPath source: String, toPath destination: String) throws { try base.rename(atPath: source, toPath: destination) }
    func linkItem(atPath source: String, toPath destination: String) throws { try base.linkItem(atPath: source, toPath: destination) }
    func synchronizeDirectory(atPath path: String) throws { try base.synchronizeDirectory(atPath: path) }
    func removeItem(atPath path: String) throws { try base.removeItem(atPath: path) }
    func lockExclusively(atPath path: String) throws -> JournalFileHandle { try base.lockExclusively(atPath: path) }
}
