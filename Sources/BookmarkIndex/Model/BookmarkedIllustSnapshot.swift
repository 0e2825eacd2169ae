import Foundation

/// An artwork as the index keeps it: the fields of Pixiv's illust object an app needs to show
/// and filter a bookmark, without the network.
///
/// Works that vanished after they were bookmarked (deleted, limited to My pixiv, held back by the
/// user's settings) arrive from Pixiv as placeholders: an empty title, no tags, a stand-in image,
/// and ``vanishReason`` saying why. They keep their place in the list, and queries leave them out
/// unless asked for them (``BookmarkFilter/visibility``). When the index had seen such a work
/// with its content, it keeps that content: a row's snapshot of a vanished work is what the
/// index last saw of it, with the reason it vanished (see ``IndexedBookmark/vanishedAt``).
public struct BookmarkedIllustSnapshot: Sendable, Hashable, Codable {
    /// Pixiv's illust ID.
    public var id: Int
    /// The title; empty in a placeholder.
    public var title: String
    /// Illustration, manga or ugoira.
    public var type: IllustType
    /// The artist's user ID.
    public var artistID: Int
    /// The artist's display name.
    public var artistName: String
    /// The artwork's tags, in Pixiv's order.
    public var tags: [ArtworkTag]
    /// The square-medium thumbnail URL, as Pixiv sends it.
    public var thumbnailURL: String?
    /// How many pages the work has.
    public var pageCount: Int
    /// The first page's width in pixels.
    public var width: Int
    /// The first page's height in pixels.
    public var height: Int
    /// Pixiv's `x_restrict`: 0 all ages, 1 R-18, 2 R-18G.
    public var xRestrict: Int
    /// Pixiv's `illust_ai_type`: 0 unknown, 1 not AI-generated, 2 AI-generated.
    public var aiType: Int
    /// When the artwork was posted.
    public var createDate: Date
    /// Why Pixiv sends the work as a placeholder now; `nil` for a work Pixiv shows.
    public var vanishReason: VanishReason?
    /// How many users have bookmarked the work, as of the last sync that saw it.
    public var totalBookmarks: Int
    /// How many times the work was viewed, as of the last sync that saw it (Pixiv's
    /// `total_view`); 0 when unknown, as for a row a journal before schema 5 stored. The index
    /// keeps it between 0 and 4,294,967,295 (`UInt32.max`, hundreds of times any work's count),
    /// clamping a value outside.
    public var totalView: Int

    /// Creates a snapshot. Every field but the ID and title has a neutral default so tests and
    /// adapters only spell out what they know.
    public init(
        id: Int,
        title: String,
        type: IllustType = .illust,
        artistID: Int = 0,
        artistName: String = "",
        tags: [ArtworkTag] = [],
        thumbnailURL: String? = nil,
        pageCount: Int = 1,
        width: Int = 0,
        height: Int = 0,
        xRestrict: Int = 0,
        aiType: Int = 0,
        createDate: Date = Date(timeIntervalSince1970: 0),
        vanishReason: VanishReason? = nil,
        totalBookmarks: Int = 0,
        totalView: Int = 0
    ) {
        self.id = id
        self.title = title
        self.type = type
        self.artistID = artistID
        self.artistName = artistName
        self.tags = tags
        self.thumbnailURL = thumbnailURL
        self.pageCount = pageCount
        self.width = width
        self.height = height
        self.xRestrict = xRestrict
        self.aiType = aiType
        self.createDate = createDate
        self.vanishReason = vanishReason
        self.totalBookmarks = totalBookmarks
        self.totalView = totalView
    }

    /// Whether Pixiv shows the work: `false` once it vanished (``vanishReason`` is set).
    public var isVisible: Bool { vanishReason == nil }
}
