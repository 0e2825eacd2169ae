// What the store publishes after each durable write.

extension BookmarksIndexStore {
    /// A stream of what each durable write changed, in the order the writes were made: what a
    /// feed or a tag sheet awaits instead of polling.
    ///
    /// Each write that changes the index is reported exactly once, after it is durable and
    /// queries see it (a query made on receiving a change includes it), with the store's
    /// ``BookmarkIndexState/revision`` after it, so revisions strictly increase along the
    /// stream. Nothing is reported for what did not change the index:
    /// - a write that throws (a failed storage write, an invalid argument, a cancelled task)
    ///   changes nothing, and reports nothing;
    /// - a batch that leaves every row and metadata as queries returned them (an upsert of a
    ///   row exactly as it was, a removal of a key that is not there) is durable and advances
    ///   the revision, but is not reported: the next change's revision skips it;
    /// - compaction rewrites the storage and changes no content: it is in ``events(bufferingPolicy:)``.
    /// ``resetStore()`` is reported as one change with ``IndexChange/isReset`` set.
    ///
    /// A stream receives the writes applied after it was made. To start from a known state,
    /// subscribe, then read ``state`` (or query): a change whose revision is at most the
    /// state's is already in it, and every later one is not. Each call returns a new, independent stream; it
    /// ends when the store closes or the consumer stops iterating. With `.bufferingNewest(n)`
    /// a slow consumer loses older changes: compare revisions, and re-query on a gap.
    ///
    /// The change is worked out from the batch being applied (its keys, and what each
    /// replaced), in O(c · r) for c changes of rows of size r (O(n) more for a removal of a
    /// whole list of n), and only while some stream is subscribed.
    public func changes(
        bufferingPolicy: AsyncStream<IndexChange>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<IndexChange> {
        changeSubscribers.subscribe(bufferingPolicy: bufferingPolicy).stream
    }
}
