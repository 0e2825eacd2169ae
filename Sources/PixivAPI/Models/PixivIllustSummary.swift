import Foundation

/// What an index keeps of a bookmarked work: a ``PixivIllust`` without the fields an index
/// drops (the caption, the tools, the series, the other image sizes, the artist's account
/// and picture, the flags of the signed-in user's own).
///
/// The sync engine reads pages this way (``PixivClient/userBookmarkSummaries(userID:restrict:)``,
/// ``PixivClient/bookmarkSummaries(nextURL:)``): a page's image URLs are most of its bytes, and
/// an index keeps one of a work's four to forty; the others are only looked at for a
/// placeholder's file name (``PixivIllust/invisibleReason``). Always equal to
/// ``init(_:)`` of the ``PixivIllust`` the same JSON decodes to.
package struct PixivIllustSummary: Sendable, Hashable {
    package var id: Int
    package var title: String
    package var type: String
    /// The 360×360 crop's URL (empty when Pixiv sent none).
    package var squareMedium: String
    package var userID: Int
    package var userName: String
    package var tags: [PixivArtworkTag]
    /// `create_date` parsed; `nil` when unparsable.
    package var createDate: Date?
    package var pageCount: Int
    package var width: Int
    package var height: Int
    package var xRestrict: Int
    package var illustAIType: Int
    package var totalView: Int
    package var totalBookmarks: Int
    package var invisibleReason: PixivIllust.InvisibleReason?
}

extension PixivIllustSummary {
    /// The summary of `illust`.
    package init(_ illust: PixivIllust) {
        self.init(
            id: illust.id, title: illust.title, type: illust.type, squareMedium: illust.imageURLs.squareMedium, userID: illust.user.id,
            userName: illust.user.name, tags: illust.tags, createDate: illust.createDate, pageCount: illust.pageCount,
            width: illust.width, height: illust.height, xRestrict: illust.xRestrict, illustAIType: illust.illustAIType,
            totalView: illust.totalView, totalBookmarks: illust.totalBookmarks, invisibleReason: illust.invisibleReason
        )
    }
}

/// A page of bookmarks as ``PixivIllustSummary``s: a ``BookmarksPage`` without what an index
/// drops.
package struct PixivSummaryPage: Sendable, Hashable {
    package var illusts: [PixivIllustSummary]
    /// The next (older) page, exactly as Pixiv sent it; `nil` on the last page.
    package var nextURL: URL?
}

extension PixivSummaryPage {
    /// The summary of `page`.
    package init(_ page: BookmarksPage) {
        self.init(illusts: page.illusts.map(PixivIllustSummary.init), nextURL: page.nextURL)
    }
}
