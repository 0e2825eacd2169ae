import Foundation

/// Which of a user's bookmark lists a request is about, spelled as Pixiv spells `restrict`.
public enum BookmarkRestrict: String, Sendable, Hashable, CaseIterable, Decodable {
    /// The user's public bookmarks.
    case `public`
    /// The user's private bookmarks, visible only to the user.
    case `private`
}

/// One page of a user's illust bookmarks: at most 30 works, newest bookmark first.
public struct BookmarksPage: Sendable, Hashable, Decodable {
    /// The works on this page.
    public var illusts: [PixivIllust]
    /// The next (older) page, exactly as Pixiv sent it; `nil` on the last page.
    public var nextURL: URL?

    /// Creates a page.
    public init(illusts: [PixivIllust], nextURL: URL?) {
        self.illusts = illusts
        self.nextURL = nextURL
    }

    /// How many works Pixiv sends on a full page.
    static let pageSize = 30

    enum CodingKeys: String, CodingKey, CaseIterable { case illusts, nextURL = "next_url" }

    /// Decodes Pixiv's `{"illusts":[…],"next_url":…}`; a missing, `null` or empty `next_url`
    /// means there is no next page.
    ///
    /// A `next_url` that is not an absolute http(s) URL fails to decode: taking it for the last
    /// page would end a full walk early and prune every bookmark after it.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        illusts = try c.decode([PixivIllust].self, forKey: .illusts)
        nextURL = try decodeNextURL(c, forKey: .nextURL)
    }
}

/// Whether the signed-in user has bookmarked a work, in which list, and with which bookmark tags.
public struct BookmarkDetail: Sendable, Hashable, Decodable {
    /// Whether the work is bookmarked.
    public var isBookmarked: Bool
    /// The list it is in; `nil` when not bookmarked.
    public var restrict: BookmarkRestrict?
    /// The tags the user could attach, with those attached marked.
    public var tags: [BookmarkTag]

    /// A candidate bookmark tag.
    public struct BookmarkTag: Sendable, Hashable, Decodable {
        /// The tag.
        public var name: String
        /// Whether the tag is attached to this bookmark.
        public var isRegistered: Bool

        enum CodingKeys: String, CodingKey, CaseIterable { case name, isRegistered = "is_registered" }
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case isBookmarked = "is_bookmarked", restrict, tags }

    /// Decodes the inner object of `{"bookmark_detail":{…}}`; an unknown `restrict` is `nil`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        isBookmarked = try c.decodeIfPresent(Bool.self, forKey: .isBookmarked) ?? false
        restrict = try c.decodeIfPresent(String.self, forKey: .restrict).flatMap(BookmarkRestrict.init(rawValue:))
        tags = try c.decodeIfPresent([BookmarkTag].self, forKey: .tags) ?? []
    }
}

/// One page of the user's own bookmark tags with how many bookmarks carry each.
public struct BookmarkTagsPage: Sendable, Hashable, Decodable {
    /// A bookmark tag and its use count.
    public struct BookmarkTag: Sendable, Hashable, Decodable {
        /// The tag.
        public var name: String
        /// How many bookmarks carry it.
        public var count: Int

        enum CodingKeys: String, CodingKey, CaseIterable { case name, count }
    }

    /// The tags on this page.
    public var tags: [BookmarkTag]
    /// The next page, exactly as Pixiv sent it; `nil` on the last page.
    public var nextURL: URL?

    enum CodingKeys: String, CodingKey, CaseIterable { case tags = "bookmark_tags", nextURL = "next_url" }

    /// Decodes Pixiv's `{"bookmark_tags":[…],"next_url":…}`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        tags = try c.decode([BookmarkTag].self, forKey: .tags)
        nextURL = try decodeNextURL(c, forKey: .nextURL)
    }
}

/// A user's detail: who they are and the counts on their profile.
public struct UserDetail: Sendable, Hashable, Decodable {
    /// The user.
    public var user: PixivUser
    /// The profile's counts.
    public var profile: Profile

    enum CodingKeys: String, CodingKey, CaseIterable { case user, profile }

    /// The counts on a user's profile.
    public struct Profile: Sendable, Hashable, Decodable {
        /// How many public illust bookmarks the user has (Pixiv does not publish the private count).
        public var totalIllustBookmarksPublic: Int
        /// How many illusts the user has posted.
        public var totalIllusts: Int
        /// How many manga the user has posted.
        public var totalManga: Int
        /// How many users the user follows.
        public var totalFollowUsers: Int

        enum CodingKeys: String, CodingKey, CaseIterable {
            case totalIllustBookmarksPublic = "total_illust_bookmarks_public"
            case totalIllusts = "total_illusts"
            case totalManga = "total_manga"
            case totalFollowUsers = "total_follow_users"
        }

        /// Decodes tolerantly: missing counts are 0.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            totalIllustBookmarksPublic = try c.decodeIfPresent(Int.self, forKey: .totalIllustBookmarksPublic) ?? 0
            totalIllusts = try c.decodeIfPresent(Int.self, forKey: .totalIllusts) ?? 0
            totalManga = try c.decodeIfPresent(Int.self, forKey: .totalManga) ?? 0
            totalFollowUsers = try c.decodeIfPresent(Int.self, forKey: .totalFollowUsers) ?? 0
        }
    }
}

/// `{"bookmark_detail":{…}}`.
struct BookmarkDetailEnvelope: Decodable, Equatable {
    var bookmark_detail: BookmarkDetail

    enum CodingKeys: String, CodingKey, CaseIterable { case bookmark_detail }
}

/// A page's `next_url`: `nil` when missing, `null` or empty; an error when it is anything but an
/// absolute http(s) URL.
func decodeNextURL<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, forKey key: Key) throws -> URL? {
    guard let text = try container.decodeIfPresent(String.self, forKey: key), !text.isEmpty else { return nil }
    guard let url = nextURL(text) else {
        throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "next_url is not an absolute http(s) URL: \(text.prefix(200))")
    }
    return url
}

/// The URL a non-empty `next_url` names, when it is an absolute http(s) URL; `nil` otherwise.
func nextURL(_ text: String) -> URL? {
    guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
          url.host != nil else { return nil }
    return url
}
