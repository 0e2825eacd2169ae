// The store's reads: answered from the last applied state, in memory, never waiting for a write.

extension BookmarksIndexStore {
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
}
