import BookmarkJSON
import Foundation

// The client's responses, field by field as their `init(from:)` decode them (their
// `CodingKeys`).

extension BookmarksPage: PixivJSONReadable {
    init(json reader: inout JSONReader) throws {
        let page = try reader.readBookmarksPage(PixivIllust.init(json:))
        self.init(illusts: page.illusts, nextURL: page.nextURL)
    }
}

/// The fields of a page of bookmarks.
private let bookmarksPageFields = JSONFields<BookmarksPage.CodingKeys>()

extension JSONReader {
    /// A page of bookmarks, `{"illusts":[…],"next_url":…}`, each of its works read by `illust`
    /// (a whole ``PixivIllust``, or a ``PixivIllustSummary``).
    mutating func readBookmarksPage<Illust>(_ illust: (inout JSONReader) throws -> Illust) throws -> (illusts: [Illust], nextURL: URL?) {
        var illusts: [Illust]?, nextURL: URL?
        try readObject(bookmarksPageFields) { reader, field in
            switch field {
            case .illusts: illusts = try reader.readArray(of: illust, reservingCapacity: BookmarksPage.pageSize)
            case .nextURL: nextURL = try reader.readNextURL()
            }
        }
        return (try required(illusts, "illusts"), nextURL)
    }
}

extension BookmarkTagsPage: PixivJSONReadable {
    private static let fields = JSONFields<CodingKeys>()

    init(json reader: inout JSONReader) throws {
        var tags: [BookmarkTag]?, nextURL: URL?
        try reader.readObject(Self.fields) { reader, field in
            switch field {
            case .tags: tags = try reader.readArray(of: BookmarkTag.init(json:))
            case .nextURL: nextURL = try reader.readNextURL()
            }
        }
        self.tags = try reader.required(tags, "bookmark_tags")
        self.nextURL = nextURL
    }
}

extension BookmarkTagsPage.BookmarkTag {
    private static let fields = JSONFields<CodingKeys>()

    init(json reader: inout JSONReader) throws {
        var name: String?, count: Int?
        try reader.readObject(Self.fields) { reader, field in
            switch field {
            case .name: name = try reader.readString()
            case .count: count = try reader.readInt()
            }
        }
        self.init(name: try reader.required(name, "name"), count: try reader.required(count, "count"))
    }
}

extension BookmarkDetailEnvelope: PixivJSONReadable {
    private static let fields = JSONFields<CodingKeys>()

    init(json reader: inout JSONReader) throws {
        var detail: BookmarkDetail?
        try reader.readObject(Self.fields) { reader, field in
            switch field {
            case .bookmark_detail: detail = try BookmarkDetail(json: &reader)
            }
        }
        self.init(bookmark_detail: try reader.required(detail, "bookmark_detail"))
    }
}

extension BookmarkDetail {
    private static let fields = JSONFields<CodingKeys>()

    init(json reader: inout JSONReader) throws {
        var isBookmarked = false, restrict: BookmarkRestrict?, tags: [BookmarkTag] = []
        try reader.readObject(Self.fields) { reader, field in
            switch field {
            case .isBookmarked: isBookmarked = try reader.readOptionalBool() ?? false
            case .restrict: restrict = try reader.readOptionalString().flatMap(BookmarkRestrict.init(rawValue:))
            case .tags: tags = try reader.readIfPresent { try $0.readArray(of: BookmarkTag.init(json:)) } ?? []
            }
        }
        self.isBookmarked = isBookmarked
        self.restrict = restrict
        self.tags = tags
    }
}

extension BookmarkDetail.BookmarkTag {
    private static let fields = JSONFields<CodingKeys>()

    init(json reader: inout JSONReader) throws {
        var name: String?, isRegistered: Bool?
        try reader.readObject(Self.fields) { reader, field in
            switch field {
            case .name: name = try reader.readString()
            case .isRegistered: isRegistered = try reader.readBool()
            }
        }
        self.init(name: try reader.required(name, "name"), isRegistered: try reader.required(isRegistered, "is_registered"))
    }
}

extension UserDetail: PixivJSONReadable {
    private static let fields = JSONFields<CodingKeys>()

    init(json reader: inout JSONReader) throws {
        var user: PixivUser?, profile: Profile?
        try reader.readObject(Self.fields) { reader, field in
            switch field {
            case .user: user = try PixivUser(json: &reader)
            case .profile: profile = try Profile(json: &reader)
            }
        }
        self.init(user: try reader.required(user, "user"), profile: try reader.required(profile, "profile"))
    }
}

extension UserDetail.Profile {
    private static let fields = JSONFields<CodingKeys>()

    init(json reader: inout JSONReader) throws {
        var counts: [CodingKeys: Int] = [:]
        try reader.readObject(Self.fields) { reader, field in
            counts[field] = try reader.readOptionalInt() ?? 0
        }
        totalIllustBookmarksPublic = counts[.totalIllustBookmarksPublic] ?? 0
        totalIllusts = counts[.totalIllusts] ?? 0
        totalManga = counts[.totalManga] ?? 0
        totalFollowUsers = counts[.totalFollowUsers] ?? 0
    }
}

extension JSONReader {
    /// A page's `next_url` as `decodeNextURL` reads it: `nil` for `null` or an empty string;
    /// refused when it is not an absolute http(s) URL.
    mutating func readNextURL() throws -> URL? {
        guard let text = try readIfPresent({ try $0.readString() }), !text.isEmpty else { return nil }
        guard let url = nextURL(text) else { throw error("next_url is not an absolute http(s) URL") }
        return url
    }
}
