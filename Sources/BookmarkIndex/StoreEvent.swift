/// Something a ``BookmarksIndexStore`` did on its own, in the background: what
/// ``BookmarksIndexStore/events(bufferingPolicy:)`` streams, for a log, metrics or a debug view.
public enum StoreEvent: Sendable {
    /// A compaction began; writes and queries go on meanwhile.
    case compactionStarted
    /// A compaction finished: the storage now holds the live state (and the batches written
    /// meanwhile), and took `duration` to write it.
    case compactionFinished(duration: Duration)
    /// A compaction failed; the storage holds what it held before, nothing is lost. The store
    /// tries again once `retryAfterBatches` more batches have been written (the wait doubles
    /// with each failure in a row, up to 1,024 batches), or when ``BookmarksIndexStore/compact()``
    /// is called.
    case compactionFailed(BookmarkIndexError, retryAfterBatches: Int)
}
