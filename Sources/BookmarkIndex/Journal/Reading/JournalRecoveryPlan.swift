import Foundation

/// What opening a journal does about what reading it found: a pure decision, made once, that
/// open carries out and `verify` reports (``JournalHealthReport/nextOpen``), so the two cannot
/// drift apart.
struct JournalRecoveryPlan {
    enum Action {
        /// Opening is refused, and nothing is touched.
        case refuse(BookmarkIndexError)
        /// No journal yet (or one whose header never finished): write a fresh, empty one.
        case startFresh
        /// Write the state as a new journal (a migration, or a salvage that keeps the damaged
        /// file under `keepingDamagedAs`).
        case rewrite(keepingDamagedAs: String?)
        /// Append to the journal as it is, first cutting a torn tail (or room) back to `cuttingTailTo`.
        case append(cuttingTailTo: Int?)
    }

    var action: Action
    /// What the open repairs; every repair is here.
    var recovery = JournalRecoveryReport()
    /// The state the store gets (after a salvage, with the sync records marked stale).
    var state: BookmarkIndexState
    /// Whether the stale temporary file of an interrupted compaction is deleted first.
    var removesTemporaryFile = false
    /// With ``Action/append(cuttingTailTo:)``: the checkpoint to write of the journal as it is,
    /// when none could be used or the lines after it have grown (see ``CheckpointPolicy``).
    var checkpoint: IndexCheckpoint.Coverage?

    /// The plan for `reading`, for a writer (`writes`) or a reader. `unusedPath` names a file
    /// that does not exist yet (for the damaged file's copy).
    init(
        _ reading: JournalReading,
        options: JournalStorage.Options,
        writes: Bool,
        unusedPath: (String) -> String
    ) {
        let path = reading.path
        state = reading.state
        recovery.checkpointNotUsed = reading.checkpointNotUsed
        if reading.hasTemporaryFile && writes {
            removesTemporaryFile = true
            recovery.removedTemporaryFile = true
        }
        switch reading.head {
        case .missing(let length):
            if length > 0 {
                recovery.truncatedTail = .init(line: 1, offset: 0, bytes: length, reason: "the header is cut short (no newline)")
            }
            action = .startFresh
            return
        case .newer(let version):
            action = .refuse(BookmarkIndexError(
                .newerSchema,
                "The journal \(path) is at schema version \(version), newer than this library's \(options.migrations.currentVersion). It was left untouched; open it with a newer version of the library."
            ))
            return
        case .header(_, let unreadable):
            if let unreadable, !options.salvage {
                action = .refuse(unreadable)
                return
            }
        }
        guard let scan = reading.scan else {
            // A header read but no scan: not a state reading leaves; never write over it.
            action = .refuse(BookmarkIndexError(.io, "The journal \(path) could not be read past its header. Nothing was changed."))
            return
        }
        if let first = reading.damage.first, !options.salvage {
            action = .refuse(BookmarkIndexError(
                .corrupt,
                "The journal \(path) is damaged at \(first). Nothing was changed. Open with salvage to keep every valid batch and move the damaged file aside, or delete it (JournalStorage.removeJournal) and sync again."
            ))
            return
        }
        // Cut off (or, read-only or rewriting, just left behind): reported either way.
        if let tail = scan.tornTail {
            recovery.truncatedTail = .init(line: tail.line, offset: tail.offset, bytes: scan.length - scan.room - tail.offset, reason: tail.reason)
        }
        if let version = reading.migratingFrom { recovery.migratedFromVersion = version }
        if !reading.damage.isEmpty {
            recovery.droppedDamage = reading.damage
            // The dropped batches may have held rows of either list (or their removals): the
            // next sync of each list must be a full walk, not a delta that trusts what is left.
            // The sync engine's record is kept, marked stale: what it says of the rows (a walk's
            // cursor) may no longer hold, what the app recorded (tombstones) still does.
            for restrict in Restrict.allCases {
                var syncState = state.metadata(for: restrict).syncState
                syncState?.isStale = true
                state.apply(.setMetadata(BookmarkIndexMetadata(syncState: syncState), for: restrict))
            }
        }
        if reading.migratingFrom != nil || !reading.damage.isEmpty {
            // Kept under a new name (a second link to the same file) only once the clean
            // journal is durable, and the clean one renamed in after: a crash at any step
            // leaves a journal in place, damaged or clean, never none.
            let aside = reading.damage.isEmpty || !writes
                ? nil : unusedPath(path + ".damaged-" + String(Int(options.now().timeIntervalSince1970)))
            recovery.damagedFileMovedTo = aside
            action = .rewrite(keepingDamagedAs: aside)
            return
        }
        // Without damage before it, the torn line starts where the last good line ends; so
        // does room left by a process that ended without closing the journal (no repair: it is
        // cut so that the writer's room starts from none).
        action = .append(cuttingTailTo: scan.tornTail?.offset ?? (scan.room > 0 ? scan.goodLength : nil))
        if let header = reading.header, let id = header.id,
           CheckpointPolicy.wantsCheckpoint(afterReplaying: scan.goodLength - (reading.resumedAt?.offset ?? 0), resumedAt: reading.resumedAt?.offset, options: options) {
            checkpoint = IndexCheckpoint.Coverage(
                schemaVersion: header.schemaVersion, journalID: id, length: scan.goodLength,
                lines: reading.goodLines, lastSequence: scan.lastSequence, lastLineOffset: scan.lastGoodLineStart
            )
        }
    }
}
