@_spi(Testing) @testable import BookmarkIndex
import BookmarkJSON
import BookmarkIndexTesting
import Foundation
import Synchronization
import Testing

/// A fresh directory under the system's temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("BookmarkIndexTests-\(UUID().uuidString)", isDirectory: true)
    }

    var journalPath: String { url.path + "/" + JournalStorage.journalFileName }

    func journalBytes() -> [UInt8] {
        (try? PosixFileSystem().contents(atPath: journalPath)) ?? []
    }

    /// The journal without the room an open journal keeps after its last line for durable
    /// appends (trailing spaces, which no line ends with): its lines, and any torn bytes.
    func journalLines() -> [UInt8] {
        var bytes = journalBytes()
        while bytes.last == UInt8(ascii: " ") { bytes.removeLast() }
        return bytes
    }

    /// The size and checksum of the journal's lines (``journalLines()``): compared instead of
    /// the bytes, so a failure prints a line.
    func journalFingerprint() -> String {
        fingerprint(journalLines())
    }

    func writeJournal(_ bytes: [UInt8]) {
        _ = FileManager.default.createFile(atPath: journalPath, contents: Data(bytes))
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Everything a state holds, comparable with `==`.
struct StateDump: Equatable, CustomStringConvertible {
    var publicRows: [IndexedBookmark]
    var privateRows: [IndexedBookmark]
    var metadata: [BookmarkIndexMetadata]

    init(_ state: BookmarkIndexState) {
        publicRows = state.allBookmarks(in: .public)
        privateRows = state.allBookmarks(in: .private)
        metadata = Restrict.allCases.map(state.metadata(for:))
    }

    var description: String {
        "public \(publicRows.map(\.illust.id)), private \(privateRows.map(\.illust.id))"
    }
}

/// Options for a store's concurrency tests: automatic compaction above `bytes`, no checkpoint,
/// a pool of its own with two threads (one can be held while the other works).
func storeOptions(_ fileSystem: any JournalFileSystem, compactAbove bytes: Int = 1 << 20) -> JournalStorage.Options {
    var options = journalOptions(fileSystem: fileSystem)
    options.compactionMinimumBytes = bytes
    options.checkpointMinimumBytes = .max
    options.ioPool = IOThreadPool(threads: 2)
    return options
}

/// Options for tests: no fsync cost unless asked, a fixed clock.
func journalOptions(
    durability: JournalStorage.Options.Durability = .always,
    fileSystem: any JournalFileSystem = PosixFileSystem(),
    salvage: Bool = false
) -> JournalStorage.Options {
    var options = JournalStorage.Options()
    options.durability = durability
    options.fileSystem = fileSystem
    options.salvage = salvage
    options.now = { Date(timeIntervalSince1970: 1_780_000_000) }
    return options
}

/// A batch of `count` generated rows starting at illust `first`.
func generatedBatch(first: Int, count: Int, restrict: Restrict = .public, order: Int64 = 0) -> [BookmarkChange] {
    (0..<count).map { index in
        .upsert(row(first + index, restrict, tags: ["tag\((first + index) % 7)", "オリジナル=original"], order: order - Int64(index), title: "作品 \"\(first + index)\" \\ 🌸"))
    }
}

/// The byte offsets at which each line of `bytes` starts.
func lineStarts(_ bytes: [UInt8]) -> [Int] {
    var starts = [0]
    for (index, byte) in bytes.enumerated() where byte == 0x0A && index + 1 < bytes.count {
        starts.append(index + 1)
    }
    return starts
}

/// Size and CRC-32C of `bytes`, for comparisons whose failure message should stay short.
func fingerprint(_ bytes: [UInt8]) -> String {
    "\(bytes.count) bytes, crc \(bytes.withUnsafeBytes { CRC32C.checksum($0) })"
}

// MARK: The asynchronous storage API

/// Thrown by ``journalReport()`` when a health report has no journal part.
struct NotAJournal: Error, CustomStringConvertible {
    var storage: String
    var description: String { "\(storage) has no journal report" }
}

extension StorageHealth {
    /// The journal's own report; throws when the storage is not a journal.
    func journalReport() throws -> JournalHealthReport {
        guard let journal else { throw NotAJournal(storage: storage) }
        return journal
    }
}

extension JournalStorage {
    /// The journal read back from disk, with what its open repaired (`health().journal`).
    func journalReport() async throws -> JournalHealthReport {
        try await health().journalReport()
    }
}

extension BookmarksIndexStore {
    /// The store's journal read back from disk, with what its open repaired (`health().journal`).
    func journalReport() async throws -> JournalHealthReport {
        try await health().journalReport()
    }
}

/// Opens the journal in `directory`, runs `body` on it and closes it, whether `body` throws or not.
func withJournal<Result>(
    in directory: TemporaryDirectory,
    options: JournalStorage.Options = journalOptions(),
    _ body: (JournalStorage) async throws -> Result
) async throws -> Result {
    let journal = try await JournalStorage.open(directory: directory.url, options: options)
    let result: Result
    do {
        result = try await body(journal)
    } catch {
        try? await journal.close()
        throw error
    }
    try await journal.close()
    return result
}

/// A journal that counts the compactions a store begins on it, forwarding everything else: with
/// ``CompactionWatch``, a test waits for the compactions its writes started in the background.
final class CompactionCounter: CompactableStorage {
    let journal: JournalStorage
    private let begun = Mutex(0)

    init(_ journal: JournalStorage) {
        self.journal = journal
    }

    /// How many compactions have begun (``beginCompaction(to:)`` returned).
    var compactionsBegun: Int { begun.withLock { $0 } }

    func load() async throws -> BookmarkIndexState { try await journal.load() }
    func append(_ changes: [BookmarkChange]) async throws { try await journal.append(changes) }
    func reset() async throws { try await journal.reset() }
    func close() async throws { try await journal.close() }
    func health() async throws -> StorageHealth { try await journal.health() }
    var isCompactionDue: Bool { journal.isCompactionDue }

    func beginCompaction(to state: BookmarkIndexState) async throws -> @Sendable () async throws -> Void {
        let work = try await journal.beginCompaction(to: state)
        begun.withLock { $0 += 1 }
        return work
    }
}

/// A store's events, read in order, to wait for the compactions it runs in the background.
/// Subscribe before the writes whose compactions are waited for.
struct CompactionWatch {
    struct StreamEnded: Error {}

    private var events: AsyncStream<StoreEvent>.AsyncIterator
    /// The compactions that finished.
    private(set) var finished = 0
    /// The failures reported, of compactions that ran and of ones that could not begin, with
    /// the batches the store waits before its next automatic try.
    private(set) var failures: [(error: BookmarkIndexError, retryAfterBatches: Int)] = []

    init(_ store: BookmarksIndexStore) async {
        events = await store.events().makeAsyncIterator()
    }

    /// The compactions that ended, finished or failed.
    var ended: Int { finished + failures.count }

    /// Reads events until `count` compactions have ended.
    mutating func waitUntilEnded(_ count: Int) async throws {
        while ended < count {
            guard let event = await events.next() else { throw StreamEnded() }
            switch event {
            case .compactionStarted:
                break
            case .compactionFinished:
                finished += 1
            case .compactionFailed(let error, let retryAfterBatches):
                failures.append((error, retryAfterBatches))
            }
        }
    }
}

/// The POSIX file system, counting the bytes read from each path, and calling `onOpenForReading`
/// before each file is opened for reading, `beforeSynchronize` before each fsync or fdatasync and
/// `beforeRead` before each read.
final class ReadCountingFileSystem: JournalFileSystem {
    private let base = PosixFileSystem()
    private let counts = Mutex<[String: Int]>([:])
    private let onOpenForReading: @Sendable (String) -> Void
    private let beforeSynchronize: @Sendable (JournalFileHandle) -> Void
    private let beforeRead: @Sendable (JournalFileHandle) -> Void

    init(
        onOpenForReading: @escaping @Sendable (String) -> Void = { _ in },
        beforeSynchronize: @escaping @Sendable (JournalFileHandle) -> Void = { _ in },
        beforeRead: @escaping @Sendable (JournalFileHandle) -> Void = { _ in }
    ) {
        self.onOpenForReading = onOpenForReading
        self.beforeSynchronize = beforeSynchronize
        self.beforeRead = beforeRead
    }

    func bytesRead(of path: String) -> Int { counts.withLock { $0[path, default: 0] } }

    func read(_ file: JournalFileHandle, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        beforeRead(file)
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
    func openForWriting(atPath path: String) throws -> JournalFileHandle { try base.openForWriting(atPath: path) }
    func write(_ bytes: UnsafeRawBufferPointer, to file: JournalFileHandle) throws { try base.write(bytes, to: file) }
    func write(_ bytes: UnsafeRawBufferPointer, to file: JournalFileHandle, at offset: Int) throws { try base.write(bytes, to: file, at: offset) }
    func synchronize(_ file: JournalFileHandle) throws {
        beforeSynchronize(file)
        try base.synchronize(file)
    }
    func synchronizeData(_ file: JournalFileHandle) throws {
        beforeSynchronize(file)
        try base.synchronizeData(file)
    }
    func truncate(_ file: JournalFileHandle, toLength length: Int) throws { try base.truncate(file, toLength: length) }
    func close(_ file: JournalFileHandle) throws { try base.close(file) }
    func rename(atPath source: String, toPath destination: String) throws { try base.rename(atPath: source, toPath: destination) }
    func linkItem(atPath source: String, toPath destination: String) throws { try base.linkItem(atPath: source, toPath: destination) }
    func synchronizeDirectory(atPath path: String) throws { try base.synchronizeDirectory(atPath: path) }
    func removeItem(atPath path: String) throws { try base.removeItem(atPath: path) }
    func lockExclusively(atPath path: String) throws -> JournalFileHandle { try base.lockExclusively(atPath: path) }
}

extension Trait where Self == TimeLimitTrait {
    /// The time limit of a suite whose tests could hang (a lost wake-up, a deadlock): a bound a
    /// hang crosses, not a speed test. Swift Testing starts every test of the run at once, and
    /// on two cores a quick test's wall time includes its wait for threads among hundreds of
    /// others: the screen suites' tests passed after 60–65 s in whole runs and, under a minute's
    /// limit, failed once.
    static var hangLimit: Self { .timeLimit(.minutes(3)) }
}
