import Foundation

/// Which bookmarks of a list a query returns.
///
/// Tags are matched case-insensitively against a tag's name or its translated name, so
/// `"original"` finds works tagged `オリジナル` when Pixiv translated it. The empty filter matches
/// every visible bookmark; ``visibility`` asks for the works that vanished from Pixiv instead,
/// or for both, matched by what the index kept of them (their last-known tags, title, artist
/// and the rest of their fields; a placeholder the index never saw with content has only what
/// Pixiv sent for it).
///
/// Every constraint narrows the others: a work matches when it passes all of them. Each one's
/// default asks for nothing, so `BookmarkFilter()` is every visible bookmark. Besides tags and
/// text, a filter can ask for AI-generated works or none (``ai``), age ratings (``ageRatings``),
/// kinds (``types``), a page count (``pageCount``), artists (``artistIDs``), and when a work was
/// posted (``createDate``) or first indexed (``firstIndexedAt``).
///
/// ```swift
/// let filter = BookmarkFilter(allOf: ["original", "girl"], noneOf: ["R-18"])
/// let page = await store.bookmarks(in: .public, matching: filter, limit: 30)
///
/// // Single-image illustrations for all ages, AI-generated works left out.
/// let clean = BookmarkFilter(ai: .excludingAI, ageRatings: [.allAges], types: [.illust], pageCount: 1...1)
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
    /// Whether AI-generated works match: all works (the default), all but them, or only them,
    /// by ``BookmarkedIllustSnapshot/aiKind``.
    public var ai: AIFilter
    /// The age ratings a work may have (``BookmarkedIllustSnapshot/ageRating``); ignored when
    /// empty. A work whose `x_restrict` this library does not know has no rating and matches
    /// only an empty set.
    public var ageRatings: Set<AgeRating>
    /// The kinds a work may be (``BookmarkedIllustSnapshot/type``); ignored when empty.
    public var types: Set<IllustType>
    /// The page counts a work may have, for example `1...1` for single images or
    /// `10...Int.max` for ten pages or more; `nil` for any.
    public var pageCount: ClosedRange<Int>?
    /// The artists whose works match (``BookmarkedIllustSnapshot/artistID``); ignored when empty.
    public var artistIDs: Set<Int>
    /// When a work must have been posted (``BookmarkedIllustSnapshot/createDate``): from the
    /// range's lower bound, inclusive, to its upper bound, exclusive; `nil` for any time.
    public var createDate: Range<Date>?
    /// When the index must have first stored the bookmark (``IndexedBookmark/firstIndexedAt``),
    /// as for ``createDate``; `nil` for any time.
    public var firstIndexedAt: Range<Date>?
    /// Which works match: those Pixiv shows (the default), those that vanished from it, or both.
    public var visibility: Visibility

    /// Creates a filter. Every constraint left out asks for nothing.
    public init(
        allOf: [String] = [],
        anyOf: [String] = [],
        noneOf: [String] = [],
        text: String? = nil,
        ai: AIFilter = .any,
        ageRatings: Set<AgeRating> = [],
        types: Set<IllustType> = [],
        pageCount: ClosedRange<Int>? = nil,
        artistIDs: Set<Int> = [],
        createDate: Range<Date>? = nil,
        firstIndexedAt: Range<Date>? = nil,
        visibility: Visibility = .visible
    ) {
        self.allOf = allOf
        self.anyOf = anyOf
        self.noneOf = noneOf
        self.text = text
        self.ai = ai
        self.ageRatings = ageRatings
        self.types = types
        self.pageCount = pageCount
        self.artistIDs = artistIDs
        self.createDate = createDate
        self.firstIndexedAt = firstIndexedAt
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

    /// Whether AI-generated works match (see ``BookmarkFilter/ai``).
    public enum AIFilter: Sendable, Hashable, CaseIterable {
        /// Every work, whatever Pixiv says of it: the default.
        case any
        /// Every work but those Pixiv says are AI-generated: works it says nothing of
        /// (``AIKind/unknown``) match.
        case excludingAI
        /// Only the works Pixiv says are AI-generated.
        case onlyAI

        /// Whether a work of `kind` matches.
        public func includes(_ kind: AIKind) -> Bool {
            switch self {
            case .any: true
            case .excludingAI: kind != .aiGenerated
            case .onlyAI: kind == .aiGenerated
            }
        }
    }

    /// Whether the filter asks for nothing but its visibility: no tags, no text, no other
    /// constraint.
    var selectsByVisibilityOnly: Bool {
        allOf.isEmpty && anyOf.isEmpty && noneOf.isEmpty && (text ?? "").isEmpty && !constrainsFields
    }

    /// Whether the filter constrains a work's fields (AI, rating, type, pages, artist, dates).
    var constrainsFields: Bool {
        ai != .any || !ageRatings.isEmpty || !types.isEmpty || pageCount != nil || !artistIDs.isEmpty
            || createDate != nil || firstIndexedAt != nil
    }
}
