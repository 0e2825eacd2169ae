/// The order a feed reads a list in: Pixiv's bookmark order (the default), or a work's
/// popularity, bookmark rate, posting date or page count, each descending or ascending.
///
/// Rows with equal keys come in bookmark order, newest bookmark first, whatever the direction,
/// so every sort is a total order and a cursor names one place in it (see ``BookmarkCursor``).
/// Popularity and bookmark rate are figures as of the last sync that saw each work: a work's
/// place moves when a sync brings new ones.
///
/// ```swift
/// // The most bookmarked works first, 30 at a time.
/// var page = await store.bookmarks(in: .public, matching: filter, sortedBy: .popularity, after: nil, limit: 30)
/// page = await store.bookmarks(in: .public, matching: filter, sortedBy: .popularity, after: page.lastCursor, limit: 30)
/// // The oldest works first.
/// let oldest = await store.bookmarks(in: .public, sortedBy: .createDate.reversed(), after: nil, limit: 30)
/// ```
public struct BookmarkSort: Sendable, Hashable, Codable {
    /// What a sort orders by.
    public enum Key: String, Sendable, Hashable, Codable, CaseIterable {
        /// Pixiv's order of the list (``IndexedBookmark/serverOrder``): descending is newest
        /// bookmark first, as Pixiv shows it.
        case bookmarkOrder
        /// How many users bookmarked the work (``BookmarkedIllustSnapshot/totalBookmarks``).
        case popularity
        /// Bookmarks per view (``BookmarkedIllustSnapshot/totalBookmarks`` ÷
        /// ``BookmarkedIllustSnapshot/totalView``); a work with no view count known sorts as 0.
        case bookmarkRate
        /// When the work was posted (``BookmarkedIllustSnapshot/createDate``).
        case createDate
        /// How many pages the work has (``BookmarkedIllustSnapshot/pageCount``).
        case pageCount
    }

    /// Which end of a key comes first.
    public enum Direction: String, Sendable, Hashable, Codable, CaseIterable {
        /// The largest key first: the most popular, the newest, the most pages.
        case descending
        /// The smallest key first.
        case ascending
    }

    /// What the sort orders by.
    public var key: Key
    /// Which end comes first.
    public var direction: Direction

    /// The sort by `key`, largest first unless `direction` says otherwise.
    public init(_ key: Key, _ direction: Direction = .descending) {
        self.key = key
        self.direction = direction
    }

    /// The same key, the other way round. Ties still come newest bookmark first, except in
    /// bookmark order itself, which reverses whole (oldest bookmark first).
    public func reversed() -> BookmarkSort {
        BookmarkSort(key, direction == .descending ? .ascending : .descending)
    }

    /// Pixiv's order, newest bookmark first: the default of every query.
    public static let bookmarkOrder = BookmarkSort(.bookmarkOrder)
    /// The most bookmarked works first.
    public static let popularity = BookmarkSort(.popularity)
    /// The works with the most bookmarks per view first.
    public static let bookmarkRate = BookmarkSort(.bookmarkRate)
    /// The most recently posted works first.
    public static let createDate = BookmarkSort(.createDate)
    /// The works with the most pages first.
    public static let pageCount = BookmarkSort(.pageCount)
}

/// A row's key under a sort other than bookmark order, as a cursor records it.
enum SortKeyValue: Sendable, Hashable, Codable {
    case int(Int)
    case double(Double)

    /// `self` before `other` ascending: integers as integers, doubles in IEEE total order (so
    /// even a NaN has one place).
    func isLess(than other: SortKeyValue) -> Bool {
        switch (self, other) {
        case (.int(let a), .int(let b)): a < b
        case (.double(let a), .double(let b)): a.isTotallyOrdered(belowOrEqualTo: b) && !b.isTotallyOrdered(belowOrEqualTo: a)
        case (.int, .double): true
        case (.double, .int): false
        }
    }
}

extension BookmarkSort {
    /// The key of `row` under this sort; `nil` for bookmark order, whose key is the place.
    func value(of row: ListIndex.Row) -> SortKeyValue? {
        switch key {
        case .bookmarkOrder: nil
        case .popularity: .int(row.totalBookmarks)
        case .bookmarkRate: .double(row.totalView > 0 ? Double(row.totalBookmarks) / Double(row.totalView) : 0)
        case .createDate: .double(row.createDate)
        case .pageCount: .int(row.pageCount)
        }
    }

    /// Whether the place (`a`, `aPlace`) comes before (`b`, `bPlace`) in this sort: by key in
    /// the sort's direction, then in bookmark order, newest first (bookmark order itself
    /// reversed whole when ascending).
    func isBefore(_ a: SortKeyValue?, _ aPlace: BookmarkCursor, _ b: SortKeyValue?, _ bPlace: BookmarkCursor) -> Bool {
        if key == .bookmarkOrder {
            return direction == .descending ? aPlace.precedes(bPlace) : bPlace.precedes(aPlace)
        }
        if let a, let b {
            let (first, second) = direction == .descending ? (b, a) : (a, b)
            if first.isLess(than: second) { return true }
            if second.isLess(than: first) { return false }
        }
        return aPlace.precedes(bPlace)
    }
}
