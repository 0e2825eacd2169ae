/// One page of a list read by cursor: its bookmarks, newest first, and where to go on from.
public struct BookmarkFeedPage: Sendable, Hashable {
    /// The bookmarks, newest first.
    public var bookmarks: [IndexedBookmark]
    /// Whether the list has more matching rows past this page in the direction it was read:
    /// below it for a page read `after:` a cursor, above it for one read `before:`.
    public var hasMore: Bool

    /// Creates a page.
    public init(bookmarks: [IndexedBookmark], hasMore: Bool) {
        self.bookmarks = bookmarks
        self.hasMore = hasMore
    }

    /// The cursor of the first (newest) bookmark, or `nil` for an empty page: pass it as
    /// `before:` to read the rows that appeared above the page.
    public var firstCursor: BookmarkCursor? { bookmarks.first.map(BookmarkCursor.init) }

    /// The cursor of the last (oldest) bookmark, or `nil` for an empty page: pass it as
    /// `after:` to read the next page.
    public var lastCursor: BookmarkCursor? { bookmarks.last.map(BookmarkCursor.init) }
}
