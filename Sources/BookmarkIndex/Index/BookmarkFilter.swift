/// Which bookmarks of a list a query returns.
///
/// Tags are matched case-insensitively against a tag's name or its translated name, so
/// `"original"` finds works tagged `オリジナル` when Pixiv translated it. The empty filter matches
/// every visible bookmark.
///
/// ```swift
/// let filter = BookmarkFilter(allOf: ["original", "girl"], noneOf: ["R-18"])
/// let page = await store.bookmarks(in: .public, matching: filter, limit: 30)
/// ```
public struct BookmarkFilter: Sendable, Hashable {
    /// Every one of these tags must be on the work.
    public var allOf: [String]
    /// At least one of these tags must be on the work (ignored when empty).
    public var anyOf: [String]
    /// None of these tags may be on the work.
    public var noneOf: [String]
    /// When set, the title or the artist's name must contain this text, ignoring case.
    public var text: String?
    /// Whether works deleted or hidden on Pixiv (``BookmarkedIllustSnapshot/isVisible`` `false`)
    /// are returned. Defaults to `false`.
    public var includesInvisible: Bool

    /// Creates a filter.
    public init(
        allOf: [String] = [],
        anyOf: [String] = [],
        noneOf: [String] = [],
        text: String? = nil,
        includesInvisible: Bool = false
    ) {
        self.allOf = allOf
        self.anyOf = anyOf
        self.noneOf = noneOf
        self.text = text
        self.includesInvisible = includesInvisible
    }

    /// Every visible bookmark.
    public static let all = BookmarkFilter()
}
