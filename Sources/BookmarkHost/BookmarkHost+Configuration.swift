import BookmarkIndex
import BookmarkSync
import Foundation

extension BookmarkHost {
    /// How many stores a host keeps open, and how its accounts sync.
    public struct Configuration: Sendable {
        /// Open stores kept at most: beyond it, the least recently used idle store is closed.
        /// Stores syncing or in use are never closed, so the count can pass it while more
        /// accounts than this sync at once.
        public var maximumOpenStores: Int
        /// Bytes the open stores may keep in memory, as estimated
        /// (`BookmarksIndexStore.residentBytes`); `nil` for no bound. Enforced like
        /// `maximumOpenStores`.
        public var maximumResidentBytes: Int?
        /// Each account's sync policy: its own pacing and day's budget.
        public var sync: SyncConfiguration
        /// The shared address's budget, when the host makes its own `SharedEgressBudget`.
        public var egress: SharedEgressBudget.Configuration
        /// How much later than asked each engine's waits may end, as a fraction of the wait.
        public var jitter: Double
        /// The journal options every store opens with.
        public var journal: JournalStorage.Options

        /// Creates a configuration: 100 open stores, no bound on bytes, the default sync and
        /// egress policies, a tenth of jitter, default journal options.
        public init(
            maximumOpenStores: Int = 100, maximumResidentBytes: Int? = nil,
            sync: SyncConfiguration = SyncConfiguration(), egress: SharedEgressBudget.Configuration = .init(),
            jitter: Double = 0.1, journal: JournalStorage.Options = JournalStorage.Options()
        ) {
            self.maximumOpenStores = maximumOpenStores
            self.maximumResidentBytes = maximumResidentBytes
            self.sync = sync
            self.egress = egress
            self.jitter = jitter
            self.journal = journal
        }
    }
}
