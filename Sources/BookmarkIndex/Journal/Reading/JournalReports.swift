import Foundation

/// A line of a journal that could not be read.
public struct JournalDamage: Sendable, Hashable, CustomStringConvertible {
    /// The 1-based line number; line 1 is the header.
    public var line: Int
    /// The byte offset of the line's first byte in the file.
    public var offset: Int
    /// What is wrong with it.
    public var reason: String

    public var description: String { "line \(line) at byte offset \(offset): \(reason)" }
}

/// What opening a journal found and repaired. Nothing is repaired silently: every repair is here.
public struct JournalRecoveryReport: Sendable, Hashable {
    /// A last line cut short or failing its checksum (a crash mid-write), and cut off.
    public struct TruncatedTail: Sendable, Hashable {
        /// The 1-based number of the line that was cut off.
        public var line: Int
        /// The file length after truncation: where the cut line began.
        public var offset: Int
        /// How many bytes were cut.
        public var bytes: Int
        /// Why the line was unreadable.
        public var reason: String
    }

    /// The torn tail that was truncated, if any (read-only: that was ignored and left in place).
    public var truncatedTail: TruncatedTail?
    /// With salvage: the damaged lines that were dropped (every valid batch was kept).
    public var droppedDamage: [JournalDamage] = []
    /// With salvage: where the damaged file was moved before the clean journal was written.
    public var damagedFileMovedTo: String?
    /// The schema version the journal was migrated from, if it was.
    public var migratedFromVersion: Int?
    /// A stale temporary file of an interrupted compaction that was deleted.
    public var removedTemporaryFile: Bool = false
    /// Why the checkpoint beside the journal was not used (and the journal was read whole
    /// instead), when there was one. Nothing is lost when a checkpoint is not used: it is a cache
    /// of the journal, rewritten at the next compaction. Not counted by ``isClean``.
    public var checkpointNotUsed: String?

    /// Whether opening changed nothing.
    public var isClean: Bool {
        truncatedTail == nil && droppedDamage.isEmpty && migratedFromVersion == nil && !removedTemporaryFile
    }
}

/// The health of a journal on disk: what `bookmarks verify` prints.
public struct JournalHealthReport: Sendable, Hashable {
    /// The journal file.
    public var path: String
    /// The schema version in the header; `nil` when the header is unreadable.
    public var schemaVersion: Int?
    /// When the file was created.
    public var created: Date?
    /// When compaction (or a migration or reset) last rewrote the file.
    public var lastCompaction: Date?
    /// Committed batches that read back correctly.
    public var batches: Int
    /// The file's size in bytes.
    public var bytes: Int
    /// The public bookmarks that replaying the valid batches gives.
    public var livePublicBookmarks: Int
    /// The private bookmarks that replaying the valid batches gives.
    public var livePrivateBookmarks: Int
    /// Lines that fail to read, other than a torn last line.
    public var damage: [JournalDamage]
    /// A torn or checksum-failing last line: what the next open will cut off.
    public var tornTail: JournalDamage?
    /// What the open of this journal repaired, when the report comes from an open store.
    public var recovery: JournalRecoveryReport?
    /// The checkpoint beside the journal; `nil` when there is none.
    public var checkpoint: JournalCheckpointReport?
    /// What the next open (without salvage) would repair, as the open itself plans it; `nil`
    /// when it would refuse (see ``nextOpenRefuses``). Its ``JournalRecoveryReport/checkpointNotUsed``
    /// is left out: `verify` reads the journal whole, and ``checkpoint`` says what open would
    /// make of the checkpoint.
    public var nextOpen: JournalRecoveryReport?
    /// Why the next open (without salvage) would refuse, when it would: damage, or a newer
    /// schema. Opening with salvage keeps every valid batch.
    public var nextOpenRefuses: String?

    /// Whether the journal reads back completely: no damage and no torn tail.
    public var isHealthy: Bool {
        damage.isEmpty && tornTail == nil && schemaVersion != nil && (checkpoint?.agreesWithJournal ?? true)
    }
}

/// What ``JournalStorage/verify(directory:pool:)`` found of the checkpoint:
/// the cache of the journal's first lines that open reads instead of replaying them.
public struct JournalCheckpointReport: Sendable, Hashable {
    /// The bytes of the journal the checkpoint covers, when it could be read.
    public var coveredBytes: Int?
    /// Why open would not use the checkpoint (and read the journal whole); `nil` when it would.
    /// A checkpoint that is not used costs time, not data.
    public var notUsedBecause: String?
    /// `false` only when open would use the checkpoint and it, with the lines after it, gives an
    /// index different from reading the journal whole: a checkpoint to delete (it is only a
    /// cache; the next open reads the journal whole and writes a new one).
    public var agreesWithJournal: Bool
}
