import BookmarkJSON
import Foundation

// Compaction in the background: the new file is written beside the journal while appends go
// on; the batches appended meanwhile are carried into it before it replaces the journal. And
// reset, which replaces the journal by an empty one at once.

extension JournalStorage {
    /// A compacted journal written to the temporary file, not yet in place.
    struct PendingJournal {
        var file: JournalFileHandle
        var installed: WholeFileWriter.Installed
        /// The rows written in it.
        var records: Int
    }

    /// Whether the journal has outgrown its threshold (and no compaction runs). Takes no lock.
    public var isCompactionDue: Bool {
        compactionDue.load(ordering: .relaxed)
    }

    /// Starts a compaction to `state` (every batch acknowledged so far): from now on, the
    /// batches appended are also kept to be carried into the new file. The work returned writes
    /// the new file on the pool while appends go on, then switches to it holding the writer
    /// for as long as the carried lines take to write and the rename and fsyncs.
    ///
    /// - Throws: ``BookmarkIndexError/Code/closed``, the failure that stopped the journal, or
    ///   ``BookmarkIndexError/Code/invalidArgument`` when a compaction already runs or `state`
    ///   holds a date that is NaN or infinite (which no store's write lets in); or
    ///   `CancellationError` when the calling task is cancelled before the compaction begins
    ///   (nothing began).
    ///
    /// The work must be run: until it has, every batch appended is also kept in memory, and
    /// ``reset()`` and another compaction are refused. It runs to the end even when the task
    /// that runs it is cancelled.
    public func beginCompaction(to state: BookmarkIndexState) async throws -> @Sendable () async throws -> Void {
        try state.validateDates()
        try await lane.run { try self.startCarrying() }
        return { try await self.compact(to: state) }
    }

    /// From now on, keeps each batch appended, for the compaction that begins. Blocks (on the
    /// writer's lock).
    func startCarrying() throws {
        try writer.withLock { writer in
            defer { noteLength(writer) }
            try writer.checkWritable()
            guard writer.carried == nil else { throw busyError("compact") }
            writer.carried = []
        }
    }

    /// Drops the batches kept for a compaction that failed before its switch. Blocks (on the
    /// writer's lock).
    func stopCarrying() {
        writer.withLock { writer in
            writer.carried = nil
            noteLength(writer)
        }
    }

    /// The work ``beginCompaction(to:)`` hands back: all of it on one thread of the pool, so
    /// that the checkpoint's encoding reuses the memory the journal's encoding freed (on another
    /// thread it would come from another malloc arena, fresh from the kernel). It runs even for
    /// a cancelled task: a compaction that has begun keeps every batch appended in memory
    /// until it ends.
    func compact(to state: BookmarkIndexState) async throws {
        try await options.ioPool.runEvenIfCancelled { try self.compactNow(to: state) }
    }

    /// ``compact(to:)`` on the calling thread, which blocks. Its long part runs outside the
    /// journal's lane, beside appends; the moments it takes the writer run in the lane, in turn
    /// with the appends queued before them.
    func compactNow(to state: BookmarkIndexState) throws {
        let pending: PendingJournal
        do {
            pending = try writeCompactedFile(state)
        } catch {
            _ = try? lane.runBlocking { self.stopCarrying() }
            throw error
        }
        let installed = try lane.runBlocking { try self.switchToCompactedFile(pending) }
        CheckpointPolicy.refreshCheckpoint(state, coverage: installed.coverage(schemaVersion: options.migrations.currentVersion), directory: directory, options: options)
    }

    /// Writes `state` as a complete journal to the temporary file and fsyncs it, leaving it open
    /// for the carried batches. The journal itself is not touched. Blocks.
    func writeCompactedFile(_ state: BookmarkIndexState) throws -> PendingJournal {
        do {
            let (file, installed) = try WholeFileWriter.writeTemporary(state, compacted: options.now(), directory: directory, options: options)
            return PendingJournal(file: file, installed: installed, records: state.rowCount)
        } catch {
            throw compactionFailure(error)
        }
    }

    /// Holding the writer: appends the batches written since the compaction began to the new
    /// file, fsyncs it, renames it over the journal, fsyncs the directory and reopens. Blocks.
    ///
    /// Until the rename, the old journal is complete (it has every batch acknowledged); after
    /// it, the new one is. A failure before it leaves the old journal in use.
    func switchToCompactedFile(_ pending: PendingJournal) throws -> WholeFileWriter.Installed {
        try writer.withLock { writer in
            defer { noteLength(writer) }
            let carried = writer.carried ?? []
            writer.carried = nil
            let installed = pending.installed
            let (lines, lastLineStart) = JournalWriter.linesMarkingLast(of: carried, from: installed.nextSequence)
            do {
                try writer.checkWritable()
                if !carried.isEmpty {
                    try lines.withUnsafeBytes { try fileSystem.write($0, to: pending.file) }
                    try fileSystem.synchronize(pending.file)
                }
            } catch {
                try? fileSystem.close(pending.file)
                try? fileSystem.removeItem(atPath: directory + "/" + Self.temporaryFileName)
                throw error as? BookmarkIndexError ?? compactionFailure(error)
            }
            do {
                try WholeFileWriter.install(pending.file, directory: directory, fileSystem: fileSystem)
            } catch {
                throw compactionFailure(error)
            }
            // The checkpoint covers the compacted part; the carried lines come after it.
            try writer.reopen(
                after: directory, length: installed.length + lines.count, compactedLength: installed.length,
                nextSequence: installed.nextSequence + carried.count,
                lastLineOffset: carried.isEmpty ? installed.lastLineOffset : installed.length + lastLineStart, id: installed.id,
                records: pending.records + carried.reduce(0) { $0 + $1.count }
            )
            return installed
        }
    }

    /// Replaces the journal by an empty one, holding the writer. Blocks.
    func resetNow() throws {
        try writer.withLock { writer in
            defer { noteLength(writer) }
            try writer.checkWritable()
            guard writer.carried == nil else { throw busyError("reset") }
            let installed: WholeFileWriter.Installed
            do {
                installed = try WholeFileWriter.installJournal(BookmarkIndexState(), compacted: options.now(), directory: directory, options: options)
            } catch {
                throw BookmarkIndexError(.io, "Could not reset \(journalPath); the journal is unchanged.", underlying: error)
            }
            try writer.reopen(
                after: directory, length: installed.length, compactedLength: installed.length, nextSequence: installed.nextSequence,
                lastLineOffset: installed.lastLineOffset, id: installed.id, records: 0
            )
            CheckpointPolicy.refreshCheckpoint(BookmarkIndexState(), coverage: installed.coverage(schemaVersion: options.migrations.currentVersion), directory: directory, options: options)
        }
    }

    /// A compaction that failed before its rename: the old journal is still the journal.
    private func compactionFailure(_ error: any Error) -> BookmarkIndexError {
        BookmarkIndexError(.io, "Could not compact \(journalPath); the journal is unchanged.", underlying: error)
    }

    private func busyError(_ what: String) -> BookmarkIndexError {
        BookmarkIndexError(.invalidArgument, "Cannot \(what) \(journalPath) while a compaction of it runs; wait for the compaction to finish.")
    }
}
