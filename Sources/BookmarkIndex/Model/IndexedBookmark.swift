import Foundation

/// A bookmark in the index: the artwork, the list it is in, its place in that list, when the
/// index first and last saw it and, for a work that vanished from Pixiv, since when.
public struct IndexedBookmark: Sendable, Hashable, Codable {
    /// The artwork as last seen with its content. For a work that vanished since (its
    /// ``BookmarkedIllustSnapshot/vanishReason`` is set), that is what the index kept of it
    /// when ``vanishedAt`` is set, and Pixiv's placeholder when it is `nil`.
    public var illust: BookmarkedIllustSnapshot
    /// The list the bookmark lives in.
    public var restrict: Restrict
    /// The bookmark's place in its list: a larger value is a newer bookmark.
    ///
    /// Queries return bookmarks by descending `serverOrder`, which is Pixiv's order (newest
    /// bookmark first) as the sync engine writes it: a sync's new rows above the newest, in page
    /// order, and a bookmark made in the app on top. Another ``BookmarkSort`` breaks its ties in
    /// this order. Rows with equal orders come by descending illust ID.
    public var serverOrder: Int64
    /// When the index first stored this bookmark. Upserting an existing row keeps the earlier value.
    public var firstIndexedAt: Date
    /// When a sync last saw this bookmark on Pixiv (or the app recorded it).
    public var lastSeenAt: Date
    /// When the index saw the work vanish: the ``lastSeenAt`` of the first sync that got a
    /// placeholder for it while the index held its content. Later placeholders keep it (their
    /// reason replaces the last); Pixiv showing the work again clears it.
    ///
    /// `nil` for a visible work, and for a vanished one the index never saw with content: it
    /// was a placeholder already when the index first stored it (see ``firstIndexedAt``), or
    /// it was stored by journal schema 1, which kept no content. So a vanished row has its
    /// last-known title, artist and tags exactly when this is set. The index ignores it on
    /// a visible row.
    public var vanishedAt: Date?

    /// Creates a bookmark row.
    public init(
        illust: BookmarkedIllustSnapshot,
        restrict: Restrict,
        serverOrder: Int64,
        firstIndexedAt: Date,
        lastSeenAt: Date,
        vanishedAt: Date? = nil
    ) {
        self.illust = illust
        self.restrict = restrict
        self.serverOrder = serverOrder
        self.firstIndexedAt = firstIndexedAt
        self.lastSeenAt = lastSeenAt
        self.vanishedAt = vanishedAt
    }

    /// The row's identity: `"<illustID>-<restrict>"`.
    public var key: BookmarkKey { BookmarkKey(illustID: illust.id, restrict: restrict) }
}
