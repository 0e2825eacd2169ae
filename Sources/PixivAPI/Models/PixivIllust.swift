import Foundation

/// An illust (illustration, manga or ugoira) as Pixiv's app API sends it.
///
/// Decoding is tolerant: unknown fields are ignored, missing optional fields take neutral
/// values, and the two page shapes (`meta_single_page` filled and `meta_pages` empty for one
/// page; the reverse for several) both decode. Works hidden or deleted after they were
/// bookmarked arrive with ``isVisible`` `false`, an empty title and tags, zero counts and
/// `limit_*_360.png` image URLs.
public struct PixivIllust: Sendable, Hashable, Decodable {
    /// Pixiv's illust ID.
    public var id: Int
    /// The title; empty for hidden and deleted works.
    public var title: String
    /// `"illust"`, `"manga"` or `"ugoira"` (or a kind Pixiv adds later).
    public var type: String
    /// The work's sized image URLs; placeholders for hidden and deleted works.
    public var imageURLs: PixivImageURLs
    /// The artist's caption (HTML).
    public var caption: String
    /// Pixiv's `restrict` of the work itself (0 public).
    public var restrict: Int
    /// The artist.
    public var user: PixivUser
    /// The artwork's tags, in Pixiv's order; empty for hidden and deleted works.
    public var tags: [PixivTag]
    /// The drawing tools the artist listed.
    public var tools: [String]
    /// Pixiv's `create_date` as sent, for example `"2024-05-01T12:34:56+09:00"`.
    public var createDateText: String
    /// How many pages the work has.
    public var pageCount: Int
    /// The first page's width in pixels (0 for hidden and deleted works).
    public var width: Int
    /// The first page's height in pixels (0 for hidden and deleted works).
    public var height: Int
    /// Pixiv's sanity level (2 all ages … 6 R-18).
    public var sanityLevel: Int
    /// 0 all ages, 1 R-18, 2 R-18G.
    public var xRestrict: Int
    /// The series the work belongs to (manga), if any.
    public var series: PixivSeries?
    /// The original image URL of a single-page work; `nil` for multi-page works.
    public var originalImageURL: String?
    /// The pages of a multi-page work; empty for single-page works.
    public var metaPages: [PixivMetaPage]
    /// How many times the work was viewed.
    public var totalView: Int
    /// How many users have bookmarked the work.
    public var totalBookmarks: Int
    /// Whether the signed-in user has bookmarked it.
    public var isBookmarked: Bool
    /// `false` for works hidden or deleted after they were bookmarked.
    public var isVisible: Bool
    /// Whether the signed-in user muted the work or its artist.
    public var isMuted: Bool
    /// 0 unknown, 1 not AI-generated, 2 AI-generated.
    public var illustAIType: Int
    /// How many comments the work has, when sent.
    public var totalComments: Int?

    /// `create_date` parsed; `nil` when Pixiv sent something unparsable.
    public var createDate: Date? {
        try? Date(createDateText, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: false))
    }

    /// Whether the image URLs are Pixiv's placeholders for hidden or deleted works.
    public var hasPlaceholderImage: Bool {
        imageURLs.squareMedium.contains("/limit_") || imageURLs.medium.contains("/limit_")
    }

    private enum CodingKeys: String, CodingKey {
        case id, title, type, caption, restrict, user, tags, tools, width, height, series, visible
        case imageURLs = "image_urls"
        case createDate = "create_date"
        case pageCount = "page_count"
        case sanityLevel = "sanity_level"
        case xRestrict = "x_restrict"
        case metaSinglePage = "meta_single_page"
        case metaPages = "meta_pages"
        case totalView = "total_view"
        case totalBookmarks = "total_bookmarks"
        case isBookmarked = "is_bookmarked"
        case isMuted = "is_muted"
        case illustAIType = "illust_ai_type"
        case totalComments = "total_comments"
    }

    private struct MetaSinglePage: Decodable {
        var original_image_url: String?
    }

    /// Decodes Pixiv's JSON; see the type's summary for what is tolerated.
    ///
    /// - Throws: `DecodingError` when `id` is missing or a field has the wrong type.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(Int.self, forKey: .id)
        title = try c.decodeIfPresent(String.self, forKey: .title) ?? ""
        type = try c.decodeIfPresent(String.self, forKey: .type) ?? "illust"
        imageURLs = try c.decodeIfPresent(PixivImageURLs.self, forKey: .imageURLs) ?? PixivImageURLs()
        caption = try c.decodeIfPresent(String.self, forKey: .caption) ?? ""
        restrict = try c.decodeIfPresent(Int.self, forKey: .restrict) ?? 0
        user = try c.decodeIfPresent(PixivUser.self, forKey: .user) ?? PixivUser(id: 0, name: "", account: "")
        tags = try c.decodeIfPresent([PixivTag].self, forKey: .tags) ?? []
        tools = try c.decodeIfPresent([String].self, forKey: .tools) ?? []
        createDateText = try c.decodeIfPresent(String.self, forKey: .createDate) ?? ""
        pageCount = try c.decodeIfPresent(Int.self, forKey: .pageCount) ?? 1
        width = try c.decodeIfPresent(Int.self, forKey: .width) ?? 0
        height = try c.decodeIfPresent(Int.self, forKey: .height) ?? 0
        sanityLevel = try c.decodeIfPresent(Int.self, forKey: .sanityLevel) ?? 0
        xRestrict = try c.decodeIfPresent(Int.self, forKey: .xRestrict) ?? 0
        series = try c.decodeIfPresent(PixivSeries.self, forKey: .series)
        originalImageURL = try c.decodeIfPresent(MetaSinglePage.self, forKey: .metaSinglePage)?.original_image_url
        metaPages = try c.decodeIfPresent([PixivMetaPage].self, forKey: .metaPages) ?? []
        totalView = try c.decodeIfPresent(Int.self, forKey: .totalView) ?? 0
        totalBookmarks = try c.decodeIfPresent(Int.self, forKey: .totalBookmarks) ?? 0
        isBookmarked = try c.decodeIfPresent(Bool.self, forKey: .isBookmarked) ?? false
        isVisible = try c.decodeIfPresent(Bool.self, forKey: .visible) ?? true
        isMuted = try c.decodeIfPresent(Bool.self, forKey: .isMuted) ?? false
        illustAIType = try c.decodeIfPresent(Int.self, forKey: .illustAIType) ?? 0
        totalComments = try c.decodeIfPresent(Int.self, forKey: .totalComments)
    }
}

/// The sized image URLs of a work or page. Sizes Pixiv did not send are empty strings.
public struct PixivImageURLs: Sendable, Hashable, Decodable {
    /// 360×360 square crop.
    public var squareMedium: String
    /// 540 px on the long side.
    public var medium: String
    /// 1200 px on the long side.
    public var large: String
    /// The original file; only pages of multi-page works carry it here.
    public var original: String?

    /// Creates URLs.
    public init(squareMedium: String = "", medium: String = "", large: String = "", original: String? = nil) {
        self.squareMedium = squareMedium
        self.medium = medium
        self.large = large
        self.original = original
    }

    private enum CodingKeys: String, CodingKey {
        case squareMedium = "square_medium", medium, large, original
    }

    /// Decodes tolerantly: every size is optional.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        squareMedium = try c.decodeIfPresent(String.self, forKey: .squareMedium) ?? ""
        medium = try c.decodeIfPresent(String.self, forKey: .medium) ?? ""
        large = try c.decodeIfPresent(String.self, forKey: .large) ?? ""
        original = try c.decodeIfPresent(String.self, forKey: .original)
    }
}

/// One page of a multi-page work.
public struct PixivMetaPage: Sendable, Hashable, Decodable {
    /// The page's sized image URLs, original included.
    public var imageURLs: PixivImageURLs

    private enum CodingKeys: String, CodingKey { case imageURLs = "image_urls" }
}

/// A Pixiv user as embedded in a work or a user detail.
public struct PixivUser: Sendable, Hashable, Decodable {
    /// The user's ID.
    public var id: Int
    /// The user's display name (empty for the artist of a hidden or deleted work).
    public var name: String
    /// The user's account (login) name.
    public var account: String
    /// The profile picture URL, when sent.
    public var profileImageURL: String?
    /// Whether the signed-in user follows this user.
    public var isFollowed: Bool

    /// Creates a user.
    public init(id: Int, name: String, account: String, profileImageURL: String? = nil, isFollowed: Bool = false) {
        self.id = id
        self.name = name
        self.account = account
        self.profileImageURL = profileImageURL
        self.isFollowed = isFollowed
    }

    private enum CodingKeys: String, CodingKey {
        case id, name, account
        case profileImageURLs = "profile_image_urls"
        case isFollowed = "is_followed"
    }

    private struct ProfileImageURLs: Decodable { var medium: String? }

    /// Decodes tolerantly: only `id` is required.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(Int.self, forKey: .id)
        name = try c.decodeIfPresent(String.self, forKey: .name) ?? ""
        account = try c.decodeIfPresent(String.self, forKey: .account) ?? ""
        profileImageURL = try c.decodeIfPresent(ProfileImageURLs.self, forKey: .profileImageURLs)?.medium
        isFollowed = try c.decodeIfPresent(Bool.self, forKey: .isFollowed) ?? false
    }
}

/// An artwork tag: its name and, when Pixiv has one for the request's `Accept-Language`, its
/// translation (`translated_name` is often `null`).
public struct PixivTag: Sendable, Hashable, Decodable {
    /// The tag as the artist wrote it.
    public var name: String
    /// Pixiv's translation for the request's `Accept-Language`; `nil` when there is none.
    public var translatedName: String?

    /// Creates a tag.
    public init(name: String, translatedName: String? = nil) {
        self.name = name
        self.translatedName = translatedName
    }

    private enum CodingKeys: String, CodingKey { case name, translatedName = "translated_name" }
}

/// The series a work belongs to.
public struct PixivSeries: Sendable, Hashable, Decodable {
    /// The series' ID.
    public var id: Int
    /// The series' title.
    public var title: String
}
