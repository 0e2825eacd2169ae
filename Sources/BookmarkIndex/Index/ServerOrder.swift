/// The conventions writers follow for ``IndexedBookmark/serverOrder`` so that a list reads in
/// Pixiv's order, newest bookmark first.
///
/// - New bookmarks found by a delta sync go on top, in page order: the `i`-th new row (counting
///   across all pages of that sync from 0) gets ``deltaOrder(index:above:)``.
/// - A full walk gives the `i`-th row it sees ``walkOrder(index:below:)``: below every row present
///   when the walk began. When the walk completes the rows it did not see are pruned, so what is
///   left is exactly Pixiv's order.
/// - An in-app bookmark goes on top: ``newest(above:)``.
///
/// The sync engine's (BookmarkSync's) business, and BookmarkIndexTesting's when it makes rows
/// as a sync would: `package`, not part of the public API.
///
/// Orders saturate at `Int64`'s ends rather than overflow: a row written with an order near
/// them (any value is accepted) makes the next orders tie, which a list ranks by illust ID,
/// and never traps.
package enum ServerOrder {
    /// The room a delta sync reserves above the current newest row.
    package static let deltaSpan: Int64 = 1 << 32

    /// The order of the `index`-th new row of a delta sync that began when the newest row had
    /// `newest` (`nil` for an empty list).
    package static func deltaOrder(index: Int, above newest: Int64?) -> Int64 {
        (newest ?? 0).saturatingAdd(deltaSpan).saturatingAdd(-Int64(clamping: max(0, index)))
    }

    /// The order of the `index`-th row of a full walk that began when the oldest row had
    /// `oldest` (`nil` for an empty list).
    package static func walkOrder(index: Int, below oldest: Int64?) -> Int64 {
        (oldest ?? 0).saturatingAdd(-1).saturatingAdd(-Int64(clamping: max(0, index)))
    }

    /// The order of a bookmark made in the app, above the newest row.
    package static func newest(above newest: Int64?) -> Int64 {
        (newest ?? 0).saturatingAdd(1)
    }
}
