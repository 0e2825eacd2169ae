/// Where a ``BookmarksIndexStore`` keeps its index durable: the pluggable storage seam.
///
/// A backend conforms by being asynchronous: its work may take as long as it likes (a file
/// `fsync`, a round trip to a database server) without blocking any thread of Swift's
/// cooperative pool — run blocking calls on threads of its own (an ``IOThreadPool``, a serial
/// `DispatchQueue`, the database library's own). ``InMemoryStorage`` and ``JournalStorage``
/// ship with the library; `BookmarkIndexTesting`'s `StorageConformance` checks any other.
///
/// ## The contract
///
/// - The store calls ``load()`` once, first. It then calls ``append(_:)``, ``reset()`` and
///   ``close()`` one at a time, each after the last has returned — never two at once. Only a
///   compaction (see ``CompactableStorage``) runs beside them.
/// - ``append(_:)`` is all or nothing: when it returns, the batch survives a crash (to the
///   storage's stated durability); when it throws, none of it is stored, and the storage may
///   still be written unless its error says it can no longer be.
/// - What ``load()`` returns is what applying every batch acknowledged since the last
///   ``reset()`` to an empty ``BookmarkIndexState`` gives — in content; internal layout (slot
///   order, garbage) may differ.
/// - After ``close()``, ``append(_:)`` and ``reset()`` throw ``BookmarkIndexError/Code/closed``;
///   another `close()` does nothing. Whether ``load()`` may open it again is the storage's to
///   say (``InMemoryStorage`` allows it, for tests that restart a store on it).
/// - ``health()`` reads what is stored and reports; it changes nothing, and while the storage is
///   open it may be called beside anything else, without making writes wait for it.
/// - Cancellation: a call may refuse to start when its task is cancelled (``JournalStorage``
///   throws `CancellationError` then), but ``append(_:)`` stays all or nothing, and work it has
///   started is finished. ``close()`` should close whatever the task: a server's graceful
///   shutdown closes its stores from a cancelled task.
public protocol BookmarkStorage: Sendable {
    /// Reads everything stored. Called once, when the store opens.
    func load() async throws -> BookmarkIndexState

    /// Makes one batch of changes durable. When this returns, the batch survives a crash;
    /// when it throws, none of it is stored.
    func append(_ changes: [BookmarkChange]) async throws

    /// Makes `batches` durable, in order, in one call: all of them survive a crash when this
    /// returns, none of them is stored when it throws. What an import or a migration writes:
    /// one hand-over to the storage's threads for many batches, not one each.
    ///
    /// The default implementation appends them as one batch (``append(_:)`` of their changes,
    /// in order). ``JournalStorage`` writes one line per batch with one `write` and one sync.
    func append(contentsOf batches: [[BookmarkChange]]) async throws

    /// Deletes everything stored.
    func reset() async throws

    /// Releases the storage's resources (files, locks, connections). Later writes fail.
    func close() async throws

    /// Checks what is stored, reading it back, and reports.
    func health() async throws -> StorageHealth
}

extension BookmarkStorage {
    /// Appends `batches` as one batch: their changes, in order, with ``append(_:)``.
    public func append(contentsOf batches: [[BookmarkChange]]) async throws {
        try await append(batches.flatMap(\.self))
    }
}

/// A storage that can rewrite itself as the live state, to shed what later batches made
/// obsolete (the journal's replaced rows and removals): an optional capability of
/// ``BookmarkStorage``. A store on such a storage compacts it in the background when it asks.
///
/// A compaction is two calls: ``beginCompaction(to:)``, which the store makes between two
/// appends (none in flight), and the work it returns, which the store always runs, in the
/// background, while it goes on calling ``BookmarkStorage/append(_:)``. The storage keeps every
/// batch appended after `beginCompaction` returned: once the work has returned, what is stored
/// is `state` followed by those batches; if it throws, what is stored is as if it never ran.
/// The store starts no second compaction, and calls no ``BookmarkStorage/reset()`` or
/// ``BookmarkStorage/close()``, until the work has finished. The work should run to the end
/// even when the task running it is cancelled: a compaction that has begun cannot be left
/// half-done.
public protocol CompactableStorage: BookmarkStorage {
    /// Whether compacting now would pay off (for the journal: it has grown past its threshold).
    /// The store asks after each append; answering must not block.
    var isCompactionDue: Bool { get }

    /// Starts a compaction to `state`, the result of every batch acknowledged so far, and
    /// returns the rest of it, for the store to run in the background.
    ///
    /// - Throws: when the storage cannot compact now (closed, or failed earlier).
    func beginCompaction(to state: BookmarkIndexState) async throws -> @Sendable () async throws -> Void
}
