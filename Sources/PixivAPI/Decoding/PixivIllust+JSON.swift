import BookmarkJSON

// Pixiv's illust, field by field as `PixivIllust.init(from:)` decodes it: the same fields
// required, the same defaults for a field missing or `null`, unknown fields skipped.

extension PixivIllust: PixivJSONReadable {
    init(json reader: inout JSONReader) throws {
        var id: Int?, title = "", type = "illust", imageURLs = PixivImageURLs(), caption = "", restrict = 0
        var user = PixivUser(id: 0, name: "", account: ""), tags: [PixivArtworkTag] = [], tools: [String] = []
        var createDateText = "", pageCount = 1, width = 0, height = 0, sanityLevel = 0, xRestrict = 0
        var series: PixivSeries?, originalImageURL: String?, metaPages: [PixivMetaPage] = []
        var totalView = 0, totalBookmarks = 0, isBookmarked = false, isVisible = true, isMuted = false
        var illustAIType = 0, totalComments: Int?
        var seen = SeenFields()
        try reader.readObject { reader, key in
            func integer(_ field: Int) throws -> Int? {
                try seen.insert(field)
                return try reader.readIfPresent { try $0.readInt() }
            }
            func text(_ field: Int) throws -> String? {
                try seen.insert(field)
                return try reader.readIfPresent { try $0.readString() }
            }
            func flag(_ field: Int) throws -> Bool? {
                try seen.insert(field)
                return try reader.readIfPresent { try $0.readBool() }
            }
            if key.equals("id") {
                try seen.insert(0)
                id = try reader.readInt()
            } else if key.equals("title") {
                title = try text(1) ?? ""
            } else if key.equals("type") {
                type = try text(2) ?? "illust"
            } else if key.equals("image_urls") {
                try seen.insert(3)
                imageURLs = try reader.readIfPresent(PixivImageURLs.init(json:)) ?? PixivImageURLs()
            } else if key.equals("caption") {
                caption = try text(4) ?? ""
            } else if key.equals("restrict") {
                restrict = try integer(5) ?? 0
            } else if key.equals("user") {
                try seen.insert(6)
                user = try reader.readIfPresent(PixivUser.init(json:)) ?? PixivUser(id: 0, name: "", account: "")
            } else if key.equals("tags") {
                try seen.insert(7)
                tags = try reader.readIfPresent { try $0.readArray(of: PixivArtworkTag.init(json:)) } ?? []
            } else if key.equals("tools") {
                try seen.insert(8)
                tools = try reader.readIfPresent { try $0.readArray { try $0.readString() } } ?? []
            } else if key.equals("create_date") {
                createDateText = try text(9) ?? ""
            } else if key.equals("page_count") {
                pageCount = try integer(10) ?? 1
            } else if key.equals("width") {
                width = try integer(11) ?? 0
            } else if key.equals("height") {
                height = try integer(12) ?? 0
            } else if key.equals("sanity_level") {
                sanityLevel = try integer(13) ?? 0
            } else if key.equals("x_restrict") {
                xRestrict = try integer(14) ?? 0
            } else if key.equals("series") {
                try seen.insert(15)
                series = try reader.readIfPresent(PixivSeries.init(json:))
            } else if key.equals("meta_single_page") {
                try seen.insert(16)
                originalImageURL = try reader.readIfPresent(Self.readOriginalImageURL) ?? nil
            } else if key.equals("meta_pages") {
                try seen.insert(17)
                metaPages = try reader.readIfPresent { try $0.readArray(of: PixivMetaPage.init(json:)) } ?? []
            } else if key.equals("total_view") {
                totalView = try integer(18) ?? 0
            } else if key.equals("total_bookmarks") {
                totalBookmarks = try integer(19) ?? 0
            } else if key.equals("is_bookmarked") {
                isBookmarked = try flag(20) ?? false
            } else if key.equals("visible") {
                isVisible = try flag(21) ?? true
            } else if key.equals("is_muted") {
                isMuted = try flag(22) ?? false
            } else if key.equals("illust_ai_type") {
                illustAIType = try integer(23) ?? 0
            } else if key.equals("total_comments") {
                totalComments = try integer(24)
            } else {
                try reader.skipValue()
            }
        }
        self.id = try reader.required(id, "id")
        self.title = title
        self.type = type
        self.imageURLs = imageURLs
        self.caption = caption
        self.restrict = restrict
        self.user = user
        self.tags = tags
        self.tools = tools
        self.createDateText = createDateText
        self.pageCount = pageCount
        self.width = width
        self.height = height
        self.sanityLevel = sanityLevel
        self.xRestrict = xRestrict
        self.series = series
        self.originalImageURL = originalImageURL
        self.metaPages = metaPages
        self.totalView = totalView
        self.totalBookmarks = totalBookmarks
        self.isBookmarked = isBookmarked
        self.isVisible = isVisible
        self.isMuted = isMuted
        self.illustAIType = illustAIType
        self.totalComments = totalComments
        invisibleReason = Self.invisibleReason(
            isVisible: isVisible, userID: user.id,
            imageURLs: [imageURLs.squareMedium, imageURLs.medium, imageURLs.large, originalImageURL ?? ""]
                + metaPages.flatMap { [$0.imageURLs.squareMedium, $0.imageURLs.medium, $0.imageURLs.large, $0.imageURLs.original ?? ""] }
        )
    }

    /// `meta_single_page`'s `original_image_url`, which may be missing or `null`.
    private static func readOriginalImageURL(_ reader: inout JSONReader) throws -> String? {
        var url: String?, seen = SeenFields()
        try reader.readObject { reader, key in
            if key.equals("original_image_url") {
                try seen.insert(0)
                url = try reader.readIfPresent { try $0.readString() }
            } else {
                try reader.skipValue()
            }
        }
        return url
    }
}

extension PixivImageURLs: PixivJSONReadable {
    init(json reader: inout JSONReader) throws {
        self.init()
        var seen = SeenFields()
        try reader.readObject { reader, key in
            func text(_ field: Int) throws -> String? {
                try seen.insert(field)
                return try reader.readIfPresent { try $0.readString() }
            }
            if key.equals("square_medium") {
                squareMedium = try text(0) ?? ""
            } else if key.equals("medium") {
                medium = try text(1) ?? ""
            } else if key.equals("large") {
                large = try text(2) ?? ""
            } else if key.equals("original") {
                original = try text(3)
            } else {
                try reader.skipValue()
            }
        }
    }
}

extension PixivMetaPage: PixivJSONReadable {
    init(json reader: inout JSONReader) throws {
        var imageURLs: PixivImageURLs?, seen = SeenFields()
        try reader.readObject { reader, key in
            if key.equals("image_urls") {
                try seen.insert(0)
                imageURLs = try PixivImageURLs(json: &reader)
            } else {
                try reader.skipValue()
            }
        }
        self.imageURLs = try reader.required(imageURLs, "image_urls")
    }
}

extension PixivUser: PixivJSONReadable {
    init(json reader: inout JSONReader) throws {
        var id: Int?, name = "", account = "", profileImageURL: String?, isFollowed = false
        var seen = SeenFields()
        try reader.readObject { reader, key in
            if key.equals("id") {
                try seen.insert(0)
                id = try reader.readInt()
            } else if key.equals("name") {
                try seen.insert(1)
                name = try reader.readIfPresent { try $0.readString() } ?? ""
            } else if key.equals("account") {
                try seen.insert(2)
                account = try reader.readIfPresent { try $0.readString() } ?? ""
            } else if key.equals("profile_image_urls") {
                try seen.insert(3)
                profileImageURL = try reader.readIfPresent(Self.readMedium) ?? nil
            } else if key.equals("is_followed") {
                try seen.insert(4)
                isFollowed = try reader.readIfPresent { try $0.readBool() } ?? false
            } else {
                try reader.skipValue()
            }
        }
        self.init(id: try reader.required(id, "id"), name: name, account: account, profileImageURL: profileImageURL, isFollowed: isFollowed)
    }

    /// `profile_image_urls`' `medium`, which may be missing or `null`.
    private static func readMedium(_ reader: inout JSONReader) throws -> String? {
        var medium: String?, seen = SeenFields()
        try reader.readObject { reader, key in
            if key.equals("medium") {
                try seen.insert(0)
                medium = try reader.readIfPresent { try $0.readString() }
            } else {
                try reader.skipValue()
            }
        }
        return medium
    }
}

extension PixivArtworkTag: PixivJSONReadable {
    init(json reader: inout JSONReader) throws {
        var name: String?, translatedName: String?, seen = SeenFields()
        try reader.readObject { reader, key in
            if key.equals("name") {
                try seen.insert(0)
                name = try reader.readString()
            } else if key.equals("translated_name") {
                try seen.insert(1)
                translatedName = try reader.readIfPresent { try $0.readString() }
            } else {
                try reader.skipValue()
            }
        }
        self.init(name: try reader.required(name, "name"), translatedName: translatedName)
    }
}

extension PixivSeries: PixivJSONReadable {
    init(json reader: inout JSONReader) throws {
        var id: Int?, title: String?, seen = SeenFields()
        try reader.readObject { reader, key in
            if key.equals("id") {
                try seen.insert(0)
                id = try reader.readInt()
            } else if key.equals("title") {
                try seen.insert(1)
                title = try reader.readString()
            } else {
                try reader.skipValue()
            }
        }
        self.init(id: try reader.required(id, "id"), title: try reader.required(title, "title"))
    }
}
