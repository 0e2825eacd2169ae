import BookmarkJSON
import Foundation

// A page read as summaries: every field `PixivIllust.init(json:)` reads, checked as it checks
// it (the same types, the same fields required, a key sent twice refused), but only what a
// summary keeps made into values. An image URL a summary drops becomes a string only when its
// bytes could spell a placeholder's `limit_` file name; the others are walked and validated,
// never copied.

extension PixivSummaryPage {
    /// The page `body` holds, as `PixivSummaryPage(BookmarksPage)` of the page the client's
    /// decoding of a ``BookmarksPage`` gives: read directly, or, for a body the reader refuses,
    /// through that decoding.
    ///
    /// - Throws: what decoding a ``BookmarksPage`` throws for the body.
    static func decode(from body: Data) throws -> PixivSummaryPage {
        if let page = try? read(from: body) { return page }
        return PixivSummaryPage(try PixivJSON.decode(BookmarksPage.self, from: body))
    }

    /// The page `body` holds, read by the summary reader alone.
    ///
    /// - Throws: `JSONReadError` for anything the full reader would not read as it.
    static func read(from body: Data) throws -> PixivSummaryPage {
        try body.withUnsafeBytes { bytes in
            var reader = JSONReader(bytes)
            let page = try PixivSummaryPage(json: &reader)
            try reader.expectEnd()
            return page
        }
    }

    init(json reader: inout JSONReader) throws {
        let page = try reader.readBookmarksPage(PixivIllustSummary.init(json:))
        self.init(illusts: page.illusts, nextURL: page.nextURL)
    }
}

extension PixivIllustSummary {
    private static let fields = JSONFields<PixivIllust.CodingKeys>()
    private static let userFields = JSONFields<PixivUser.CodingKeys>()
    private static let profileImageFields = JSONFields<PixivUser.ProfileImageURLs.CodingKeys>()
    private static let imageFields = JSONFields<PixivImageURLs.CodingKeys>()
    private static let metaSinglePageFields = JSONFields<PixivIllust.MetaSinglePage.CodingKeys>()
    private static let metaPageFields = JSONFields<PixivMetaPage.CodingKeys>()

    init(json reader: inout JSONReader) throws {
        var id: Int?, title = "", type = "illust", squareMedium = "", userID = 0, userName = ""
        var tags: [PixivArtworkTag] = [], createDateText = "", pageCount = 1, width = 0, height = 0, xRestrict = 0
        var totalView = 0, totalBookmarks = 0, illustAIType = 0, isVisible = true
        var placeholders = PlaceholderCandidates()
        try reader.readObject(Self.fields) { reader, field in
            switch field {
            case .id: id = try reader.readInt()
            case .title: title = try reader.readOptionalString() ?? ""
            case .type: type = try reader.readOptionalString() ?? "illust"
            case .imageURLs:
                squareMedium = try reader.readIfPresent { try Self.readImageURLs(&$0, slot: 1, into: &placeholders) ?? "" } ?? ""
            case .caption: try reader.checkOptionalString()
            case .restrict, .sanityLevel, .totalComments: _ = try reader.readOptionalInt()
            case .user: (userID, userName) = try reader.readIfPresent(Self.readUser) ?? (0, "")
            case .tags: tags = try reader.readIfPresent { try $0.readArray(of: PixivArtworkTag.init(json:), reservingCapacity: 10) } ?? []
            case .tools: _ = try reader.readIfPresent { try $0.readArray { try $0.checkString() } }
            case .createDate: createDateText = try reader.readOptionalString() ?? ""
            case .pageCount: pageCount = try reader.readOptionalInt() ?? 1
            case .width: width = try reader.readOptionalInt() ?? 0
            case .height: height = try reader.readOptionalInt() ?? 0
            case .xRestrict: xRestrict = try reader.readOptionalInt() ?? 0
            case .series: _ = try reader.readIfPresent(PixivSeries.init(json:))
            case .metaSinglePage:
                _ = try reader.readIfPresent { reader in
                    try reader.readObject(Self.metaSinglePageFields) { reader, _ in try reader.readCandidate(slot: 4, into: &placeholders) }
                }
            case .metaPages:
                var page = 0
                _ = try reader.readIfPresent { reader in
                    try reader.readArray { reader in
                        try Self.readMetaPage(&reader, slot: 5 + 4 * page, into: &placeholders)
                        page += 1
                    }
                }
            case .totalView: totalView = try reader.readOptionalInt() ?? 0
            case .totalBookmarks: totalBookmarks = try reader.readOptionalInt() ?? 0
            case .isBookmarked, .isMuted: _ = try reader.readOptionalBool()
            case .visible: isVisible = try reader.readOptionalBool() ?? true
            case .illustAIType: illustAIType = try reader.readOptionalInt() ?? 0
            }
        }
        self.init(
            id: try reader.required(id, "id"), title: title, type: type, squareMedium: squareMedium, userID: userID, userName: userName,
            tags: tags, createDate: PixivDate.parse(createDateText), pageCount: pageCount, width: width, height: height,
            xRestrict: xRestrict, illustAIType: illustAIType, totalView: totalView, totalBookmarks: totalBookmarks,
            invisibleReason: PixivIllust.InvisibleReason(placeholderURL: squareMedium, userID: userID)
                ?? placeholders.reason(userID: userID) ?? (isVisible ? nil : .unknown)
        )
    }

    /// `user`'s ID and name; its other fields checked.
    private static func readUser(_ reader: inout JSONReader) throws -> (id: Int, name: String) {
        var id: Int?, name = ""
        try reader.readObject(userFields) { reader, field in
            switch field {
            case .id: id = try reader.readInt()
            case .name: name = try reader.readOptionalString() ?? ""
            case .account: try reader.checkOptionalString()
            case .profileImageURLs:
                _ = try reader.readIfPresent { reader in
                    try reader.readObject(profileImageFields) { reader, _ in try reader.checkOptionalString() }
                }
            case .isFollowed: _ = try reader.readOptionalBool()
            }
        }
        return (try reader.required(id, "id"), name)
    }

    /// An `image_urls` object: its sizes (and, for a page, its `original`) as placeholder
    /// candidates from `slot` on, in ``PixivIllust/invisibleReason``'s order. Returns the
    /// square crop's URL, made, when `slot` is the work's own, 1 (the summary keeps it and
    /// looks at it first; its slot stays unused); else `nil`.
    private static func readImageURLs(_ reader: inout JSONReader, slot: Int, into placeholders: inout PlaceholderCandidates) throws -> String? {
        let isWork = slot == 1
        var squareMedium: String?
        try reader.readObject(imageFields) { reader, field in
            switch field {
            case .squareMedium where isWork: squareMedium = try reader.readOptionalString()
            case .squareMedium: try reader.readCandidate(slot: slot, into: &placeholders)
            case .medium: try reader.readCandidate(slot: slot + 1, into: &placeholders)
            case .large: try reader.readCandidate(slot: slot + 2, into: &placeholders)
            // The work's own `original` is no candidate: `meta_single_page`'s is.
            case .original where isWork: try reader.checkOptionalString()
            case .original: try reader.readCandidate(slot: slot + 3, into: &placeholders)
            }
        }
        return squareMedium
    }

    /// One of `meta_pages`: its `image_urls`, required.
    private static func readMetaPage(_ reader: inout JSONReader, slot: Int, into placeholders: inout PlaceholderCandidates) throws {
        var hasImageURLs = false
        try reader.readObject(metaPageFields) { reader, _ in
            _ = try readImageURLs(&reader, slot: slot, into: &placeholders)
            hasImageURLs = true
        }
        guard hasImageURLs else { throw reader.error("the field image_urls is missing") }
    }
}

/// The image URLs of a work, other than its square crop (which a summary keeps and is looked at
/// first), that could name a placeholder, each with its place in the order
/// ``PixivIllust/invisibleReason`` looks at them: the work's medium 2 and large 3,
/// `meta_single_page`'s original 4, each page's square crop, medium, large and original from 5,
/// four a page. Empty, and allocating nothing, for a work with its real images.
struct PlaceholderCandidates {
    private var urls: [(slot: Int, url: String)] = []

    mutating func add(_ url: String, slot: Int) {
        urls.append((slot, url))
    }

    /// The reason of the first placeholder, in order; `nil` when none is one.
    func reason(userID: Int) -> PixivIllust.InvisibleReason? {
        guard !urls.isEmpty else { return nil }
        for candidate in urls.sorted(by: { $0.slot < $1.slot }) {
            if let reason = PixivIllust.InvisibleReason(placeholderURL: candidate.url, userID: userID) { return reason }
        }
        return nil
    }
}

extension JSONReader {
    /// Checks a string or `null`, as `readOptionalString()` would read it, without making it.
    mutating func checkOptionalString() throws {
        if try readNullIfPresent() { return }
        try checkString()
    }

    /// Checks a string, as `readString()` would read it, without making it.
    mutating func checkString() throws {
        guard peek() == UInt8(ascii: "\"") else { throw error("expected a string") }
        try skipValue()
    }

    /// Reads an image URL or `null`, adding it to `placeholders` when its bytes hold `limit_`
    /// or a `\u` escape (which could spell it); any other URL is only checked.
    mutating func readCandidate(slot: Int, into placeholders: inout PlaceholderCandidates) throws {
        if try readNullIfPresent() { return }
        let start = position
        try checkString()
        let text = UnsafeRawBufferPointer(rebasing: bytes[start..<position])
        guard firstOffset(of: "limit_", in: text) != nil || firstOffset(of: #"\u"#, in: text) != nil else { return }
        rewind(to: start)
        placeholders.add(try readString(), slot: slot)
    }
}
