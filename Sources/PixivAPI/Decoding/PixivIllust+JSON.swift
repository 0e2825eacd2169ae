import BookmarkJSON

// Pixiv's illust, field by field as `PixivIllust.init(from:)` decodes it: the same fields
// (its `CodingKeys`) required, the same defaults for a field missing or `null`, unknown fields
// skipped.

extension PixivIllust: PixivJSONReadable {
    private static let fields = JSONFields<CodingKeys>()

    init(json reader: inout JSONReader) throws {
        var id: Int?, title = "", type = "illust", imageURLs = PixivImageURLs(), caption = "", restrict = 0
        var user = PixivUser(id: 0, name: "", account: ""), tags: [PixivArtworkTag] = [], tools: [String] = []
        var createDateText = "", pageCount = 1, width = 0, height = 0, sanityLevel = 0, xRestrict = 0
        var series: PixivSeries?, originalImageURL: String?, metaPages: [PixivMetaPage] = []
        var totalView = 0, totalBookmarks = 0, isBookmarked = false, isVisible = true, isMuted = false
        var illustAIType = 0, totalComments: Int?
        try reader.readObject(Self.fields) { reader, field in
            switch field {
            case .id: id = try reader.readInt()
            case .title: title = try reader.readOptionalString() ?? ""
            case .type: type = try reader.readOptionalString() ?? "illust"
            case .imageURLs: imageURLs = try reader.readIfPresent(PixivImageURLs.init(json:)) ?? PixivImageURLs()
            case .caption: caption = try reader.readOptionalString() ?? ""
            case .restrict: restrict = try reader.readOptionalInt() ?? 0
            case .user: user = try reader.readIfPresent(PixivUser.init(json:)) ?? PixivUser(id: 0, name: "", account: "")
            // Pixiv lets a work carry at most 10 tags.
            case .tags: tags = try reader.readIfPresent { try $0.readArray(of: PixivArtworkTag.init(json:), reservingCapacity: 10) } ?? []
            case .tools: tools = try reader.readIfPresent { try $0.readArray { try $0.readString() } } ?? []
            case .createDate: createDateText = try reader.readOptionalString() ?? ""
            case .pageCount: pageCount = try reader.readOptionalInt() ?? 1
            case .width: width = try reader.readOptionalInt() ?? 0
            case .height: height = try reader.readOptionalInt() ?? 0
            case .sanityLevel: sanityLevel = try reader.readOptionalInt() ?? 0
            case .xRestrict: xRestrict = try reader.readOptionalInt() ?? 0
            case .series: series = try reader.readIfPresent(PixivSeries.init(json:))
            case .metaSinglePage: originalImageURL = try reader.readIfPresent(Self.readOriginalImageURL) ?? nil
            case .metaPages: metaPages = try reader.readIfPresent { try $0.readArray(of: PixivMetaPage.init(json:)) } ?? []
            case .totalView: totalView = try reader.readOptionalInt() ?? 0
            case .totalBookmarks: totalBookmarks = try reader.readOptionalInt() ?? 0
            case .isBookmarked: isBookmarked = try reader.readOptionalBool() ?? false
            case .visible: isVisible = try reader.readOptionalBool() ?? true
            case .isMuted: isMuted = try reader.readOptionalBool() ?? false
            case .illustAIType: illustAIType = try reader.readOptionalInt() ?? 0
            case .totalComments: totalComments = try reader.readOptionalInt()
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
            isVisible: isVisible, userID: user.id, imageURLs: imageURLs, originalImageURL: originalImageURL, metaPages: metaPages
        )
    }

    private static let metaSinglePageFields = JSONFields<MetaSinglePage.CodingKeys>()

    /// `meta_single_page`'s `original_image_url`, which may be missing or `null`.
    private static func readOriginalImageURL(_ reader: inout JSONReader) throws -> String? {
        var url: String?
        try reader.readObject(metaSinglePageFields) { reader, field in
            switch field {
            case .original_image_url: url = try reader.readOptionalString()
            }
        }
        return url
    }
}

extension PixivImageURLs: PixivJSONReadable {
    private static let fields = JSONFields<CodingKeys>()

    init(json reader: inout JSONReader) throws {
        var squareMedium = "", medium = "", large = "", original: String?
        try reader.readObject(Self.fields) { reader, field in
            switch field {
            case .squareMedium: squareMedium = try reader.readOptionalString() ?? ""
            case .medium: medium = try reader.readOptionalString() ?? ""
            case .large: large = try reader.readOptionalString() ?? ""
            case .original: original = try reader.readOptionalString()
            }
        }
        self.init(squareMedium: squareMedium, medium: medium, large: large, original: original)
    }
}

extension PixivMetaPage: PixivJSONReadable {
    private static let fields = JSONFields<CodingKeys>()

    init(json reader: inout JSONReader) throws {
        var imageURLs: PixivImageURLs?
        try reader.readObject(Self.fields) { reader, field in
            switch field {
            case .imageURLs: imageURLs = try PixivImageURLs(json: &reader)
            }
        }
        self.imageURLs = try reader.required(imageURLs, "image_urls")
    }
}

extension PixivUser: PixivJSONReadable {
    private static let fields = JSONFields<CodingKeys>()

    init(json reader: inout JSONReader) throws {
        var id: Int?, name = "", account = "", profileImageURL: String?, isFollowed = false
        try reader.readObject(Self.fields) { reader, field in
            switch field {
            case .id: id = try reader.readInt()
            case .name: name = try reader.readOptionalString() ?? ""
            case .account: account = try reader.readOptionalString() ?? ""
            case .profileImageURLs: profileImageURL = try reader.readIfPresent(Self.readMedium) ?? nil
            case .isFollowed: isFollowed = try reader.readOptionalBool() ?? false
            }
        }
        self.init(id: try reader.required(id, "id"), name: name, account: account, profileImageURL: profileImageURL, isFollowed: isFollowed)
    }

    private static let profileImageFields = JSONFields<ProfileImageURLs.CodingKeys>()

    /// `profile_image_urls`' `medium`, which may be missing or `null`.
    private static func readMedium(_ reader: inout JSONReader) throws -> String? {
        var medium: String?
        try reader.readObject(profileImageFields) { reader, field in
            switch field {
            case .medium: medium = try reader.readOptionalString()
            }
        }
        return medium
    }
}

extension PixivArtworkTag: PixivJSONReadable {
    private static let fields = JSONFields<CodingKeys>()

    /// How Pixiv writes a tag, up to its name, and between its name and its translation.
    private static let nameKey: StaticString = #"{"name":"#
    private static let translationKey: StaticString = #","translated_name":"#

    init(json reader: inout JSONReader) throws {
        // Most of a page's objects are tags, and Pixiv writes every one the same way:
        // `{"name":…,"translated_name":…}`, without whitespace. Read that directly; anything
        // else (whitespace, another order, a field more) member by member, from the start.
        let start = reader.position
        if reader.consume(Self.nameKey) {
            let name = try reader.readString()
            if reader.consume(Self.translationKey) {
                let translatedName = try reader.readOptionalString()
                if reader.consume("}") {
                    self.init(name: name, translatedName: translatedName)
                    return
                }
            }
            reader.rewind(to: start)
        }
        var name: String?, translatedName: String?
        try reader.readObject(Self.fields) { reader, field in
            switch field {
            case .name: name = try reader.readString()
            case .translatedName: translatedName = try reader.readOptionalString()
            }
        }
        self.init(name: try reader.required(name, "name"), translatedName: translatedName)
    }
}

extension PixivSeries: PixivJSONReadable {
    private static let fields = JSONFields<CodingKeys>()

    init(json reader: inout JSONReader) throws {
        var id: Int?, title: String?
        try reader.readObject(Self.fields) { reader, field in
            switch field {
            case .id: id = try reader.readInt()
            case .title: title = try reader.readString()
            }
        }
        self.init(id: try reader.required(id, "id"), title: try reader.required(title, "title"))
    }
}
