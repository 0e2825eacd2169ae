import Foundation

/// Where a bookmark sits in its list and when the index had it: what a sync's next write of
/// the bookmark keeps, and what a full walk's prune decides by.
///
/// Read from a row's fields alone, without making the row an ``IndexedBookmark`` (its strings,
/// its tags, its thumbnail URL): a sync asks for it for every work of every page.
package struct BookmarkPlacement: Sendable, Hashable {
    /// The work's illust ID.
    package var illustID: Int
    /// See ``IndexedBookmark/serverOrder``.
    package var serverOrder: Int64
    /// See ``IndexedBookmark/firstIndexedAt``.
    package var firstIndexedAt: Date
    /// See ``IndexedBookmark/lastSeenAt``.
    package var lastSeenAt: Date

    init(_ row: ListIndex.Row) {
        illustID = row.illustID
        serverOrder = row.serverOrder
        firstIndexedAt = Date(timeIntervalSinceReferenceDate: row.firstIndexedAt)
        lastSeenAt = Date(timeIntervalSinceReferenceDate: row.lastSeenAt)
    }
}

extension BookmarkIndexState {
    /// The placement of the bookmark `key`, or `nil` when the index has no such row. O(1).
    package func placement(of key: BookmarkKey) -> BookmarkPlacement? {
        lists[key.restrict.listIndex].row(illustID: key.illustID).map(BookmarkPlacement.init)
    }

    /// Calls `body` with the placement of every row of `restrict`'s list, visible or vanished,
    /// newest first, as ``allBookmarks(in:)`` orders them. O(n), and nothing materialized.
    package func forEachPlacement(in restrict: Restrict, _ body: (BookmarkPlacement) -> Void) {
        lists[restrict.listIndex].forEachNewestFirst { row, _ in
            body(BookmarkPlacement(row))
            return true
        }
    }
}
