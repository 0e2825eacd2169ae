import BookmarkIndex

/// The part of a list a ``BookmarkFeed`` shows: a number of rows from a top row down, as of the
/// last read. Pure: every method reads the state it is given.
///
/// The window's top is a row, found again by its key at each read. A sync can place rows it
/// reads again anew (a delta puts every row of the pages it reads on top, in Pixiv's order; a
/// full walk puts the pages it has walked above the rows it has not reached), so a place taken
/// before a write can lie below rows that were above it; the top row's place now cannot. When
/// the top row is gone, the next row of the window still in the index takes over; when none is
/// left, the old place.
///
/// Each read is one query from the top down, as long as the window is: no row twice, none
/// skipped, in the list's order as it is now. Rows written below the window, or pushed out of
/// it by rows written inside it, are read by the next ``extend(in:)``.
struct FeedWindow {
    /// The top row's key and its place when last seen.
    struct Top: Equatable {
        var key: BookmarkKey
        var place: BookmarkCursor

        init(_ row: IndexedBookmark) {
            key = row.key
            place = BookmarkCursor(row)
        }
    }

    /// The top row; `nil` until the window has a row, and after "show newer" (the window then
    /// starts at the top of the list).
    var top: Top?
    /// How many rows the window holds: the first page, and a page more for each extend.
    var length = 0
    /// The rows from the top down at the last read, newest first.
    var rows: BookmarkRows = []
    /// Whether more rows below the window match the filter.
    var hasMore = false

    /// What a read needs: the index, the list and filter, the page size.
    struct Query {
        var state: BookmarkIndexState
        var list: Restrict
        var filter: BookmarkFilter
        var pageSize: Int
    }

    /// Reads the window again: the top row found again, and as many rows from it down as the
    /// window holds. A window with nothing left from its top down starts at the top of the list.
    mutating func reread(in query: Query) {
        length = max(length, query.pageSize)
        top = top.map { found($0, among: rows.keys, in: query.state) }
        var page = query.state.bookmarks(in: query.list, matching: query.filter, after: top.map { Self.justAbove($0.place) }, limit: length)
        if page.bookmarks.isEmpty, top != nil {
            top = nil
            page = query.state.bookmarks(in: query.list, matching: query.filter, after: nil, limit: length)
        }
        rows = page.bookmarks
        hasMore = page.hasMore
        if top == nil, let first = rows.first { top = Top(first) }
    }

    /// Holds a page more, when the window is full, and reads the window again.
    mutating func extend(in query: Query) {
        length = max(length, query.pageSize)
        if rows.count >= length { length += query.pageSize }
        reread(in: query)
    }

    /// How many matching rows are above the top (at most `newerLimit`) and in the whole list.
    func counts(in query: Query, newerLimit: Int) -> (newer: Int, matching: Int) {
        let newer = top.map { query.state.bookmarks(in: query.list, matching: query.filter, before: $0.place, limit: newerLimit).bookmarks.count } ?? 0
        return (newer, query.state.count(in: query.list, matching: query.filter))
    }

    /// `top` as it is in `state`: its row's place now, or else that of the first of `keys` (the
    /// window's rows, top down) still there, or else its old place.
    private func found(_ top: Top, among keys: [BookmarkKey], in state: BookmarkIndexState) -> Top {
        for key in [top.key] + keys {
            if let row = state.bookmark(for: key) { return Top(row) }
        }
        return top
    }

    /// The place just above `place`, so that reading after it starts at `place`'s row. Lists read
    /// newest first, a larger server order then a larger illust ID (see `BookmarkCursor`), so no
    /// place lies between (order, id + 1) and (order, id).
    static func justAbove(_ place: BookmarkCursor) -> BookmarkCursor {
        BookmarkCursor(serverOrder: place.serverOrder, illustID: place.illustID + 1)
    }
}
