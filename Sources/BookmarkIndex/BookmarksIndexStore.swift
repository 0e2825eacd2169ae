/// The durable, queryable index of one Pixiv user's illust bookmarks.
///
/// The store is an `actor` that exclusively owns the index state and its storage. Every write is
/// a batch (a sync writes one page of 30 as one batch) that is made durable by the storage
/// before it becomes visible to queries; when a write throws, the index is unchanged.
///
/// ```swift
/// let store = try await BookmarksIndexStore(storage: InMemoryStorage())
/// try await store.upsert([bookmark])
/// let tags = await store.tagHistogram(in: .public, limit: 20)
/// let feed = await store.bookmarks(in: .public, matching: BookmarkFilter(allOf: ["original"]), limit: 30)
/// ```
///
/// Nothing the store does blocks a thread of Swift's cooperative pool: the storage's file work
/// runs on its own threads (an ``IOThreadPool`` for the journal) while the store's actor is
/// free. Queries read the last applied state and never wait behind a write's I/O; writes are
/// applied one at a time, in the order they were made. Compaction runs in the background (see
/// ``events(bufferingPolicy:)``). For heavy read work off the actor, take the ``state`` (a
/// copy-on-write value) and query it anywhere.
///
/// A write whose task is cancelled before its storage work starts is refused: it throws
/// `CancellationError`, and neither the index nor the storage changes (a write whose storage
/// work has started runs to the end and is applied). ``close()`` is never refused: a server's
/// graceful shutdown closes its stores from a cancelled task.
public actor BookmarksIndexStore {
    /// A copy of the whole index, to query off the actor. O(1) until the store next writes.
    public internal(set) var state: BookmarkIndexState
    let storage: any BookmarkStorage
    /// The storage's compaction, when it has one.
    let compactor: (any CompactableStorage)?
    var isClosed = false
    var compaction = CompactionSchedule()
    let subscribers = Subscribers<StoreEvent>()
    /// The consumers of ``changes(bufferingPolicy:)``.
    let changeSubscribers = Subscribers<IndexChange>()
    /// Whether a write (or reset, close, or the start of a compaction) holds the storage.
    private var isWriting = false
    private var writeWaiters: [CheckedContinuation<Void, Never>] = []

    /// Opens a store on `storage`, loading everything it holds.
    ///
    /// A storage that is also a ``CompactableStorage`` is compacted in the background when it
    /// says compaction is due.
    ///
    /// - Throws: what the storage's ``BookmarkStorage/load()`` throws.
    public init(storage: some BookmarkStorage) async throws {
        self.storage = storage
        self.compactor = storage as? any CompactableStorage
        self.state = try await storage.load()
    }

    // MARK: Writes

    /// Makes `changes` durable as one batch, then applies them. An empty batch does nothing.
    ///
    /// Waits for the writes made before it; queries meanwhile see the index without `changes`.
    ///
    /// - Throws: ``BookmarkIndexError`` when the store is closed or the storage fails, or
    ///   ``BookmarkIndexError/Code/invalidArgument`` when a date in `changes` is NaN or infinite;
    ///   `CancellationError` when the calling task is cancelled before the batch's storage work
    ///   starts (while it waits for earlier writes, or in the storage's queue). The index and
    ///   the storage are then unchanged.
    public func apply(_ changes: [BookmarkChange]) async throws {
        try await writing { try await self.write(changes) }
    }

    /// Makes `batches` durable in one call to the storage, then applies them in order, as one
    /// write: what an import or a migration writes, many batches at one hand-over to the
    /// storage's threads rather than one each (``BookmarkStorage/append(contentsOf:)``). Empty
    /// batches are skipped; observers see one change for them all.
    ///
    /// - Throws: as ``apply(_:)``; when it throws, none of the batches is stored or applied.
    public func apply(contentsOf batches: [[BookmarkChange]]) async throws {
        try await writing { try await self.write(batches: batches) }
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
    /// - Throws: what `decide` throws (nothing is written), or what ``apply(_:)`` throws
    ///   (`CancellationError` for a cancelled task: `decide`'s changes are then neither stored
    ///   nor applied).
    public func update<Result: Sendable>(
        _ decide: @Sendable (BookmarkIndexState) throws -> (changes: [BookmarkChange], result: Result)
    ) async throws -> Result {
        try await writing {
            let (changes, result) = try decide(self.state)
            try await self.write(changes)
            return result
        }
    }

    /// Inserts or replaces `bookmarks` in one batch. Throws as ``apply(_:)`` does.
    public func upsert(_ bookmarks: [IndexedBookmark]) async throws {
        try await apply(bookmarks.map(BookmarkChange.upsert))
    }

    /// Removes the bookmarks with `keys` in one batch; keys not in the index are ignored.
    /// Throws as ``apply(_:)`` does.
    public func remove(_ keys: [BookmarkKey]) async throws {
        try await apply(keys.map(BookmarkChange.remove))
    }

    /// Replaces the sync metadata of `restrict`'s list. Throws as ``apply(_:)`` does.
    ///
    /// The sync engine's business (`package`): it writes the metadata with the page it belongs
    /// to, through ``apply(_:)`` and ``BookmarkChange/setMetadata(_:for:)``.
    package func setMetadata(_ metadata: BookmarkIndexMetadata, for restrict: Restrict) async throws {
        try await apply([.setMetadata(metadata, for: restrict)])
    }

    /// Deletes every bookmark and all metadata, in memory and in storage, once a running
    /// compaction has finished.
    ///
    /// The server is authoritative, so this is always safe: the next sync rebuilds the index.
    ///
    /// - Throws: ``BookmarkIndexError`` when the store is closed or the storage fails, or
    ///   `CancellationError` when the calling task is cancelled before the storage's reset
    ///   starts; the index and the storage are then unchanged.
    public func resetStore() async throws {
        try await writing {
            await self.finishCompaction()
            try await self.storage.reset()
            var empty = BookmarkIndexState()
            empty.revision = self.state.revision &+ 1
            self.state = empty
            self.changeSubscribers.yield(IndexChange(revision: empty.revision, isReset: true))
        }
    }

    /// Waits for any writes and compaction under way, then closes the storage. Later writes
    /// throw ``BookmarkIndexError/Code/closed``; queries keep answering from memory.
    ///
    /// Closing is not refused for a cancelled task (a server's graceful shutdown runs in one):
    /// the writes it waits for are refused if their own tasks are cancelled, the compaction
    /// under way finishes, and the storage is closed (``JournalStorage`` closes whatever the
    /// task; another backend should too).
    public func close() async throws {
        guard !isClosed else { return }
        await acquireWriting()
        defer { releaseWriting() }
        guard !isClosed else { return }
        isClosed = true
        await finishCompaction()
        subscribers.finish()
        changeSubscribers.finish()
        try await storage.close()
    }

    /// Reads the storage back and reports its health (for a journal, what
    /// ``StorageHealth/journal`` details, with what the open repaired). Changes nothing, and
    /// runs beside writes and queries.
    ///
    /// - Throws: what the storage's ``BookmarkStorage/health()`` throws; for a journal,
    ///   `CancellationError` when the calling task is cancelled before the reading starts.
    public func health() async throws -> StorageHealth {
        try await storage.health()
    }

    deinit {
        // A store dropped without close: its event and change streams end all the same.
        subscribers.finish()
        changeSubscribers.finish()
    }

    /// Runs `body` holding the storage: after every write made before it, before every write
    /// made after it. Refused with `CancellationError`, before `body` runs, when the calling task
    /// is cancelled by the time its turn comes (whatever the storage does about cancellation).
    func writing<Value: Sendable>(_ body: () async throws -> Value) async throws -> Value {
        try checkOpen()
        await acquireWriting()
        defer { releaseWriting() }
        try checkOpen()
        try Task.checkCancellation()
        return try await body()
    }

    /// One batch: ``write(batches:)`` of it.
    private func write(_ changes: [BookmarkChange]) async throws {
        try await write(batches: [changes])
    }

    /// The non-empty `batches`: durable in one storage call, then applied as one batch and
    /// reported; then a compaction if the storage asks for one.
    ///
    /// From the append's return to the report nothing suspends, so a change stream subscribed
    /// by then gets this write's change, and the change is worked out only when some stream
    /// wants it.
    private func write(batches: [[BookmarkChange]]) async throws {
        let batches = batches.filter { !$0.isEmpty }
        guard !batches.isEmpty else { return }
        for changes in batches { try BookmarkChange.validate(changes) }
        try await storage.append(contentsOf: batches)
        let changes = batches.count == 1 ? batches[0] : batches.flatMap(\.self)
        if changeSubscribers.isEmpty {
            state.apply(changes)
        } else if let change = state.applyReportingChange(changes) {
            changeSubscribers.yield(change)
        }
        await compactIfDue()
    }

    private func acquireWriting() async {
        if isWriting {
            await withCheckedContinuation { writeWaiters.append($0) }
        } else {
            isWriting = true
        }
    }

    private func releaseWriting() {
        if writeWaiters.isEmpty {
            isWriting = false
        } else {
            writeWaiters.removeFirst().resume() // handed over: still writing
        }
    }

    func checkOpen() throws {
        if isClosed {
            throw BookmarkIndexError(.closed, "The store is closed; open a new BookmarksIndexStore to write.")
        }
    }
}
