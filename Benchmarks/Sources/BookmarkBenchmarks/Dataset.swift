import BookmarkIndex
import BookmarkIndexTesting
import Foundation

/// The deterministic data every item works on: `count` public bookmarks from
/// `SyntheticBookmarks` (about 5,000 Zipf-distributed tags, 6–10 per work, CJK, emoji, quotes
/// and backslashes in titles and names, realistic thumbnail URLs), newest first, cut into
/// batches of 30 the way a sync writes pages.
struct Dataset: Sendable {
    static let batchSize = 30
    static let seed: UInt64 = 1

    let count: Int
    let illusts: [BookmarkedIllustSnapshot]
    let rows: [IndexedBookmark]
    let changeBatches: [[BookmarkChange]]
    /// The ranges of `rows` each batch covers.
    let batchRanges: [Range<Int>]

    init(count: Int) {
        let generator = SyntheticBookmarks()
        self.count = count
        illusts = generator.illusts(count: count, seed: Self.seed)
        rows = generator.indexedBookmarks(illusts, in: .public)
        batchRanges = stride(from: 0, to: count, by: Self.batchSize).map { $0..<min($0 + Self.batchSize, count) }
        changeBatches = batchRanges.map { [rows] range in rows[range].map(BookmarkChange.upsert) }
    }
}

/// The tags the filter items name, picked from the data's own histogram by rank so that they
/// are the same on every run.
struct FilterTags: Sendable {
    /// Ranks 50 and 60: mid-frequency tags.
    var middle: (String, String)
    /// Ranks 0 and 1: the most frequent tags, so that `noneOf` has work to do on every row.
    var frequent: (String, String)

    init(histogram: [ArtworkTagCount]) {
        precondition(histogram.count > 60, "the data set has too few distinct tags")
        middle = (histogram[50].name, histogram[60].name)
        frequent = (histogram[0].name, histogram[1].name)
    }
}
