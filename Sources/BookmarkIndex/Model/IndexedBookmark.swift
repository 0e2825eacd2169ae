import Foundation

/// A bookmark in the index: the artwork, the list it is in, its place in that list and when the
/// index first and last saw it.
public struct IndexedBookmark: Sendable, Hashable, Codable {
    /// The artwork as last seen.
    public var illust: BookmarkedIllustSnapshot
    /// The list the bookmark lives in.
    public var restrict: Restrict
    /// The bookmark's place in its list: a larger value is a newer bookmark.
    ///
    /// Queries return bookmarks by descending `serverOrder`, which is Pixiv's order (newest
    /// bookmark first) as long as writers follow ``ServerOrder``'s conventions. Rows with equal
    /// orders come by descending illust ID.
    public var serverOrder: Int64
    /// When the index first stored this bookmark. Upserting an existing row keeps the earlier value.
    public var firstIndexedAt: Date
    /// When a sync last saw this bookmark on Pixiv (or the app recorded it).
    public var lastSeenAt: Date

    /// Creates a bookmark row.
    public init(
        illust: BookmarkedIllustSnapshot,
        restrict: Restrict,
        serverOrder: Int64,
        firstIndexedAt: Date,
        lastSeenAt: Date
    ) {
        self.illust = illust
        self.restrict = restrict
        self.serverOrder = serverOrder
        self.firstIndexedAt = firstIndexedAt
        self.lastSeenAt = lastSeenAt
    }

    /// The row's identity: `"<illustID>-<restrict>"`.
    public var key: BookmarkKey { BookmarkKey(illustID: illust.id, restrict: restrict) }
}
