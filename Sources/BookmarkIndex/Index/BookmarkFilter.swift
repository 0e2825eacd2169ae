/// Which bookmarks of a list a query returns.
///
/// Tags are matched case-insensitively against a tag's name or its translated name, so
/// `"original"` finds works tagged `オリジナル` when Pixiv translated it. The empty filter matches
/// every visible bookmark; ``visibility`` asks for the works that vanished from Pixiv instead,
/// or for both, matched by what the index kept of them (their last-known tags, title and
/// artist).
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
    ///
    /// Case is folded by Unicode's lowercase mapping (as `String.lowercased()` folds it, and as
    /// tags are matched), and the folded texts are compared scalar by scalar: `"e"` is found in
    /// a decomposed `"é"`. Any text is accepted, a NUL included; an empty text matches every
    /// work.
    public var text: String?
    /// Which works match: those Pixiv shows (the default), those that vanished from it, or both.
    public var visibility: Visibility

    /// Creates a filter.
    public init(
        allOf: [String] = [],
        anyOf: [String] = [],
        noneOf: [String] = [],
        text: String? = nil,
        visibility: Visibility = .visible
    ) {
        self.allOf = allOf
        self.anyOf = anyOf
        self.noneOf = noneOf
        self.text = text
        self.visibility = visibility
    }

    /// Every visible bookmark.
    public static let all = BookmarkFilter()

    /// Which bookmarks a filter, a count or a histogram looks at, by whether Pixiv still shows
    /// the work.
    public enum Visibility: Sendable, Hashable, CaseIterable {
        /// Works Pixiv shows: the default everywhere.
        case visible
        /// Works that vanished from Pixiv (``BookmarkedIllustSnapshot/vanishReason`` is set):
        /// deleted, limited to My pixiv, held back by the user's settings.
        case vanished
        /// Both.
        case all

        /// Whether a work Pixiv shows (`isVisible`) or not is looked at.
        func includes(isVisible: Bool) -> Bool {
            switch self {
            case .visible: isVisible
            case .vanished: !isVisible
            case .all: true
            }
        }
    }

    /// Whether the filter asks for nothing but its visibility: no tags and no text.
    var selectsByVisibilityOnly: Bool {
        allOf.isEmpty && anyOf.isEmpty && noneOf.isEmpty && (text ?? "").isEmpty
    }
}
