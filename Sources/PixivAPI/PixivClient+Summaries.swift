import Foundation

/// Pages of bookmarks read as summaries, for an index: the same requests as
/// ``PixivClient/userBookmarks(userID:restrict:tag:)`` and ``PixivClient/bookmarks(nextURL:)``,
/// the same errors, without making what an index drops.
extension PixivClient {
    /// ``userBookmarks(userID:restrict:tag:)`` without a tag, read as summaries.
    package func userBookmarkSummaries(userID: Int, restrict: BookmarkRestrict) async throws -> PixivSummaryPage {
        try reading(await send(userBookmarksRequest(userID: userID, restrict: restrict)), as: BookmarksPage.self, PixivSummaryPage.decode)
    }

    /// ``bookmarks(nextURL:)``, read as summaries.
    package func bookmarkSummaries(nextURL: URL) async throws -> PixivSummaryPage {
        try reading(await send(HTTPRequest(method: "GET", url: checkedNextURL(nextURL))), as: BookmarksPage.self, PixivSummaryPage.decode)
    }
}
