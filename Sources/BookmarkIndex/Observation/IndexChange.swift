/// What one durable write changed in a ``BookmarksIndexStore``: what
/// ``BookmarksIndexStore/changes(bufferingPolicy:)`` streams, so that a feed re-queries only
/// when, and only where, the index changed.
///
/// A change is reported once the write is durable and queries see it. It names the keys the
/// write added, removed and updated in each list (a key in at most one of the three) and
/// whether a list's metadata changed; a ``BookmarksIndexStore/resetStore()`` is one change with
/// ``isReset`` set and no keys (everything is gone).
///
/// ```swift
/// for await change in await store.changes() {
///     if change.isReset || change[.public].changesBookmarks { await feed.reload() }
/// }
/// ```
public struct IndexChange: Sendable, Hashable {
    /// The store's ``BookmarkIndexState/revision`` once this write is applied: queries and
    /// states of that revision or later include it. Strictly increasing from one change to
    /// the next; it can skip values (a batch that changed nothing advances the revision but is
    /// not reported).
    public var revision: UInt64
    /// Whether the write was a ``BookmarksIndexStore/resetStore()``: every bookmark and all
    /// metadata are gone, and the lists' changes are empty.
    public var isReset: Bool
    /// What changed in the public list.
    public var publicList: ListChange
    /// What changed in the private list.
    public var privateList: ListChange

    /// Creates a change.
    public init(revision: UInt64, isReset: Bool = false, publicList: ListChange = ListChange(), privateList: ListChange = ListChange()) {
        self.revision = revision
        self.isReset = isReset
        self.publicList = publicList
        self.privateList = privateList
    }

    /// What changed in `restrict`'s list.
    public subscript(restrict: Restrict) -> ListChange {
        get {
            switch restrict {
            case .public: publicList
            case .private: privateList
            }
        }
        set {
            switch restrict {
            case .public: publicList = newValue
            case .private: privateList = newValue
            }
        }
    }

    /// Whether nothing changed: not a reset, and no list changed.
    public var isEmpty: Bool { !isReset && publicList.isEmpty && privateList.isEmpty }

    /// What one write changed in one list.
    public struct ListChange: Sendable, Hashable {
        /// Bookmarks the list did not have before the write and has after it.
        public var added: Set<BookmarkKey>
        /// Bookmarks the list had before the write and does not have after it.
        public var removed: Set<BookmarkKey>
        /// Bookmarks the list had before and after the write that a query now returns
        /// differently: any field of the ``IndexedBookmark`` changed, its content, its
        /// ``IndexedBookmark/serverOrder`` (its place in the list), or when a sync last saw it.
        public var updated: Set<BookmarkKey>
        /// Whether the list's ``BookmarkIndexMetadata`` changed.
        public var metadataChanged: Bool

        /// Creates a list's change.
        public init(added: Set<BookmarkKey> = [], removed: Set<BookmarkKey> = [], updated: Set<BookmarkKey> = [], metadataChanged: Bool = false) {
            self.added = added
            self.removed = removed
            self.updated = updated
            self.metadataChanged = metadataChanged
        }

        /// Whether nothing changed in the list.
        public var isEmpty: Bool { added.isEmpty && removed.isEmpty && updated.isEmpty && !metadataChanged }

        /// Whether any bookmark of the list was added, removed or updated (metadata aside): what
        /// a feed of the list re-queries for.
        public var changesBookmarks: Bool { !added.isEmpty || !removed.isEmpty || !updated.isEmpty }
    }
}
