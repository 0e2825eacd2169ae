import Foundation

// When the journal has grown past its threshold but holds little that a compaction would drop
// (a first sync, an import: every line a new bookmark), rewriting it would write the same rows
// again. A checkpoint of the index as it is serves the next open just as well, and the journal
// is left as it is.

extension JournalStorage {
    /// Whether a compaction that is due would do no better than a checkpoint of `state`, the
    /// result of every batch acknowledged so far: a checkpoint written now would name this
    /// journal and be kept (``Options/checkpointMinimumBytes``), and
    /// - the journal's lines hold fewer than a third more records than `state` has rows (a
    ///   compaction would drop less than a quarter of them, every superseded row, removal, list
    ///   reset and metadata change counted as one; the lines of a file as it was opened are
    ///   taken to hold its rows once), and
    /// - the journal is less than half as long again as its rows would take at the bytes a
    ///   record took in the lines appended since it was opened or compacted (what catches a
    ///   file opened with much superseded in it).
    ///
    /// Takes no lock.
    func prefersCheckpoint(over state: BookmarkIndexState) -> Bool {
        guard canCheckpoint.load(ordering: .relaxed) else { return false }
        let rows = state.rowCount
        guard 4 * rows > 3 * fileRecords.load(ordering: .relaxed) else { return false }
        let perRecord = bytesPerAppendedRecord.load(ordering: .relaxed)
        return perRecord == 0 || 2 * fileLength.load(ordering: .relaxed) < 3 * rows * perRecord
    }

    /// Starts a checkpoint of `state` (every batch acknowledged so far) in place of a due
    /// compaction: the journal's growth is measured from its length now, as after a compaction,
    /// and the work returned writes the checkpoint of the journal as it is now on the pool,
    /// while appends go on (the lines it covers never change: the journal is append-only
    /// between compactions). A checkpoint is a cache: the work reports no failure, which costs
    /// the next open time, nothing else.
    ///
    /// - Throws: ``BookmarkIndexError/Code/closed`` or the failure that stopped the journal;
    ///   ``BookmarkIndexError/Code/invalidArgument`` when a compaction runs or the journal's
    ///   header has no `id` for a checkpoint to name; `CancellationError` when the calling task
    ///   is cancelled before it begins (nothing began).
    func beginCheckpoint(of state: BookmarkIndexState) async throws -> @Sendable () async -> Void {
        let coverage = try await lane.run { try self.markCheckpoint() }
        return {
            _ = try? await self.options.ioPool.runEvenIfCancelled {
                CheckpointPolicy.refreshCheckpoint(state, coverage: coverage, directory: self.directory, options: self.options)
            }
        }
    }

    /// Holding the writer: the coverage of the journal as it is, from which its growth is now
    /// measured. Blocks (on the writer's lock).
    func markCheckpoint() throws -> IndexCheckpoint.Coverage {
        try writer.withLock { writer in
            defer { noteLength(writer) }
            try writer.checkWritable()
            guard writer.carried == nil else {
                throw BookmarkIndexError(.invalidArgument, "Cannot checkpoint \(journalPath) while a compaction of it runs.")
            }
            guard let coverage = writer.checkpointCoverage(schemaVersion: options.migrations.currentVersion) else {
                throw BookmarkIndexError(.invalidArgument, "The journal \(journalPath) has a header without an id; only a compaction can give it a checkpoint.")
            }
            writer.lengthAfterCompaction = writer.length
            return coverage
        }
    }
}
