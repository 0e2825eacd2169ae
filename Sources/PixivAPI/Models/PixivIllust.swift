import BookmarkJSON
import Foundation

/// An illust (illustration, manga or ugoira) as Pixiv's app API sends it.
///
/// Decoding is tolerant: unknown fields are ignored, missing optional fields take neutral
/// values, and the two page shapes (`meta_single_page` filled and `meta_pages` empty for one
/// page; the reverse for several) both decode.
///
/// Works the signed-in user can no longer see (deleted, My pixiv only, held back by their
/// sanity or age settings, unviewable) stay in the bookmark lists as placeholders:
/// ``isVisible`` `false`, an empty title, no tags, 100 × 100, sanity level 0, zero counts, and
/// every image URL (``imageURLs`` and ``originalImageURL``) pointing at a placeholder image
/// whose file name says why, for example `https://s.pximg.net/common/images/limit_mypixiv_360.png`.
/// ``invisibleReason`` is that reason; it is `nil` exactly for a work with its real images.
public struct PixivIllust: Sendable, Hashable, Decodable {
    /// Pixiv's illust ID.
    public var id: Int
    /// The title; empty for a placeholder.
    public var title: String
    /// `"illust"`, `"manga"` or `"ugoira"` (or a kind Pixiv adds later).
    public var type: String
    /// The work's sized image URLs; each one the placeholder image for a placeholder.
    public var imageURLs: PixivImageURLs
    /// The artist's caption (HTML).
    public var caption: String
    /// Pixiv's `restrict` of the work itself: 0 public, 1 My pixiv only (as Pixiv sends it for a
    /// ``InvisibleReason/myPixivOnly`` placeholder), 2 private.
    public var restrict: Int
    /// The artist; `id` 0 and an empty name for a deleted work.
    public var user: PixivUser
    /// The artwork's tags, in Pixiv's order; empty for a placeholder.
    public var tags: [PixivArtworkTag]
    /// The drawing tools the artist listed.
    public var tools: [String]
    /// Pixiv's `create_date` as sent, for example `"2024-05-01T12:34:56+09:00"`.
    public var createDateText: String
    /// How many pages the work has.
    public var pageCount: Int
    /// The first page's width in pixels (100 for a placeholder).
    public var width: Int
    /// The first page's height in pixels (100 for a placeholder).
    public var height: Int
    /// Pixiv's sanity level (2 all ages … 6 R-18; 0 for a placeholder).
    public var sanityLevel: Int
    /// 0 all ages, 1 R-18, 2 R-18G.
    public var xRestrict: Int
    /// The series the work belongs to (manga), if any.
    public var series: PixivSeries?
    /// The original image URL of a single-page work (the placeholder image for a placeholder);
    /// `nil` for multi-page works.
    public var originalImageURL: String?
    /// The pages of a multi-page work; empty for single-page works.
    public var metaPages: [PixivMetaPage]
    /// How many times the work was viewed.
    public var totalView: Int
    /// How many users have bookmarked the work.
    public var totalBookmarks: Int
    /// Whether the signed-in user has bookmarked it.
    public var isBookmarked: Bool
    /// Pixiv's `visible`: `false` for a placeholder. ``invisibleReason`` says why, and is the
    /// better test for "no content": it also catches a placeholder Pixiv marks visible.
    public var isVisible: Bool
    /// Whether the signed-in user muted the work or its artist.
    public var isMuted: Bool
    /// 0 unknown, 1 not AI-generated, 2 AI-generated.
    public var illustAIType: Int
    /// How many comments the work has, when sent.
    public var totalComments: Int?
    /// Why Pixiv sent this work as a placeholder; `nil` for a work with its real images.
    ///
    /// Read from the placeholder file names in the image URLs (``imageURLs``,
    /// ``originalImageURL`` and the pages' URLs), the first placeholder found deciding;
    /// `limit_unknown` means ``InvisibleReason/deleted`` when ``user`` has ID 0, else
    /// ``InvisibleReason/unknown``. A work sent with `visible: false` but no placeholder it
    /// recognizes is ``InvisibleReason/unknown``.
    ///
    /// A placeholder on a work Pixiv marks *visible* still gives its reason: the images Pixiv
    /// sent are not the work's whatever the flag says, so an app must not show or keep them as
    /// its content (public clients such as gallery-dl also go by the image URL alone, without
    /// looking at `visible`).
    public var invisibleReason: InvisibleReason?

    /// `create_date` parsed; `nil` when Pixiv sent something unparsable.
    public var createDate: Date? {
        PixivDate.parse(createDateText)
    }

    /// The fields, in the order Pixiv writes them (what ``JSONFields`` tries first).
    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, title, type
        case imageURLs = "image_urls"
        case caption, restrict, user, tags, tools
        case createDate = "create_date"
        case pageCount = "page_count"
        case width, height
        case sanityLevel = "sanity_level"
        case xRestrict = "x_restrict"
        case series
        case metaSinglePage = "meta_single_page"
        case metaPages = "meta_pages"
        case totalView = "total_view"
        case totalBookmarks = "total_bookmarks"
        case isBookmarked = "is_bookmarked"
        case visible
        case isMuted = "is_muted"
        case illustAIType = "illust_ai_type"
        case totalComments = "total_comments"
    }

    /// `meta_single_page`: the original of a single-page work.
    struct MetaSinglePage: Decodable {
        var original_image_url: String?

        enum CodingKeys: String, CodingKey, CaseIterable { case original_image_url }
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
        tags = try c.decodeIfPresent([PixivArtworkTag].self, forKey: .tags) ?? []
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
        invisibleReason = Self.invisibleReason(
            isVisible: isVisible, userID: user.id, imageURLs: imageURLs, originalImageURL: originalImageURL, metaPages: metaPages
        )
    }

    /// The reason of the first placeholder among the work's image URLs (its sizes, its
    /// original, then each page's sizes and original); else `.unknown` for a work Pixiv marks
    /// invisible, `nil` for one it marks visible.
    static func invisibleReason(
        isVisible: Bool, userID: Int, imageURLs: PixivImageURLs, originalImageURL: String?, metaPages: [PixivMetaPage]
    ) -> InvisibleReason? {
        func placeholder(_ urls: PixivImageURLs, original: String?) -> InvisibleReason? {
            InvisibleReason(placeholderURL: urls.squareMedium, userID: userID)
                ?? InvisibleReason(placeholderURL: urls.medium, userID: userID)
                ?? InvisibleReason(placeholderURL: urls.large, userID: userID)
                ?? original.flatMap { InvisibleReason(placeholderURL: $0, userID: userID) }
        }
        if let reason = placeholder(imageURLs, original: originalImageURL) { return reason }
        for page in metaPages {
            if let reason = placeholder(page.imageURLs, original: page.imageURLs.original) { return reason }
        }
        return isVisible ? nil : .unknown
    }
}

extension PixivIllust {
    /// Why Pixiv sends a bookmarked work as a placeholder instead of its content.
    ///
    /// Pixiv says why only through the file name of the placeholder image it puts in every image
    /// URL of such a work, `https://s.pximg.net/common/images/limit_<kind>_360.png`.
    public enum InvisibleReason: String, Sendable, Hashable, CaseIterable {
        /// The work was deleted: `limit_unknown_360.png` with `user.id` 0. Pixiv answers 404 for
        /// it everywhere else.
        case deleted
        /// Only the artist's My pixiv friends may see it: `limit_mypixiv_360.png` (and the
        /// work's `restrict` is 1).
        case myPixivOnly
        /// The signed-in user's sanity-level or age settings hold it back:
        /// `limit_sanity_level_360.png`.
        case sanityLimited
        /// Pixiv does not let the signed-in user see it: `limit_unviewable_360.png`.
        case unviewable
        /// Pixiv did not say: `limit_unknown_360.png` on a work whose artist is still there
        /// (`user.id` not 0), a `limit_` file name this client does not know, or
        /// `visible: false` with no placeholder at all.
        case unknown
        /// The signed-in user's own age setting hides this R-18 work: `limit_r18_360.png`. It is
        /// still bookmarked, and shows again once the user turns on R-18 display on pixiv.net.
        case hiddenByR18Setting
        /// The same for an R-18G work: `limit_r18g_360.png`; R-18G display on pixiv.net shows it.
        case hiddenByR18GSetting
    }
}

extension PixivIllust.InvisibleReason {
    /// The placeholder image URL Pixiv sends for this reason. ``deleted`` and ``unknown`` share
    /// `limit_unknown_360.png`; `user.id` 0 tells them apart.
    package var placeholderImageURL: String {
        "https://s.pximg.net/common/images/limit_\(placeholderKind)_360.png"
    }

    /// The `<kind>` of this reason's `limit_<kind>_360.png`.
    private var placeholderKind: String {
        switch self {
        case .deleted, .unknown: "unknown"
        case .myPixivOnly: "mypixiv"
        case .sanityLimited: "sanity_level"
        case .unviewable: "unviewable"
        case .hiddenByR18Setting: "r18"
        case .hiddenByR18GSetting: "r18g"
        }
    }

    /// The reason the placeholder image `url` names, or `nil` when `url` is no placeholder.
    ///
    /// A placeholder is a file named `limit_<kind>…` (any size suffix, extension or query), a
    /// name no real work's image has (those start with the illust ID). `userID` is the work's
    /// `user.id`: with `limit_unknown` it tells ``deleted`` (0) from ``unknown``. A `limit_` kind
    /// not known here is ``unknown``.
    package init?(placeholderURL url: String, userID: Int) {
        // On the contiguous UTF-8 bytes, not Characters: this runs for every image URL of every
        // work a page holds, and the URLs are ASCII.
        guard let reason = url.withUTF8Bytes({ Self.reason(placeholderPath: $0.assumingMemoryBound(to: UInt8.self), userID: userID) }) else {
            return nil
        }
        self = reason
    }

    private static func reason(placeholderPath bytes: UnsafeBufferPointer<UInt8>, userID: Int) -> Self? {
        // A real work's URL has no `limit_` in it at all: found (or not) at memchr's speed
        // before the URL is taken apart.
        guard firstOffset(of: "limit_", in: UnsafeRawBufferPointer(bytes)) != nil else { return nil }
        let pathEnd = firstOffset(of: UInt8(ascii: "?"), or: UInt8(ascii: "#"), in: UnsafeRawBufferPointer(bytes))
        guard let slash = bytes[..<pathEnd].lastIndex(of: UInt8(ascii: "/")) else { return nil }
        let name = bytes[(slash + 1)..<pathEnd]
        guard name.starts(with: "limit_".utf8) else { return nil }
        let kind = name.dropFirst("limit_".utf8.count)
        func names(_ word: StaticString) -> Bool {
            let word = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
            guard kind.starts(with: word) else { return false }
            let next = kind.dropFirst(word.count).first
            return next == nil || next == UInt8(ascii: "_") || next == UInt8(ascii: ".")
        }
        if names("mypixiv") { return .myPixivOnly }
        if names("sanity_level") { return .sanityLimited }
        if names("unviewable") { return .unviewable }
        if names("r18") { return .hiddenByR18Setting }
        if names("r18g") { return .hiddenByR18GSetting }
        if names("unknown") && userID == 0 { return .deleted }
        return .unknown
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

    enum CodingKeys: String, CodingKey, CaseIterable {
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

    enum CodingKeys: String, CodingKey, CaseIterable { case imageURLs = "image_urls" }
}

/// A Pixiv user as embedded in a work or a user detail.
public struct PixivUser: Sendable, Hashable, Decodable {
    /// The user's ID.
    public var id: Int
    /// The user's display name (empty for the artist of a work sent as a placeholder).
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

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, name, account
        case profileImageURLs = "profile_image_urls"
        case isFollowed = "is_followed"
    }

    /// `profile_image_urls`: the one size this client keeps.
    struct ProfileImageURLs: Decodable {
        var medium: String?

        enum CodingKeys: String, CodingKey, CaseIterable { case medium }
    }

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
public struct PixivArtworkTag: Sendable, Hashable, Decodable {
    /// The tag as the artist wrote it.
    public var name: String
    /// Pixiv's translation for the request's `Accept-Language`; `nil` when there is none.
    public var translatedName: String?

    /// Creates a tag.
    public init(name: String, translatedName: String? = nil) {
        self.name = name
        self.translatedName = translatedName
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case name, translatedName = "translated_name" }
}

/// The series a work belongs to.
public struct PixivSeries: Sendable, Hashable, Decodable {
    /// The series' ID.
    public var id: Int
    /// The series' title.
    public var title: String

    enum CodingKeys: String, CodingKey, CaseIterable { case id, title }
}
