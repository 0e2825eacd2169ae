import BookmarkIndex

/// Where the engine reads a user's bookmark lists from: the only way it sees the server.
///
/// ``PixivBookmarkSource`` adapts `PixivClient`; tests use a fake. Every call is one request as
/// far as the engine's rate-limit discipline is concerned: the engine never has two calls in
/// flight and spaces them by ``SyncConfiguration/minimumRequestSpacing``.
///
/// Throw ``BookmarkSyncError`` so the engine can tell a rate limit (retry later) from an auth
/// failure (stop); any other error is shown and not retried.
public protocol BookmarkSource: Sendable {
    /// The newest page of `restrict`'s list.
    func firstPage(of restrict: Restrict) async throws -> BookmarkPage

    /// The page after the one that returned `token` as its ``BookmarkPage/nextPage``.
    func nextPage(_ token: String, of restrict: Restrict) async throws -> BookmarkPage

    /// How many bookmarks `restrict`'s list holds, if the source can tell; `nil` otherwise.
    ///
    /// The engine asks once at the start of each full walk, to show progress against a total.
    /// Return `nil` without a request when the source has no way to know.
    func totalCount(of restrict: Restrict) async throws -> Int?

    /// Bookmarks `illustID` in `restrict`'s list on the server (a work bookmarked already moves
    /// to the top of that list, which is how Pixiv moves a work between lists). One request.
    func addBookmark(illustID: Int, restrict: Restrict) async throws

    /// Removes the bookmark of `illustID` on the server, from whichever list holds it. One
    /// request.
    func deleteBookmark(illustID: Int) async throws
}

extension BookmarkSource {
    /// No total is known: returns `nil` without a request.
    public func totalCount(of restrict: Restrict) async throws -> Int? { nil }

    /// A source that only reads: throws ``BookmarkSyncError/Code/other`` without a request.
    public func addBookmark(illustID: Int, restrict: Restrict) async throws {
        throw BookmarkSyncError(.other, "This bookmark source cannot add bookmarks; the app must POST them itself and call recordBookmark(_:restrict:).")
    }

    /// A source that only reads: throws ``BookmarkSyncError/Code/other`` without a request.
    public func deleteBookmark(illustID: Int) async throws {
        throw BookmarkSyncError(.other, "This bookmark source cannot remove bookmarks; the app must POST them itself and call recordUnbookmark(illustID:restrict:).")
    }
}

/// One page of a bookmark list, newest bookmark first.
public struct BookmarkPage: Sendable, Hashable {
    /// The illusts on the page, in the list's order (newest bookmark first).
    public var illusts: [BookmarkedIllustSnapshot]
    /// The opaque token for the next page, or `nil` on the last page. The engine persists it
    /// (`FullWalkPosition.nextPage`), so it must stay valid across a restart.
    public var nextPage: String?
    /// The bookmark ID that bounds the next page, when the source knows it: Pixiv's
    /// `max_bookmark_id` in `next_url`. Every bookmark on this page and above it has an ID at
    /// least this, every one below at most this (whether it is the ID of this page's last
    /// bookmark or of the next page's first). Bookmarking a work, again too, gives it an ID
    /// above every other, so a delta that has read down to an ID a complete sync saw has met
    /// every new bookmark. `nil`: a delta reads to the last page.
    public var nextPageBookmarkID: Int?

    /// Creates a page.
    public init(illusts: [BookmarkedIllustSnapshot], nextPage: String?, nextPageBookmarkID: Int? = nil) {
        self.illusts = illusts
        self.nextPage = nextPage
        self.nextPageBookmarkID = nextPageBookmarkID
    }
}
