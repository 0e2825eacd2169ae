import Foundation
import Synchronization

/// The default storage: a directory holding an append-only JSON-lines journal.
///
/// - **Format**: a header line, then one line per committed batch, each with a sequence number
///   and a CRC-32C; see the "Journal format" article.
/// - **Durability**: one `write` per batch, then `fdatasync` (``Options/Durability/always``, the
///   default) or not (``Options/Durability/none``); a durable line is written over room made
///   ahead, spaces past the last line fsynced 256 KiB at a time, which ``close()`` cuts off.
///   When `append` returns, the batch is on disk; when a write or sync fails, the file is cut back to its last good length and the error is
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
/// - **Checkpoint**: for journals of at least ``Options/checkpointMinimumBytes``, compaction
///   also writes `index.snapshot`, the in-memory index as raw arrays; open reads it and replays
///   only the lines after it, and ignores one that is damaged or of another journal. It is a
///   cache: the journal stays the only record.
/// - **One writer**: an advisory lock on `LOCK` in the directory; a second open, from this
///   process or another, throws ``BookmarkIndexError/Code/locked``. Any number of readers
///   (``JournalReader``) read beside it.
/// - **Migrations**: a journal of an older schema is migrated on open (see the "Journal format"
///   article).
///
/// - **Threads**: every file call runs on ``Options/ioPool``, never on the calling task's
///   thread. The calls that take the journal's writer (append, reset, close, the start and the
///   switch of a compaction, the first moment of ``health()``) go through a lane of the
///   journal's own, one at a time in the order they came: they occupy at most one of the pool's
///   threads, and wait in the lane, holding none, while another runs; so a journal stuck in a
///   slow `fsync` never keeps the other journals of a shared pool waiting. A compaction's long
///   part (writing the new file) runs beside appends, which it carries into the new file.
/// - **Cancellation**: a call whose task is cancelled before its file work starts is refused
///   with `CancellationError` and changes nothing; once started, the work runs to the end.
///   ``close()`` and the work ``beginCompaction(to:)`` hands back run even for a cancelled
///   task.
public final class JournalStorage: CompactableStorage {
    /// The journal's file name inside the store directory.
    public static let journalFileName = "journal.jsonl"
    /// The checkpoint's file name inside the store directory: a cache of the journal's
    /// first lines that open reads instead of replaying them (see the "Journal format" article).
    /// Deleting it loses nothing; the next open reads the journal whole. The file is named
    /// `index.snapshot`, as it was before the checkpoint had its name.
    public static let checkpointFileName = IndexCheckpoint.fileName
    static let temporaryFileName = "journal.jsonl.tmp"
    static let lockFileName = "LOCK"
    /// Upsert changes per line when compaction writes the live state.
    static let rowsPerCompactedLine = 1_000

    /// The store directory.
    public let directory: String
    /// What opening the journal found and repaired.
    public let recovery: JournalRecoveryReport

    let options: Options
    /// The open file and its bookkeeping. Held across a write, an fsync or a compaction's
    /// switch, so taken only on ``Options/ioPool``'s threads, never on the cooperative pool, and
    /// only in ``lane`` (or at open and deinit, when nothing else can have the journal), so no
    /// pool thread ever waits for it.
    let writer: Mutex<JournalWriter>
    /// The journal's serial lane onto ``Options/ioPool``: every job that takes ``writer``.
    let lane: IOThreadPool.Lane
    /// Whether the journal has outgrown its threshold: set by whoever holds ``writer`` after a
    /// change of length, read without it (``isCompactionDue`` must not wait for an fsync).
    let compactionDue = Atomic<Bool>(false)
    /// The records the journal's lines hold (``JournalWriter/records``), its length, the bytes a
    /// record took in the lines appended lately (0 before any), and whether a checkpoint written
    /// now would name the journal and be kept: set and read as ``compactionDue`` is, for
    /// ``prefersCheckpoint(over:)``.
    let fileRecords = Atomic<Int>(0)
    let fileLength = Atomic<Int>(0)
    let bytesPerAppendedRecord = Atomic<Int>(0)
    let canCheckpoint = Atomic<Bool>(false)
    var fileSystem: any JournalFileSystem { options.fileSystem }
    var journalPath: String { directory + "/" + Self.journalFileName }

    /// Opens (creating if needed) the journal in `directory`: takes the lock, reads and checks
    /// every line, repairs a torn tail, migrates an older schema. The work runs on
    /// `options.ioPool`; the calling task suspends meanwhile.
    ///
    /// - Throws: ``BookmarkIndexError`` — ``BookmarkIndexError/Code/locked``,
    ///   ``BookmarkIndexError/Code/corrupt``, ``BookmarkIndexError/Code/newerSchema``,
    ///   ``BookmarkIndexError/Code/migrationFailed`` or ``BookmarkIndexError/Code/io``; or
    ///   `CancellationError` when the calling task is cancelled before the open starts (nothing
    ///   is opened or changed).
    public static func open(directory: URL, options: Options = Options()) async throws -> JournalStorage {
        try await options.ioPool.run { try JournalStorage(opening: directory, options: options) }
    }

    /// Opens the journal on the calling thread, which blocks.
    init(opening directory: URL, options: Options) throws {
        self.directory = directory.path
        self.options = options
        lane = IOThreadPool.Lane(onto: options.ioPool)
        let fileSystem = options.fileSystem
        try fileSystem.createDirectory(atPath: self.directory)
        let lock = try fileSystem.lockExclusively(atPath: self.directory + "/" + Self.lockFileName)
        do {
            let opened = try Self.open(directory: self.directory, options: options)
            recovery = opened.recovery
            writer = Mutex(JournalWriter(
                file: opened.file, lock: lock, length: opened.length, nextSequence: opened.nextSequence,
                lengthAfterCompaction: opened.length, lastLineOffset: opened.lastLineOffset, journalID: opened.id,
                records: opened.state.rowCount, loadedState: opened.state, failure: nil, carried: nil,
                path: self.directory + "/" + Self.journalFileName, fileSystem: fileSystem, durability: options.durability
            ))
        } catch {
            try? fileSystem.close(lock)
            throw error
        }
        writer.withLock { noteLength($0) }
    }

    // MARK: BookmarkStorage

    /// Hands over the index read at open. A journal backs one store: a second call throws
    /// rather than return an empty index that the next compaction would write over the journal.
    public func load() async throws -> BookmarkIndexState {
        try loadNow()
    }

    /// ``load()``, which takes nothing but the writer's lock, free at open (nothing else can
    /// have the new storage yet).
    func loadNow() throws -> BookmarkIndexState {
        try writer.withLock { writer in
            try writer.checkWritable()
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

    /// Appends `changes` as one line, on the pool; durable (with ``Options/Durability/always``)
    /// when this returns, not on disk at all when it throws.
    ///
    /// - Throws: ``BookmarkIndexError/Code/invalidArgument`` when a date in `changes` is NaN or
    ///   infinite (nothing is written), `CancellationError` when the calling task is cancelled
    ///   before the write starts (nothing is written), or what writing throws.
    public func append(_ changes: [BookmarkChange]) async throws {
        try BookmarkChange.validate(changes)
        try await lane.run { try self.appendNow(changes) }
    }

    /// ``append(_:)`` on the calling thread, which blocks.
    func appendNow(_ changes: [BookmarkChange]) throws {
        try appendNow(contentsOf: CollectionOfOne(changes))
    }

    /// Appends `batches` as one line each, with one `write` and (durable) one sync for them
    /// all, on the pool, in one hand-over: all of them are on disk when this returns, none
    /// when it throws. What an import or a migration writes, many batches at once.
    ///
    /// - Throws: as ``append(_:)``, for all of them.
    public func append(contentsOf batches: [[BookmarkChange]]) async throws {
        for changes in batches { try BookmarkChange.validate(changes) }
        try await lane.run { try self.appendNow(contentsOf: batches) }
    }

    /// ``append(contentsOf:)`` on the calling thread, which blocks.
    func appendNow(contentsOf batches: some Collection<[BookmarkChange]>) throws {
        try writer.withLock { writer in
            defer { noteLength(writer) }
            try writer.append(contentsOf: batches)
        }
    }

    /// Updates ``compactionDue`` and the figures ``prefersCheckpoint(over:)`` reads from the
    /// writer; called holding it.
    func noteLength(_ writer: JournalWriter) {
        compactionDue.store(
            writer.isCompactionDue(minimumBytes: options.compactionMinimumBytes, growthFactor: options.compactionGrowthFactor),
            ordering: .relaxed
        )
        fileRecords.store(writer.records, ordering: .relaxed)
        fileLength.store(writer.length, ordering: .relaxed)
        bytesPerAppendedRecord.store(writer.appendedRecords == 0 ? 0 : writer.appendedBytes / writer.appendedRecords, ordering: .relaxed)
        canCheckpoint.store(writer.journalID != nil && writer.length >= options.checkpointMinimumBytes, ordering: .relaxed)
    }

    /// Deletes every bookmark: writes an empty journal in place of this one.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled before the reset starts
    ///   (the journal is unchanged), or what writing throws.
    public func reset() async throws {
        try await lane.run { try self.resetNow() }
    }

    /// Closes the journal and releases its lock, after the calls queued before it; also when
    /// the calling task is cancelled (a graceful shutdown closes from a cancelled task).
    public func close() async throws {
        try await lane.runEvenIfCancelled { try self.closeNow() }
    }

    func closeNow() throws {
        try writer.withLock { writer in
            defer { noteLength(writer) }
            try writer.close()
        }
    }

    deinit {
        writer.withLock { writer in try? writer.close() }
    }

    /// Reads the journal back from disk and reports its health, with what open repaired.
    ///
    /// It runs beside appends and compaction: it reads the file as it was when the call began
    /// (through a handle opened then, in the journal's lane, to the length acknowledged then: a
    /// compaction's rename or a later append cannot change what it reads), and holds no lock
    /// and no place in the lane while it reads.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled before the reading
    ///   starts, or what reading throws.
    public func health() async throws -> StorageHealth {
        let (file, acknowledged) = try await lane.run {
            try self.writer.withLock { writer in
                (try self.fileSystem.openForReading(atPath: self.journalPath), writer.length)
            }
        }
        do {
            return try await options.ioPool.run {
                defer { if let file { try? self.fileSystem.close(file) } }
                var report = try Self.verifyNow(directory: self.directory, options: self.options, limit: acknowledged, opened: file)
                report.recovery = self.recovery
                return StorageHealth(report)
            }
        } catch is CancellationError {
            // Refused before it read: the handle it would have closed is closed here.
            if let file { _ = try? await options.ioPool.runEvenIfCancelled { try self.fileSystem.close(file) } }
            throw CancellationError()
        }
    }
}
