import BookmarkIndex
import Foundation

/// The saved position of a full walk, so it resumes after a failure or a restart instead of
/// starting over. Kept in the list's ``ListSyncRecord``.
///
/// The engine's own record: an app reads it (``ListSyncRecord/fullWalkPosition``) but never
/// makes or changes one.
public struct FullWalkPosition: Sendable, Hashable {
    /// The source's token for the next page to fetch (for Pixiv, the `next_url` as given).
    public internal(set) var nextPage: String
    /// When the walk began.
    public internal(set) var startedAt: Date
    /// Pages fetched so far.
    public internal(set) var pagesFetched: Int
    /// The `IndexedBookmark.serverOrder` the next row of the walk gets.
    public internal(set) var nextServerOrder: Int64
    /// The order the walk's first row got: every row the walk writes is at or below it, down to
    /// ``nextServerOrder`` (exclusive); `nil` in positions saved before it was recorded.
    public internal(set) var firstServerOrder: Int64?
    /// Whether the walk places its rows above every row present when it began (walks begun by
    /// this version), so that rows below its orders are the ones it has not seen; `false` for
    /// walks begun by earlier versions, which placed them below the oldest.
    public internal(set) var placesRowsAbove: Bool
    /// The known ground the walk leaves behind when it completes: from its first page, lowered
    /// past a transient placeholder (``KnownGround/after(_:current:now:)``).
    var groundAfterFirstPage: KnownGround?

    /// Creates a position.
    init(
        nextPage: String, startedAt: Date, pagesFetched: Int, nextServerOrder: Int64,
        firstServerOrder: Int64? = nil, placesRowsAbove: Bool = false
    ) {
        self.nextPage = nextPage
        self.startedAt = startedAt
        self.pagesFetched = pagesFetched
        self.nextServerOrder = nextServerOrder
        self.firstServerOrder = firstServerOrder
        self.placesRowsAbove = placesRowsAbove
    }
}
