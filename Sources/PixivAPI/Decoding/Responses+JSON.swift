import BookmarkJSON
import Foundation

// The client's responses, field by field as their `init(from:)` decode them.

extension BookmarksPage: PixivJSONReadable {
    init(json reader: inout JSONReader) throws {
        var illusts: [PixivIllust]?, nextURL: URL?, seen = SeenFields()
        try reader.readObject { reader, key in
            if key.equals("illusts") {
                try seen.insert(0)
                illusts = try reader.readArray(of: PixivIllust.init(json:))
            } else if key.equals("next_url") {
                try seen.insert(1)
                nextURL = try reader.readNextURL()
            } else {
                try reader.skipValue()
            }
        }
        self.init(illusts: try reader.required(illusts, "illusts"), nextURL: nextURL)
    }
}

extension BookmarkTagsPage: PixivJSONReadable {
    init(json reader: inout JSONReader) throws {
        var tags: [BookmarkTag]?, nextURL: URL?, seen = SeenFields()
        try reader.readObject { reader, key in
            if key.equals("bookmark_tags") {
                try seen.insert(0)
                tags = try reader.readArray(of: BookmarkTag.init(json:))
            } else if key.equals("next_url") {
                try seen.insert(1)
                nextURL = try reader.readNextURL()
            } else {
                try reader.skipValue()
            }
        }
        self.tags = try reader.required(tags, "bookmark_tags")
        self.nextURL = nextURL
    }
}

extension BookmarkTagsPage.BookmarkTag {
    init(json reader: inout JSONReader) throws {
        var name: String?, count: Int?, seen = SeenFields()
        try reader.readObject { reader, key in
            if key.equals("name") {
                try seen.insert(0)
                name = try reader.readString()
            } else if key.equals("count") {
                try seen.insert(1)
                count = try reader.readInt()
            } else {
                try reader.skipValue()
            }
        }
        self.init(name: try reader.required(name, "name"), count: try reader.required(count, "count"))
    }
}

extension BookmarkDetailEnvelope: PixivJSONReadable {
    init(json reader: inout JSONReader) throws {
        var detail: BookmarkDetail?, seen = SeenFields()
        try reader.readObject { reader, key in
            if key.equals("bookmark_detail") {
                try seen.insert(0)
                detail = try BookmarkDetail(json: &reader)
            } else {
                try reader.skipValue()
            }
        }
        self.init(bookmark_detail: try reader.required(detail, "bookmark_detail"))
    }
}

extension BookmarkDetail {
    init(json reader: inout JSONReader) throws {
        var isBookmarked = false, restrict: BookmarkRestrict?, tags: [BookmarkTag] = [], seen = SeenFields()
        try reader.readObject { reader, key in
            if key.equals("is_bookmarked") {
                try seen.insert(0)
                isBookmarked = try reader.readIfPresent { try $0.readBool() } ?? false
            } else if key.equals("restrict") {
                try seen.insert(1)
                restrict = try reader.readIfPresent { try $0.readString() }.flatMap(BookmarkRestrict.init(rawValue:))
            } else if key.equals("tags") {
                try seen.insert(2)
                tags = try reader.readIfPresent { try $0.readArray(of: BookmarkTag.init(json:)) } ?? []
            } else {
                try reader.skipValue()
            }
        }
        self.isBookmarked = isBookmarked
        self.restrict = restrict
        self.tags = tags
    }
}

extension BookmarkDetail.BookmarkTag {
    init(json reader: inout JSONReader) throws {
        var name: String?, isRegistered: Bool?, seen = SeenFields()
        try reader.readObject { reader, key in
            if key.equals("name") {
                try seen.insert(0)
                name = try reader.readString()
            } else if key.equals("is_registered") {
                try seen.insert(1)
                isRegistered = try reader.readBool()
            } else {
                try reader.skipValue()
            }
        }
        self.init(name: try reader.required(name, "name"), isRegistered: try reader.required(isRegistered, "is_registered"))
    }
}

extension UserDetail: PixivJSONReadable {
    init(json reader: inout JSONReader) throws {
        var user: PixivUser?, profile: Profile?, seen = SeenFields()
        try reader.readObject { reader, key in
            if key.equals("user") {
                try seen.insert(0)
                user = try PixivUser(json: &reader)
            } else if key.equals("profile") {
                try seen.insert(1)
                profile = try Profile(json: &reader)
            } else {
                try reader.skipValue()
            }
        }
        self.init(user: try reader.required(user, "user"), profile: try reader.required(profile, "profile"))
    }
}

extension UserDetail.Profile {
    init(json reader: inout JSONReader) throws {
        var counts = [0, 0, 0, 0], seen = SeenFields()
        try reader.readObject { reader, key in
            let field: Int
            if key.equals("total_illust_bookmarks_public") {
                field = 0
            } else if key.equals("total_illusts") {
                field = 1
            } else if key.equals("total_manga") {
                field = 2
            } else if key.equals("total_follow_users") {
                field = 3
            } else {
                return try reader.skipValue()
            }
            try seen.insert(field)
            counts[field] = try reader.readIfPresent { try $0.readInt() } ?? 0
        }
        totalIllustBookmarksPublic = counts[0]
        totalIllusts = counts[1]
        totalManga = counts[2]
        totalFollowUsers = counts[3]
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
