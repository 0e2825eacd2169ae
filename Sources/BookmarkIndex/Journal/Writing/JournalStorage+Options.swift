import Foundation

extension JournalStorage {
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
        /// ... and than this factor times its size after the last compaction (or at open, or the
        /// last checkpoint taken in its place). A store writes a checkpoint instead of compacting
        /// when a compaction would drop less than a quarter of the journal's records (its lines
        /// are mostly new bookmarks: a first sync, an import; the journal format's article says
        /// how that is judged) and a checkpoint would be kept (``checkpointMinimumBytes``): the
        /// journal is left as it is, and the next open reads the checkpoint all the same.
        public var compactionGrowthFactor = 2.0
        /// A journal at least this many bytes long gets a checkpoint when it is written
        /// whole (compaction, migration, salvage), or opened without a usable one or with more
        /// lines after it than this and a quarter of what it covers, so that the next open reads
        /// the checkpoint instead of replaying the lines it covers. `Int.max` turns checkpoints off.
        public var checkpointMinimumBytes = 1 << 20
        /// The schema migrations to apply to an older journal: this library's own. Tests
        /// substitute others (`@_spi(Testing) import BookmarkIndex`).
        @_spi(Testing) public var migrations = JournalMigrationPlan.production
        /// The file system. Tests substitute one that injects faults (`@_spi(Testing) import
        /// BookmarkIndex`).
        @_spi(Testing) public var fileSystem: any JournalFileSystem = PosixFileSystem()
        /// The wall clock, for the header's dates.
        public var now: @Sendable () -> Date = { Date() }
        /// The threads the journal's file work runs on. Defaults to ``IOThreadPool/shared``.
        public var ioPool = IOThreadPool.shared

        /// The default options.
        public init() {}
    }
}
