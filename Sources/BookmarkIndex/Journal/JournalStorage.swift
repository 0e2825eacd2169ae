import Foundation
import Synchronization

/// The default storage: a directory holding an append-only JSON-lines journal.
///
/// - **Format**: a header line, then one line per committed batch, each with a sequence number
///   and a CRC-32C; see the "Journal format" article.
/// - **Durability**: one `write` per batch, then `fsync` (``Options/Durability/always``, the
///   default) or not (``Options/Durability/none``). When `append` returns, the batch is on disk;
///   when a write or fsync fails, the file is cut back to its last good length and the error is
///   reported, so what was acknowledged is on disk and what failed is not.
/// - **Recovery**: a torn or checksum-failing *last* line is a crash mid-write: open cuts it off
///   and says so in ``recovery``. A bad line anywhere else, or a gap in the sequence numbers, is
///   corruption: open throws ``BookmarkIndexError/Code/corrupt`` naming the line and byte offset,
///   unless ``Options/salvage`` is set, which keeps every valid batch and moves the damaged file
///   aside.
/// - **Compaction**: the live state is written to a temporary file, fsynced, renamed over the
///   journal, and the directory fsynced; a crash at any step leaves the complete old or the
///   complete new journal. Automatic once the journal outgrows its threshold; on demand through
///   ``BookmarksIndexStore/compact()``.
/// - **Index snapshot**: for journals of at least ``Options/snapshotMinimumBytes``, compaction
///   also writes `index.snapshot`, the in-memory index as raw arrays; open reads it and replays
///   only the lines after it, and ignores one that is damaged or of another journal. It is a
///   cache: the journal stays the only record.
/// - **One writer**: an advisory lock on `LOCK` in the directory; a second open, from this
///   process or another, throws ``BookmarkIndexError/Code/locked``.
/// - **Migrations**: see ``JournalMigrationPlan``.
///
/// Thread-safety: all methods may be called from any thread; they are serialized internally.
public final class JournalStorage: BookmarkStorage {
    /// How a journal is opened and written.
    public struct Options: Sendable {
        /// When a batch counts as written.
        public enum Durability: Sendable, Hashable {
            /// After `fsync`: the batch survives a crash or power loss.
            case always
            /// After `write`: the batch survives a crash of the process, not of the machine.
            case none
        }

        /// When a batch counts as written. Defaults to ``Durability/always``.
        public var durability: Durability = .always
        /// Open a journal damaged in the middle by keeping every valid batch and keeping the
        /// damaged file as `journal.jsonl.damaged-<time>`, instead of refusing to open.
        public var salvage = false
        /// The journal is compacted automatically once it is larger than this many bytes ...
        public var compactionMinimumBytes = 1 << 20
        /// ... and than this factor times its size after the last compaction (or at open).
        public var compactionGrowthFactor = 2.0
        /// A journal at least this many bytes long gets an index snapshot when it is written
        /// whole (compaction, migration, salvage), or opened without a usable one or with more
        /// lines after it than this and a quarter of what it covers, so that the next open reads
        /// the snapshot instead of replaying the lines it covers. `Int.max` turns snapshots off.
        public var snapshotMinimumBytes = 1 << 20
        /// The schema migrations to apply to an older journal.
        public var migrations = JournalMigrationPlan.production
        /// Open to read only: no lock is taken and nothing is written, so a tool can read a
        /// store another process is syncing. A torn tail is ignored rather than cut off, an
        /// older schema is migrated in memory only, and every write throws
        /// ``BookmarkIndexError/Code/invalidArgument``.
        public var readOnly = false
        /// The file system; tests substitute one that injects faults.
        public var fileSystem: any JournalFileSystem = PosixFileSystem()
        /// The wall clock, for the header's dates.
        public var now: @Sendable () -> Date = { Date() }

        /// The default options.
        public init() {}
    }

    /// The journal's file name inside the store directory.
    public static let journalFileName = "journal.jsonl"
    /// The index snapshot's file name inside the store directory: a cache of the journal's
    /// first lines that open reads instead of replaying them (see the "Journal format" article).
    /// Deleting it loses nothing; the next open reads the journal whole.
    public static let snapshotFileName = IndexSnapshot.fileName
    static let temporaryFileName = "journal.jsonl.tmp"
    static let lockFileName = "LOCK"
    /// Upsert changes per line when compaction writes the live state.
    static let rowsPerCompactedLine = 1_000

    /// The store directory.
    public let directory: String
    /// What opening the journal found and repaired.
    public let recovery: JournalRecoveryReport

    struct Writer {
        var file: JournalFileHandle?
        var lock: JournalFileHandle?
        var length: Int
        var nextSequence: Int
        var lengthAfterCompaction: Int
        /// The state read at open, handed over once by `load()`.
        var loadedState: BookmarkIndexState?
        /// Set when the journal's file is in a state this object can no longer vouch for.
        var failure: BookmarkIndexError?
    }

    let options: Options
    private let writer: Mutex<Writer>
    var fileSystem: any JournalFileSystem { options.fileSystem }
    var journalPath: String { directory + "/" + Self.journalFileName }

    /// Opens (creating if needed) the journal in `directory`: takes the lock, reads and checks
    /// every line, repairs a torn tail, migrates an older schema.
    ///
    /// - Throws: ``BookmarkIndexError`` — ``BookmarkIndexError/Code/locked``,
    ///   ``BookmarkIndexError/Code/corrupt``, ``BookmarkIndexError/Code/newerSchema``,
    ///   ``BookmarkIndexError/Code/migrationFailed`` or ``BookmarkIndexError/Code/io``.
    public init(directory: URL, options: Options = Options()) throws {
        self.directory = directory.path
        self.options = options
        let fileSystem = options.fileSystem
        if options.readOnly {
            let opened = try Self.open(directory: self.directory, options: options)
            recovery = opened.recovery
            writer = Mutex(Writer(
                file: nil, lock: nil, length: opened.length, nextSequence: opened.nextSequence,
                lengthAfterCompaction: opened.length, loadedState: opened.state,
                failure: BookmarkIndexError(.invalidArgument, "The journal in \(directory.path) was opened read-only.")
            ))
            return
        }
        try fileSystem.createDirectory(atPath: self.directory)
        let lock = try fileSystem.lockExclusively(atPath: self.directory + "/" + Self.lockFileName)
        do {
            let opened = try Self.open(directory: self.directory, options: options)
            recovery = opened.recovery
            writer = Mutex(Writer(
                file: opened.file, lock: lock, length: opened.length, nextSequence: opened.nextSequence,
                lengthAfterCompaction: opened.length, loadedState: opened.state, failure: nil
            ))
        } catch {
            try? fileSystem.close(lock)
            throw error
        }
    }

    // MARK: BookmarkStorage

    /// Hands over the index read at open. A journal backs one store: a second call throws
    /// rather than return an empty index that the next compaction would write over the journal.
    public func load() throws -> BookmarkIndexState {
        try writer.withLock { writer in
            if !options.readOnly { try check(writer) }
            guard let state = writer.loadedState else {
                throw BookmarkIndexError(
                    .invalidArgument,
                    "The journal \(journalPath) has already been loaded by a store; open a new JournalStorage for another store."
                )
            }
            writer.loadedState = nil
            return state
        }
    }

    public func append(_ changes: [BookmarkChange]) throws {
        try writer.withLock { writer in
            try check(writer)
            guard let file = writer.file else { throw closedError() }
            var line = JSONWriter(capacity: 512 * changes.count)
            JournalCodec.appendBatch(sequence: writer.nextSequence, changes, to: &line)
            do {
                try line.bytes.withUnsafeBytes { try fileSystem.write($0, to: file) }
                if options.durability == .always { try fileSystem.synchronize(file) }
            } catch {
                // Cut the file back so that what failed is not on disk; if even that fails, the
                // file's end is unknown and this journal refuses further writes until reopened.
                do {
                    try fileSystem.truncate(file, toLength: writer.length)
                    if options.durability == .always { try fileSystem.synchronize(file) }
                } catch {
                    writer.failure = BookmarkIndexError(
                        .io, "The journal \(journalPath) could not be cut back after a failed write; reopen the store to recover it.",
                        underlying: error
                    )
                }
                throw BookmarkIndexError(
                    .io, "Could not append batch \(writer.nextSequence) to \(journalPath); it was not stored.",
                    underlying: error
                )
            }
            writer.length += line.bytes.count
            writer.nextSequence += 1
        }
    }

    public var wantsCompaction: Bool {
        writer.withLock { writer in
            writer.failure == nil && writer.file != nil
                && writer.length > max(options.compactionMinimumBytes, Int(Double(writer.lengthAfterCompaction) * options.compactionGrowthFactor))
        }
    }

    public func compact(_ state: BookmarkIndexState) throws {
        try writer.withLock { writer in
            try check(writer)
            guard writer.file != nil else { throw closedError() }
            try replaceJournal(with: state, writer: &writer)
        }
    }

    public func reset() throws {
        try compact(BookmarkIndexState())
    }

    public func close() throws {
        try writer.withLock { writer in
            // Close both, whatever happens to the first, so the lock is always released.
            let file = writer.file, lock = writer.lock
            writer.file = nil
            writer.lock = nil
            var failure: (any Error)?
            if let file { do { try fileSystem.close(file) } catch { failure = error } }
            if let lock { do { try fileSystem.close(lock) } catch { failure = failure ?? error } }
            if let failure { throw failure }
        }
    }

    deinit {
        writer.withLock { writer in
            if let file = writer.file { try? fileSystem.close(file) }
            if let lock = writer.lock { try? fileSystem.close(lock) }
        }
    }

    // MARK: Health

    /// Reads the journal back from disk and reports its health, with what open repaired.
    public func healthReport() throws -> JournalHealthReport {
        try writer.withLock { _ in
            var report = try Self.verify(directory: URL(fileURLWithPath: directory), fileSystem: fileSystem, migrations: options.migrations)
            report.recovery = recovery
            return report
        }
    }

    func check(_ writer: Writer) throws {
        if let failure = writer.failure { throw failure }
    }

    private func closedError() -> BookmarkIndexError {
        BookmarkIndexError(.closed, "The journal \(journalPath) is closed; open a new store to write.")
    }
}
