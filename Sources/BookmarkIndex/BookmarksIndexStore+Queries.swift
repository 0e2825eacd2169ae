// The store's reads: answered from the last applied state, in memory, never waiting for a write.

extension BookmarksIndexStore {
    /// An estimate, in bytes, of the memory the open store keeps for its index: for a host that
    /// closes idle stores once the open ones hold too much. O(1): it reads the sizes of the
    /// index's buffers, never its rows.
    ///
    /// The index keeps each list as a few flat buffers, and the estimate adds up each one's
    /// capacity times its element size (the room a buffer grew into counts: it is allocated):
    /// the rows (fixed-size records, 152 bytes each) and their attribute and artist columns (5
    /// bytes a row, and the list's artists), the illust → row table, the text
    /// arena (titles, artist names, thumbnail URLs), the rows' tags, the tag counts and postings
    /// of the inverted index, the server order, and the folded text index once a text query has
    /// built it; plus the tag table (every name and translation interned once, with its folded
    /// form) and the sync metadata. Strings and per-tag lists are estimated from their lengths
    /// with the standard library's layout, not measured. A real store came to about 470 bytes a
    /// bookmark in the benchmarks, each store's own mix of titles and tags moving that.
    ///
    /// Not counted: copies of ``state`` still held elsewhere (they share the buffers until
    /// the store writes, then keep the old ones alive), a running compaction's batches, the
    /// storage's own buffers, and malloc's free memory. Rows removed one at a time leave their
    /// record slots for the next rows to reuse, so the estimate falls by their text and tags
    /// (once the arenas are packed) but not by their slots; ``resetStore()``, removing a whole
    /// list, or reopening the store once its journal is compacted frees those too.
    public var residentBytes: Int { state.residentBytes }

    /// The sync metadata of `restrict`'s list.
    public func metadata(for restrict: Restrict) -> BookmarkIndexMetadata {
        state.metadata(for: restrict)
    }

    /// See ``BookmarkIndexState/tagHistogram(in:visibility:limit:)``.
    public func tagHistogram(in restrict: Restrict, visibility: BookmarkFilter.Visibility = .visible, limit: Int? = nil) -> [ArtworkTagCount] {
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

    /// A page of `restrict`'s list below `cursor` (from the top when `nil`); see
    /// ``BookmarkIndexState/bookmarks(in:matching:after:limit:)``.
    ///
    /// ```swift
    /// var page = await store.bookmarks(in: .public, matching: filter, after: nil, limit: 30)
    /// // Scrolled to the end: the next page, unaffected by rows a sync added on top meanwhile.
    /// page = await store.bookmarks(in: .public, matching: filter, after: page.lastCursor, limit: 30)
    /// ```
    public func bookmarks(
        in restrict: Restrict,
        matching filter: BookmarkFilter = .all,
        after cursor: BookmarkCursor?,
        limit: Int
    ) -> BookmarkFeedPage {
        state.bookmarks(in: restrict, matching: filter, after: cursor, limit: limit)
    }

    /// A page of `restrict`'s list in `sort` after `cursor` (from the start when `nil`); see
    /// ``BookmarkIndexState/bookmarks(in:matching:sortedBy:after:limit:)``.
    ///
    /// ```swift
    /// var page = await store.bookmarks(in: .public, matching: filter, sortedBy: .bookmarkRate, after: nil, limit: 30)
    /// page = await store.bookmarks(in: .public, matching: filter, sortedBy: .bookmarkRate, after: page.lastCursor, limit: 30)
    /// ```
    public func bookmarks(
        in restrict: Restrict,
        matching filter: BookmarkFilter = .all,
        sortedBy sort: BookmarkSort,
        after cursor: BookmarkCursor?,
        limit: Int
    ) -> BookmarkFeedPage {
        state.bookmarks(in: restrict, matching: filter, sortedBy: sort, after: cursor, limit: limit)
    }

    /// The rows of `restrict`'s list above `cursor` in `sort`, the nearest `limit` of them; see
    /// ``BookmarkIndexState/bookmarks(in:matching:sortedBy:before:limit:)``.
    public func bookmarks(
        in restrict: Restrict,
        matching filter: BookmarkFilter = .all,
        sortedBy sort: BookmarkSort,
        before cursor: BookmarkCursor,
        limit: Int? = nil
    ) -> BookmarkFeedPage {
        state.bookmarks(in: restrict, matching: filter, sortedBy: sort, before: cursor, limit: limit)
    }

    /// The rows of `restrict`'s list above `cursor`, the nearest `limit` of them; see
    /// ``BookmarkIndexState/bookmarks(in:matching:before:limit:)``.
    public func bookmarks(
        in restrict: Restrict,
        matching filter: BookmarkFilter = .all,
        before cursor: BookmarkCursor,
        limit: Int? = nil
    ) -> BookmarkFeedPage {
        state.bookmarks(in: restrict, matching: filter, before: cursor, limit: limit)
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
    public func coOccurringTags(in restrict: Restrict, matching filter: BookmarkFilter, limit: Int? = nil) -> [ArtworkTagCount] {
        state.coOccurringTags(in: restrict, matching: filter, limit: limit)
    }

    /// The artists of the matches, most bookmarked first, with their last-known names; see
    /// ``BookmarkIndexState/topArtists(in:matching:limit:)``.
    ///
    /// ```swift
    /// let artists = await store.topArtists(in: .public, matching: BookmarkFilter(ai: .excludingAI), limit: 50)
    /// ```
    public func topArtists(in restrict: Restrict, matching filter: BookmarkFilter = .all, limit: Int? = nil) -> [ArtistCount] {
        state.topArtists(in: restrict, matching: filter, limit: limit)
    }

    /// How the matches spread over AI kind, age rating and kind; see
    /// ``BookmarkIndexState/facets(in:matching:)``.
    public func facets(in restrict: Restrict, matching filter: BookmarkFilter = .all) -> BookmarkFacets {
        state.facets(in: restrict, matching: filter)
    }

    /// The tags of `restrict`'s list whose name or translation contains `text`, those that
    /// begin with it first, most used first; see ``BookmarkIndexState/searchTags(_:in:matching:limit:)``.
    ///
    /// ```swift
    /// let suggestions = await store.searchTags("orig", in: .public, limit: 10) // オリジナル (original), …
    /// ```
    public func searchTags(_ text: String, in restrict: Restrict, matching filter: BookmarkFilter = .all, limit: Int? = nil) -> [ArtworkTagCount] {
        state.searchTags(text, in: restrict, matching: filter, limit: limit)
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
