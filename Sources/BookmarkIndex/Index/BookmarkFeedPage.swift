/// One page of a list read by cursor: its bookmarks, in the order they were read, and where to
/// go on from.
public struct BookmarkFeedPage: Sendable, Hashable {
    /// The bookmarks, in the page's ``sort``: newest first in bookmark order. Each is built from
    /// the index's row when it is read (see ``BookmarkRows``).
    public var bookmarks: BookmarkRows
    /// Whether the list has more matching rows past this page in the direction it was read:
    /// below it for a page read `after:` a cursor, above it for one read `before:`.
    public var hasMore: Bool
    /// The order the page was read in; its cursors are places in it.
    public var sort: BookmarkSort

    /// Creates a page.
    public init(bookmarks: BookmarkRows, hasMore: Bool, sort: BookmarkSort = .bookmarkOrder) {
        self.bookmarks = bookmarks
        self.hasMore = hasMore
        self.sort = sort
    }

    /// The cursor of the first bookmark, or `nil` for an empty page: pass it as `before:` to
    /// read the rows that appeared above the page.
    public var firstCursor: BookmarkCursor? { bookmarks.first.map { BookmarkCursor($0, sortedBy: sort) } }

    /// The cursor of the last bookmark, or `nil` for an empty page: pass it as `after:` to read
    /// the next page.
    public var lastCursor: BookmarkCursor? { bookmarks.last.map { BookmarkCursor($0, sortedBy: sort) } }
}
