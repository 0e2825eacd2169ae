extension BookmarkIndexState {
    /// The bookmarks of `restrict`'s list that match `filter`, in `sort`, after `cursor` (from
    /// the start when it is `nil`), at most `limit`: a sorted feed, paged like the default one.
    ///
    /// Pass the page's ``BookmarkFeedPage/lastCursor`` for the next one. Rows with equal keys
    /// come in bookmark order, newest bookmark first (see ``BookmarkSort``), so the order is
    /// total and a cursor is one place in it: a row added or changed since lands before or
    /// after that place by its key, never shifting the pages already read, and a row removed
    /// is simply not returned. A work whose key a sync changed (its popularity, say) may show
    /// again on a later page, at its new place, or not at all. Popularity and rates are as of
    /// the last sync that saw each work.
    ///
    /// In ``BookmarkSort/bookmarkOrder`` this is ``bookmarks(in:matching:after:limit:)``.
    /// Otherwise every match is tested against the cursor and the first `limit` kept:
    /// O(m log limit) for m matches, found as ``count(in:matching:)`` finds them.
    ///
    /// - Precondition: `cursor` was read in `sort` (its ``BookmarkCursor/sort``); a cursor of
    ///   another order names no place in this one.
    public func bookmarks(
        in restrict: Restrict,
        matching filter: BookmarkFilter = .all,
        sortedBy sort: BookmarkSort,
        after cursor: BookmarkCursor?,
        limit: Int
    ) -> BookmarkFeedPage {
        precondition(limit >= 0, "limit must not be negative")
        precondition(cursor.map { $0.sort == sort } ?? true, "a cursor read in one sort was passed with another: it names no place in it")
        if sort == .bookmarkOrder {
            return bookmarks(in: restrict, matching: filter, after: cursor, limit: limit)
        }
        var selection = BoundedSelection<SortedRow>(limit: limit + 1) { sort.isBefore($0.value, $0.row.cursor, $1.value, $1.row.cursor) }
        queryPlan(in: restrict, matching: filter).forEachMatch { row, _ in
            let value = sort.value(of: row)
            if let cursor, !sort.isBefore(cursor.sortValue, cursor, value, row.cursor) { return }
            selection.offer(SortedRow(value: value, row: row))
        }
        let rows = selection.sorted()
        return BookmarkFeedPage(bookmarks: rows.prefix(limit).map { materialize($0.row, in: restrict) }, hasMore: rows.count > limit, sort: sort)
    }
}

/// A row and its key in a sort.
private struct SortedRow {
    var value: SortKeyValue?
    var row: ListIndex.Row
}
