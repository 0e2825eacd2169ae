@_spi(Testing) @testable import BookmarkIndex
import BookmarkJSON
import Foundation
import Testing

/// A journal is read in groups of 1 MB blocks that the pool's threads decode while the reading
/// thread replays the group before (and frees the one before that on a pool thread): a journal
/// of several groups, with lines across every block boundary and one line longer than a block,
/// replays to the same state whatever the pool's size.
@Suite("Journal scanner")
struct JournalScannerTests {
    /// 220 batches of 30 rows, one batch of 4,000 (a line of more than a block), 60 batches of
    /// 30 more: over 4 MB, so at least three groups.
    static let batches: [[BookmarkChange]] = {
        var batches = (0..<220).map { generatedBatch(first: 1 + $0 * 30, count: 30, order: 100_000 - Int64($0 * 30)) }
        batches.append(generatedBatch(first: 10_001, count: 4_000, restrict: .private, order: 50_000))
        batches += (0..<60).map { generatedBatch(first: 20_001 + $0 * 30, count: 30, order: 40_000 - Int64($0 * 30)) }
        return batches
    }()

    static let expected: BookmarkIndexState = {
        var state = BookmarkIndexState()
        for batch in batches { state.apply(batch) }
        return state
    }()

    func writeJournal(in directory: TemporaryDirectory) async throws {
        var options = journalOptions(durability: .none)
        options.checkpointMinimumBytes = .max
        options.compactionMinimumBytes = .max
        let journal = try await JournalStorage.open(directory: directory.url, options: options)
        for batch in Self.batches { try await journal.append(batch) }
        try await journal.close()
    }

    @Test(arguments: [1, 2, 3])
    func aJournalOfSeveralGroupsReplaysWhole(threads: Int) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await writeJournal(in: directory)
        let bytes = directory.journalBytes()
        #expect(bytes.count > 4 * JournalScanner.blockSize, "\(bytes.count) bytes")
        let longest = zip(lineStarts(bytes), lineStarts(bytes).dropFirst()).map { $1 - $0 }.max() ?? 0
        #expect(longest > JournalScanner.blockSize, "a line longer than a block: \(longest) bytes")

        var options = journalOptions(durability: .none)
        options.checkpointMinimumBytes = .max
        options.ioPool = IOThreadPool(threads: threads)
        let journal = try await JournalStorage.open(directory: directory.url, options: options)
        #expect(StateDump(try await journal.load()) == StateDump(Self.expected))
        let report = try await journal.journalReport()
        #expect(report.batches == Self.batches.count && report.isHealthy)
        try await journal.close()
    }

    /// A last line cut short after several groups is found and cut off, whatever the pool.
    @Test(arguments: [1, 3])
    func aTornTailAfterSeveralGroupsIsCutOff(threads: Int) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await writeJournal(in: directory)
        let whole = directory.journalBytes()
        directory.writeJournal(whole + Array(#"{"seq":999,"changes":[{"op":"remo"#.utf8))

        var options = journalOptions(durability: .none)
        options.checkpointMinimumBytes = .max
        options.ioPool = IOThreadPool(threads: threads)
        let health = try await JournalStorage.verify(directory: directory.url, pool: options.ioPool)
        #expect(health.tornTail?.offset == whole.count)
        let journal = try await JournalStorage.open(directory: directory.url, options: options)
        #expect(StateDump(try await journal.load()) == StateDump(Self.expected))
        try await journal.close()
        #expect(directory.journalBytes() == whole, "cut back to its last whole line")
    }

    /// A limit inside a line that the first block cut short: the scan stops at the limit, as if
    /// the file ended there, with that line its torn tail.
    @Test func aLimitInsideALineCutByABlockIsWhereTheScanEnds() throws {
        var writer = JSONWriter()
        JournalCodec.appendHeader(.init(schemaVersion: BookmarkIndexMetadata.currentSchemaVersion, created: Date(timeIntervalSince1970: 0), compacted: nil, id: 1), to: &writer)
        var starts: [Int] = []
        var sequence = 0
        while writer.count < 3 * JournalScanner.blockSize {
            sequence += 1
            starts.append(writer.count)
            JournalCodec.appendBatch(sequence: sequence, generatedBatch(first: sequence * 40, count: 40), to: &writer)
        }
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        directory.writeJournal(writer.bytes)
        // The line across the first block's end, and a limit past that end, inside the line.
        let cut = try #require(starts.lastIndex { $0 < JournalScanner.blockSize })
        let limit = JournalScanner.blockSize + (starts[cut + 1] - JournalScanner.blockSize) / 2
        let fileSystem = PosixFileSystem()
        let file = try #require(try fileSystem.openForReading(atPath: directory.journalPath))
        defer { try? fileSystem.close(file) }
        var batches = 0
        let result = try JournalScanner.scan(file: file, fileSystem: fileSystem, pool: IOThreadPool(threads: 2), limit: limit) { event in
            if case .batch = event { batches += 1 }
        }
        #expect(result.length == limit)
        #expect(result.tornTail?.offset == starts[cut])
        #expect(batches == cut)
    }
}
