/// The durable, queryable index of one Pixiv user's illust bookmarks.
///
/// The store is an `actor` that exclusively owns the index state and its storage. Every write is
/// a batch (a sync writes one page of 30 as one batch) that is made durable by the storage
/// before it becomes visible to queries; when a write throws, the index is unchanged.
///
/// ```swift
/// let store = try BookmarksIndexStore(storage: InMemoryStorage())
/// try await store.upsert([bookmark])
/// let tags = await store.tagHistogram(in: .public, limit: 20)
/// let feed = await store.bookmarks(in: .public, matching: BookmarkFilter(allOf: ["original"]), limit: 30)
/// ```
///
/// Queries run on the actor and read only memory. For heavy read work off the actor, take a
/// ``snapshot`` (a copy-on-write value) and query it anywhere.
public actor BookmarksIndexStore {
    private var state: BookmarkIndexState
    let storage: any BookmarkStorage
    private var isClosed = false

    /// Opens a store on `storage`, loading everything it holds.
    ///
    /// - Throws: what the storage's `load()` throws.
    public init(storage: some BookmarkStorage) throws {
        self.storage = storage
        self.state = try storage.load()
    }

    // MARK: Writes

    /// Makes `changes` durable as one batch, then applies them. An empty batch does nothing.
    ///
    /// - Throws: ``BookmarkIndexError`` when the store is closed or the storage fails; the
    ///   index is then unchanged.
    public func apply(_ changes: [BookmarkChange]) throws {
        try checkOpen()
        guard !changes.isEmpty else { return }
        try storage.append(changes)
        state.apply(changes)
        if storage.wantsCompaction {
            // The batch is durable and applied, so a failed automatic compaction must not fail
            // it: the old journal stays valid, and the next write tries again. (A failure that
            // leaves the storage unusable makes that next write throw.)
            try? storage.compact(state)
        }
    }

    /// Reads the index, decides what to write and writes it, in one turn of the store: no other
    /// write comes between the read `decide` sees and the batch it returns.
    ///
    /// `decide` runs on the store's actor, synchronously; it must be quick and must not block.
    /// Its changes are made durable as one batch (nothing when empty), then applied, and its
    /// result returned.
    ///
    /// ```swift
    /// let added = try await store.update { index in
    ///     let key = BookmarkKey(illustID: 42, restrict: .public)
    ///     return index.contains(key) ? ([], false) : ([.upsert(bookmark)], true)
    /// }
    /// ```
    ///
    /// - Throws: what `decide` throws (nothing is written), or what ``apply(_:)`` throws.
    public func update<Result: Sendable>(
        _ decide: @Sendable (BookmarkIndexState) throws -> (changes: [BookmarkChange], result: Result)
    ) throws -> Result {
        try checkOpen()
        let (changes, result) = try decide(state)
        try apply(changes)
        return result
    }

    /// Inserts or replaces `bookmarks` in one batch.
    public func upsert(_ bookmarks: [IndexedBookmark]) throws {
        try apply(bookmarks.map(BookmarkChange.upsert))
    }

    /// Removes the bookmarks with `keys` in one batch; keys not in the index are ignored.
    public func remove(_ keys: [BookmarkKey]) throws {
        try apply(keys.map(BookmarkChange.remove))
    }

    /// Replaces the sync metadata of `restrict`'s list.
    public func setMetadata(_ metadata: BookmarkIndexMetadata, for restrict: Restrict) throws {
        try apply([.setMetadata(metadata, for: restrict)])
    }

    /// Deletes every bookmark and all metadata, in memory and in storage.
    ///
    /// The server is authoritative, so this is always safe: the next sync rebuilds the index.
    public func resetStore() throws {
        try checkOpen()
        try storage.reset()
        state = BookmarkIndexState()
    }

    /// Asks the storage to rewrite itself as the current state (for the journal: a fresh,
    /// minimal file).
    public func compact() throws {
        try checkOpen()
        try storage.compact(state)
    }

    /// Closes the storage. Later writes throw ``BookmarkIndexError/Code/closed``; queries keep
    /// answering from memory.
    public func close() throws {
        guard !isClosed else { return }
        isClosed = true
        try storage.close()
    }

    // MARK: Reads

    /// A copy of the whole index, to query off the actor. O(1) until the store next writes.
    public var snapshot: BookmarkIndexState { state }

    /// The sync metadata of `restrict`'s list.
    public func metadata(for restrict: Restrict) -> BookmarkIndexMetadata {
        state.metadata(for: restrict)
    }

    /// See ``BookmarkIndexState/tagHistogram(in:visibility:limit:)``.
    public func tagHistogram(in restrict: Restrict, visibility: BookmarkFilter.Visibility = .visible, limit: Int? = nil) -> [TagCount] {
        state.tagHistogram(in: restrict, visibility: visibility, limit: limit)
    }

    /// See ``BookmarkIndexState/bookmarks(in:matching:limit:offset:)``.
    public func bookmarks(
        in restrict: Restrict,
        matching filter: BookmarkFilter = .all,
        limit: Int? = nil,
        offset: Int = 0
    ) -> [IndexedBookmark] {
        state.bookmarks(in: restrict, matching: filter, limit: limit, offset: offset)
    }

    /// See ``BookmarkIndexState/count(in:matching:)``.
    public func count(in restrict: Restrict, matching filter: BookmarkFilter) -> Int {
        state.count(in: restrict, matching: filter)
    }

    /// The number of bookmarks in `restrict`'s list, visible or vanished, as Pixiv counts a
    /// list (its placeholders included). O(1). For one visibility, `count(in:matching:)` with a
    /// filter of that ``BookmarkFilter/visibility``, also O(1).
    public func count(in restrict: Restrict) -> Int {
        state.count(in: restrict)
    }

    /// See ``BookmarkIndexState/coOccurringTags(in:matching:limit:)``.
    public func coOccurringTags(in restrict: Restrict, matching filter: BookmarkFilter, limit: Int? = nil) -> [TagCount] {
        state.coOccurringTags(in: restrict, matching: filter, limit: limit)
    }

    /// Whether the index has the bookmark `key`. O(1).
    public func contains(_ key: BookmarkKey) -> Bool {
        state.contains(key)
    }

    /// The bookmark `key`, or `nil`. O(1).
    public func bookmark(for key: BookmarkKey) -> IndexedBookmark? {
        state.bookmark(for: key)
    }

    private func checkOpen() throws {
        if isClosed {
            throw BookmarkIndexError(.closed, "The store is closed; open a new BookmarksIndexStore to write.")
        }
    }
}
