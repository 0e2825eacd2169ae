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

extension BookmarkSort {
    /// The key of `row` under this sort as an integer that orders as the key does (doubles by
    /// their IEEE total order, so even a NaN has one place); `nil` for bookmark order, whose
    /// key is the place itself.
    @inline(__always)
    func key(of row: UnsafePointer<ListIndex.Row>) -> Int64? {
        switch key {
        case .bookmarkOrder: nil
        case .popularity: Int64(row.pointee.totalBookmarks)
        case .bookmarkRate: Self.orderedBits(Self.rate(bookmarks: row.pointee.totalBookmarks, views: Int(row.pointee.totalView)))
        case .createDate: Self.orderedBits(row.pointee.createDate)
        case .pageCount: Int64(row.pointee.pageCount)
        }
    }

    /// The key of `bookmark` under this sort, as ``key(of:)`` gives a row's.
    func key(of bookmark: IndexedBookmark) -> Int64? {
        let illust = bookmark.illust
        return switch key {
        case .bookmarkOrder: nil
        case .popularity: Int64(illust.totalBookmarks)
        case .bookmarkRate: Self.orderedBits(Self.rate(bookmarks: illust.totalBookmarks, views: illust.totalView))
        case .createDate: Self.orderedBits(illust.createDate.timeIntervalSinceReferenceDate)
        case .pageCount: Int64(illust.pageCount)
        }
    }

    /// Bookmarks per view; 0 without a view count.
    @inline(__always)
    static func rate(bookmarks: Int, views: Int) -> Double {
        views > 0 ? Double(bookmarks) / Double(views) : 0
    }

    /// `value`'s bits as an integer that orders as IEEE 754's total order does.
    @inline(__always)
    static func orderedBits(_ value: Double) -> Int64 {
        let bits = Int64(bitPattern: value.bitPattern)
        return bits < 0 ? bits ^ Int64.max : bits
    }

    /// The place (`key`, `serverOrder`, `illustID`) as one value that is larger exactly when
    /// the place comes earlier in this sort: by key in the sort's direction, then newest
    /// bookmark first (bookmark order itself reversed whole when ascending). Complementing a
    /// component reverses its order without overflow.
    @inline(__always)
    func rank(key: Int64?, serverOrder: Int64, illustID: Int) -> SortRank {
        switch (self.key, direction) {
        case (.bookmarkOrder, .descending): SortRank(key: 0, serverOrder: serverOrder, illustID: illustID)
        case (.bookmarkOrder, .ascending): SortRank(key: 0, serverOrder: ~serverOrder, illustID: ~illustID)
        case (_, .descending): SortRank(key: key ?? 0, serverOrder: serverOrder, illustID: illustID)
        case (_, .ascending): SortRank(key: ~(key ?? 0), serverOrder: serverOrder, illustID: illustID)
        }
    }
}

/// A place in a sort, larger first (see ``BookmarkSort/rank(key:serverOrder:illustID:)``).
struct SortRank: Comparable {
    var key: Int64
    var serverOrder: Int64
    var illustID: Int

    /// The place with every component complemented: the order of places reversed.
    var flipped: SortRank {
        SortRank(key: ~key, serverOrder: ~serverOrder, illustID: ~illustID)
    }

    @inline(__always)
    static func < (a: SortRank, b: SortRank) -> Bool {
        if a.key != b.key { return a.key < b.key }
        if a.serverOrder != b.serverOrder { return a.serverOrder < b.serverOrder }
        return a.illustID < b.illustID
    }
}
