import BookmarkIndex
import BookmarkSync
import Foundation

/// One account a ``BookmarkHost`` keeps an index for: where its store lives and how to make its
/// source. Registering one opens nothing; the host opens the store on first use.
public struct HostedAccount: Sendable {
    /// The account's name in the host and in events.
    public var id: AccountID
    /// The directory of the account's journal (created on first open).
    public var directory: URL
    /// Makes the account's source when its store opens (for Pixiv: a `PixivBookmarkSource`
    /// over the account's `PixivClient`). Called again after the store was closed and reopened.
    public var makeSource: @Sendable () async throws -> any BookmarkSource

    /// An account whose index lives in `directory` and syncs from what `source` makes.
    public init(id: AccountID, directory: URL, source makeSource: @escaping @Sendable () async throws -> any BookmarkSource) {
        self.id = id
        self.directory = directory
        self.makeSource = makeSource
    }
}

/// An account whose store is open: its store, its engine, and what eviction weighs.
struct OpenAccount: Sendable {
    let store: BookmarksIndexStore
    let engine: BookmarkSyncEngine
    /// The host's use counter at its last use: the least recently used goes first.
    var lastUse: UInt64
    /// Callers inside ``BookmarkHost/withStore(_:_:)`` now: a pinned store is never evicted.
    var pins = 0
    /// What the open store keeps in memory, as last estimated.
    var residentBytes: Int
    /// Forwards the store's own events (compactions) to the host's stream.
    let storeEvents: Task<Void, Never>
}
