@_spi(Testing) @testable import BookmarkIndex
import BookmarkJSON
@_spi(Testing) import BookmarkIndexTesting
import Foundation
import Testing

/// A journal is read in groups of blocks that the pool's threads decode while the reading thread
/// replays the group before (and frees the one before that on a pool thread): a journal of
/// several groups, with lines across every block boundary and one line longer than a block,
/// replays to the same state whatever the pool's size.
///
/// The scanner reads a block of up to 1 MiB with one read and takes what the read returns as
/// the block; these tests read through a file system whose reads return at most 64 KiB, so a
/// journal of a few hundred kilobytes spans several groups (a journal of megabytes cost seconds
/// to decode in a debug build).
@Suite("Journal scanner")
struct JournalScannerTests {
    /// The most a read returns here: the size of every block but a file's last.
    static let blockSize = 64 * 1024

    static func options(threads: Int) -> JournalStorage.Options {
        var options = journalOptions(durability: .none, fileSystem: FaultInjectingFileSystem(maximumRead: blockSize))
        options.checkpointMinimumBytes = .max
        options.compactionMinimumBytes = .max
        options.ioPool = IOThreadPool(threads: threads)
        return options
    }

    /// 20 batches of 30 rows, one batch of 300 (a line of more than a block), 8 batches of 30
    /// more: over 256 KiB, so at least three groups.
    static let batches: [[BookmarkChange]] = {
        var batches = (0..<20).map { generatedBatch(first: 1 + $0 * 30, count: 30, order: 100_000 - Int64($0 * 30)) }
        batches.append(generatedBatch(first: 10_001, count: 300, restrict: .private, order: 50_000))
        batches += (0..<8).map { generatedBatch(first: 20_001 + $0 * 30, count: 30, order: 40_000 - Int64($0 * 30)) }
        return batches
    }()

    static let expected: BookmarkIndexState = {
        var state = BookmarkIndexState()
        for batch in batches { state.apply(batch) }
        return state
    }()

    /// The journal of ``batches``, written once through `JournalStorage` and copied into each
    /// test's directory (writing it is most of what a case costs in a debug build).
    static let journal = Task {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = journalOptions(durability: .none)
        options.checkpointMinimumBytes = .max
        options.compactionMinimumBytes = .max
        let journal = try await JournalStorage.open(directory: directory.url, options: options)
        for batch in batches { try await journal.append(batch) }
        try await journal.close()
        return directory.journalBytes()
    }

    func writeJournal(in directory: TemporaryDirectory) async throws {
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        directory.writeJournal(try await Self.journal.value)
    }

    @Test(arguments: [1, 2, 3])
    func aJournalOfSeveralGroupsReplaysWhole(threads: Int) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await writeJournal(in: directory)
        let bytes = directory.journalBytes()
        #expect(bytes.count > 4 * Self.blockSize, "\(bytes.count) bytes")
        let longest = zip(lineStarts(bytes), lineStarts(bytes).dropFirst()).map { $1 - $0 }.max() ?? 0
        #expect(longest > Self.blockSize, "a line longer than a block: \(longest) bytes")

        let options = Self.options(threads: threads)
        let journal = try await JournalStorage.open(directory: directory.url, options: options)
        #expect(StateDump(try await journal.load()) == StateDump(Self.expected))
        let reads = try #require(options.fileSystem as? FaultInjectingFileSystem).nonEmptyReads
        #expect(reads >= (bytes.count + Self.blockSize - 1) / Self.blockSize, "a block a read: \(reads) reads, at least three groups of two")
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

        let options = Self.options(threads: threads)
        let health = try await JournalStorage.verify(directory: directory.url, fileSystem: options.fileSystem, pool: options.ioPool)
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
        while writer.count < 3 * Self.blockSize {
            sequence += 1
            starts.append(writer.count)
            JournalCodec.appendBatch(sequence: sequence, generatedBatch(first: sequence * 40, count: 40), to: &writer)
        }
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        directory.writeJournal(writer.bytes)
        // The line across the first block's end, and a limit past that end, inside the line.
        let cut = try #require(starts.lastIndex { $0 < Self.blockSize })
        let limit = Self.blockSize + (starts[cut + 1] - Self.blockSize) / 2
        let fileSystem = FaultInjectingFileSystem(maximumRead: Self.blockSize)
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
