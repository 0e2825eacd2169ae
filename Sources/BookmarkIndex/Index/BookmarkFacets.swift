/// How the bookmarks of a list that match a filter spread over AI kind, age rating and kind:
/// what a filter sheet shows beside each choice.
///
/// Counts are of the matches, under every constraint of the filter, its own choices included:
/// to show what picking another AI option would give, ask with the filter's ``BookmarkFilter/ai``
/// set to ``BookmarkFilter/AIFilter/any``. See ``BookmarkIndexState/facets(in:matching:)``.
public struct BookmarkFacets: Sendable, Hashable {
    /// How many bookmarks match.
    public var count: Int
    /// The matches of each AI kind; every kind is present, 0 when none is of it.
    public var aiKinds: [AIKind: Int]
    /// The matches of each age rating; every rating is present. A work whose `x_restrict` this
    /// library does not know is counted in none.
    public var ageRatings: [AgeRating: Int]
    /// The matches of each kind: illust, manga and ugoira always (0 when none is of them), and
    /// any other kind a match has.
    public var types: [IllustType: Int]

    /// Creates facet counts.
    public init(count: Int, aiKinds: [AIKind: Int], ageRatings: [AgeRating: Int], types: [IllustType: Int]) {
        self.count = count
        self.aiKinds = aiKinds
        self.ageRatings = ageRatings
        self.types = types
    }
}
