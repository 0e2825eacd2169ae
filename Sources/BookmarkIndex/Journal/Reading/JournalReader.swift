import Foundation

/// A journal opened only to read: no lock is taken and nothing is written, so a tool can read a
/// store that another process has open and is syncing.
///
/// It reads the journal as ``JournalStorage`` would (the checkpoint, then the lines after
/// it) and plans the same recovery, but carries none of it out: a torn last line is left in
/// place and ignored, an older schema is migrated in memory only, a damaged journal is refused
/// (or, with ``JournalStorage/Options/salvage``, read for every valid batch). A store opened on
/// it answers every query; every write throws ``BookmarkIndexError/Code/readOnly``.
///
/// ```swift
/// let store = try await BookmarksIndexStore(storage: JournalReader.open(directory: directory))
/// let tags = await store.tagHistogram(in: .public, limit: 20)
/// ```
public final class JournalReader: BookmarkStorage {
    /// The store directory.
    public let directory: String
    /// What reading the journal found, and what an open for writing would repair.
    public let recovery: JournalRecoveryReport

    private let state: BookmarkIndexState
    private let options: JournalStorage.Options

    /// Reads the journal in `directory` on `options.ioPool`. The options' durability and
    /// compaction settings do not apply.
    ///
    /// - Throws: ``BookmarkIndexError`` — ``BookmarkIndexError/Code/corrupt`` (unless
    ///   salvaging), ``BookmarkIndexError/Code/newerSchema``,
    ///   ``BookmarkIndexError/Code/migrationFailed`` or ``BookmarkIndexError/Code/io``; or
    ///   `CancellationError` when the calling task is cancelled before the reading starts.
    public static func open(directory: URL, options: JournalStorage.Options = JournalStorage.Options()) async throws -> JournalReader {
        try await options.ioPool.run { try JournalReader(reading: directory.path, options: options) }
    }

    private init(reading directory: String, options: JournalStorage.Options) throws {
        self.directory = directory
        self.options = options
        let reading = try JournalReading.read(directory: directory, options: options, usingCheckpoint: true)
        let plan = JournalRecoveryPlan(reading, options: options, writes: false) { $0 }
        if case .refuse(let error) = plan.action { throw error }
        state = plan.state
        recovery = plan.recovery
    }

    /// The index as read.
    public func load() async throws -> BookmarkIndexState {
        state
    }

    /// Throws ``BookmarkIndexError/Code/readOnly``.
    public func append(_ changes: [BookmarkChange]) async throws {
        throw readOnlyError()
    }

    /// Throws ``BookmarkIndexError/Code/readOnly``.
    public func reset() async throws {
        throw readOnlyError()
    }

    /// Does nothing: a reader holds no file open.
    public func close() async throws {}

    /// Reads the journal back from disk, as ``JournalStorage/verify(directory:pool:)``.
    /// Throws `CancellationError` when the calling task is cancelled before the reading starts.
    public func health() async throws -> StorageHealth {
        try await options.ioPool.run {
            var report = try JournalStorage.verifyNow(directory: self.directory, options: self.options)
            report.recovery = self.recovery
            return StorageHealth(report)
        }
    }

    private func readOnlyError() -> BookmarkIndexError {
        BookmarkIndexError(.readOnly, "The journal in \(directory) was opened only to read; open a JournalStorage to write.")
    }
}
