/// A bookmark's place in its list, to page from: its ``IndexedBookmark/serverOrder``, ties
/// broken by its illust ID, the key every query orders a list by (newest first: a larger
/// order, then a larger illust ID).
///
/// A cursor names a place, not a row: paging after it is unaffected by rows added above it
/// (a sync putting newer bookmarks on top) or removed anywhere, and it stays valid when its
/// own row is removed or moved. Pass a page's ``BookmarkFeedPage/lastCursor`` as `after:` for the
/// next page down, and its ``BookmarkFeedPage/firstCursor`` as `before:` for the rows that appeared
/// above it (see ``BookmarksIndexStore/bookmarks(in:matching:after:limit:)``).
///
/// A sync can move rows it reads again: a delta places every row of the pages it reads anew on
/// top, in Pixiv's order, and a full walk places the pages it has walked above the rows it has
/// not reached yet. The order of the rows stays Pixiv's, but a cursor taken before such a write
/// names the old place, which can now lie below rows that were above it. A feed that must stay
/// at a row across syncs finds the row again by its key (as `BookmarkFeed` in BookmarkScreen
/// does) and takes its cursor now.
public struct BookmarkCursor: Sendable, Hashable, Codable {
    /// The row's ``IndexedBookmark/serverOrder``.
    public var serverOrder: Int64
    /// The row's illust ID, which ranks rows of equal order.
    public var illustID: Int

    /// Creates the cursor of the place (`serverOrder`, `illustID`).
    public init(serverOrder: Int64, illustID: Int) {
        self.serverOrder = serverOrder
        self.illustID = illustID
    }

    /// The cursor of `bookmark`'s place in its list.
    public init(_ bookmark: IndexedBookmark) {
        self.init(serverOrder: bookmark.serverOrder, illustID: bookmark.illust.id)
    }

    /// Whether `self`'s place comes before `other`'s in a list read newest first: a larger
    /// order, or an equal order and a larger illust ID.
    func precedes(_ other: BookmarkCursor) -> Bool {
        serverOrder != other.serverOrder ? serverOrder > other.serverOrder : illustID > other.illustID
    }
}
