/// A bookmark's place in its list read in one order, to page from: its
/// ``IndexedBookmark/serverOrder``, ties broken by its illust ID, the key every query orders a
/// list by by default (newest first: a larger order, then a larger illust ID); in a sorted
/// feed (``BookmarkSort``), the row's key in that sort before them.
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
///
/// A cursor belongs to the order it was made in (its ``sort``): pass it with that same sort.
/// Passing it with another is a programming error, and traps, as an index out of range does;
/// a server that takes cursors from its clients compares ``sort`` first.
public struct BookmarkCursor: Sendable, Hashable, Codable {
    /// The row's ``IndexedBookmark/serverOrder``.
    public var serverOrder: Int64
    /// The row's illust ID, which ranks rows of equal order.
    public var illustID: Int
    /// The order the cursor is a place in.
    public private(set) var sort: BookmarkSort
    /// The row's key in ``sort`` (``BookmarkSort/key(of:)-(IndexedBookmark)``); `nil` in
    /// bookmark order.
    var sortKey: Int64?

    /// Creates the cursor of the place (`serverOrder`, `illustID`) in bookmark order.
    public init(serverOrder: Int64, illustID: Int) {
        self.serverOrder = serverOrder
        self.illustID = illustID
        self.sort = .bookmarkOrder
    }

    /// The cursor of `bookmark`'s place in its list read in bookmark order.
    public init(_ bookmark: IndexedBookmark) {
        self.init(serverOrder: bookmark.serverOrder, illustID: bookmark.illust.id)
    }

    /// The cursor of `bookmark`'s place in its list read in `sort`, by the fields it has now.
    public init(_ bookmark: IndexedBookmark, sortedBy sort: BookmarkSort) {
        self.init(serverOrder: bookmark.serverOrder, illustID: bookmark.illust.id)
        self.sort = sort
        sortKey = sort.key(of: bookmark)
    }

    /// The cursor's place as its sort ranks places.
    var rank: SortRank {
        sort.rank(key: sortKey, serverOrder: serverOrder, illustID: illustID)
    }

    /// Whether `self`'s place comes before `other`'s in a list read newest first: a larger
    /// order, or an equal order and a larger illust ID.
    func precedes(_ other: BookmarkCursor) -> Bool {
        serverOrder != other.serverOrder ? serverOrder > other.serverOrder : illustID > other.illustID
    }

    private enum CodingKeys: String, CodingKey {
        case serverOrder, illustID, sort, sortKey
    }

    /// Decodes a cursor; one encoded before sorts existed has no sort and is in bookmark order.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        serverOrder = try container.decode(Int64.self, forKey: .serverOrder)
        illustID = try container.decode(Int.self, forKey: .illustID)
        sort = try container.decodeIfPresent(BookmarkSort.self, forKey: .sort) ?? .bookmarkOrder
        sortKey = try container.decodeIfPresent(Int64.self, forKey: .sortKey)
    }

    /// Encodes the cursor: its place and its sort.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(serverOrder, forKey: .serverOrder)
        try container.encode(illustID, forKey: .illustID)
        try container.encode(sort, forKey: .sort)
        try container.encodeIfPresent(sortKey, forKey: .sortKey)
    }
}
