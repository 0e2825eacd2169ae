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
        let fields = Self.fields
        var cursor = JSONFields<CodingKeys>.Cursor()
        try reader.readObject { reader, key in
            guard let field = try fields.field(named: key, &cursor) else { return try reader.skipValue() }
            switch field {
            case .id: id = try reader.readInt()
            case .title: title = try reader.readOptionalString() ?? ""
            case .type: type = try reader.readOptionalString() ?? "illust"
            case .imageURLs: imageURLs = try reader.readIfPresent(PixivImageURLs.init(json:)) ?? PixivImageURLs()
            case .caption: caption = try reader.readOptionalString() ?? ""
            case .restrict: restrict = try reader.readOptionalInt() ?? 0
            case .user: user = try reader.readIfPresent(PixivUser.init(json:)) ?? PixivUser(id: 0, name: "", account: "")
            case .tags: tags = try reader.readIfPresent { try $0.readArray(of: PixivArtworkTag.init(json:)) } ?? []
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

    /// `meta_single_page`'s one field.
    private enum MetaSinglePageKeys: String, CaseIterable {
        case originalImageURL = "original_image_url"
    }

    private static let metaSinglePageFields = JSONFields<MetaSinglePageKeys>()

    /// `meta_single_page`'s `original_image_url`, which may be missing or `null`.
    private static func readOriginalImageURL(_ reader: inout JSONReader) throws -> String? {
        var url: String?, cursor = JSONFields<MetaSinglePageKeys>.Cursor()
        let fields = metaSinglePageFields
        try reader.readObject { reader, key in
            switch try fields.field(named: key, &cursor) {
            case .originalImageURL: url = try reader.readOptionalString()
            case nil: try reader.skipValue()
            }
        }
        return url
    }
}

extension PixivImageURLs: PixivJSONReadable {
    private static let fields = JSONFields<CodingKeys>()

    init(json reader: inout JSONReader) throws {
        var squareMedium = "", medium = "", large = "", original: String?
        var cursor = JSONFields<CodingKeys>.Cursor()
        let fields = Self.fields
        try reader.readObject { reader, key in
            switch try fields.field(named: key, &cursor) {
            case .squareMedium: squareMedium = try reader.readOptionalString() ?? ""
            case .medium: medium = try reader.readOptionalString() ?? ""
            case .large: large = try reader.readOptionalString() ?? ""
            case .original: original = try reader.readOptionalString()
            case nil: try reader.skipValue()
            }
        }
        self.init(squareMedium: squareMedium, medium: medium, large: large, original: original)
    }
}

extension PixivMetaPage: PixivJSONReadable {
    private static let fields = JSONFields<CodingKeys>()

    init(json reader: inout JSONReader) throws {
        var imageURLs: PixivImageURLs?, cursor = JSONFields<CodingKeys>.Cursor()
        let fields = Self.fields
        try reader.readObject { reader, key in
            switch try fields.field(named: key, &cursor) {
            case .imageURLs: imageURLs = try PixivImageURLs(json: &reader)
            case nil: try reader.skipValue()
            }
        }
        self.imageURLs = try reader.required(imageURLs, "image_urls")
    }
}

extension PixivUser: PixivJSONReadable {
    private static let fields = JSONFields<CodingKeys>()

    init(json reader: inout JSONReader) throws {
        var id: Int?, name = "", account = "", profileImageURL: String?, isFollowed = false
        var cursor = JSONFields<CodingKeys>.Cursor()
        let fields = Self.fields
        try reader.readObject { reader, key in
            switch try fields.field(named: key, &cursor) {
            case .id: id = try reader.readInt()
            case .name: name = try reader.readOptionalString() ?? ""
            case .account: account = try reader.readOptionalString() ?? ""
            case .profileImageURLs: profileImageURL = try reader.readIfPresent(Self.readMedium) ?? nil
            case .isFollowed: isFollowed = try reader.readOptionalBool() ?? false
            case nil: try reader.skipValue()
            }
        }
        self.init(id: try reader.required(id, "id"), name: name, account: account, profileImageURL: profileImageURL, isFollowed: isFollowed)
    }

    /// `profile_image_urls`' one field this client keeps.
    private enum ProfileImageKeys: String, CaseIterable {
        case medium
    }

    private static let profileImageFields = JSONFields<ProfileImageKeys>()

    /// `profile_image_urls`' `medium`, which may be missing or `null`.
    private static func readMedium(_ reader: inout JSONReader) throws -> String? {
        var medium: String?, cursor = JSONFields<ProfileImageKeys>.Cursor()
        let fields = profileImageFields
        try reader.readObject { reader, key in
            switch try fields.field(named: key, &cursor) {
            case .medium: medium = try reader.readOptionalString()
            case nil: try reader.skipValue()
            }
        }
        return medium
    }
}

extension PixivArtworkTag: PixivJSONReadable {
    private static let fields = JSONFields<CodingKeys>()

    init(json reader: inout JSONReader) throws {
        var name: String?, translatedName: String?, cursor = JSONFields<CodingKeys>.Cursor()
        let fields = Self.fields
        try reader.readObject { reader, key in
            switch try fields.field(named: key, &cursor) {
            case .name: name = try reader.readString()
            case .translatedName: translatedName = try reader.readOptionalString()
            case nil: try reader.skipValue()
            }
        }
        self.init(name: try reader.required(name, "name"), translatedName: translatedName)
    }
}

extension PixivSeries: PixivJSONReadable {
    private static let fields = JSONFields<CodingKeys>()

    init(json reader: inout JSONReader) throws {
        var id: Int?, title: String?, cursor = JSONFields<CodingKeys>.Cursor()
        let fields = Self.fields
        try reader.readObject { reader, key in
            switch try fields.field(named: key, &cursor) {
            case .id: id = try reader.readInt()
            case .title: title = try reader.readString()
            case nil: try reader.skipValue()
            }
        }
        self.init(id: try reader.required(id, "id"), title: try reader.required(title, "title"))
    }
}
