@testable import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import Testing

/// An index loaded from a journal's batches, its tag index, vanished rows' bookkeeping,
/// columns and sort leaders derived once at the end, answers every query as one built write
/// by write, and keeps doing so as writes go on.
@Suite("Index loader")
struct IndexLoaderTests {
    /// Batches over both lists (escapes, vanished rows, placeholders, removals, metadata), a
    /// reset of one list midway, and rows over every field the facets and sorts read.
    static func batches(seed: UInt64) -> [[BookmarkChange]] {
        var batches = IndexCheckpointTests().randomBatches(seed: seed, count: 200)
        batches.insert([.removeAll(.private)], at: 120)
        var random = SeededRandom(seed: seed)
        var rows = FacetAccounts.generator.indexedBookmarks(FacetAccounts.generator.illusts(count: 300, seed: seed), in: .public)
        for index in rows.indices { FacetAccounts.randomize(&rows[index], &random) }
        batches += stride(from: 0, to: rows.count, by: 25).map { rows[$0..<min($0 + 25, rows.count)].map(BookmarkChange.upsert) }
        // Rows seen again (unchanged, and with other tags) and vanished over their content.
        batches.append(rows.prefix(40).map(BookmarkChange.upsert))
        batches.append(rows.prefix(30).map { row in
            var row = row
            row.illust.tags.reverse()
            if row.illust.id % 3 == 0 { row.illust = BookmarkedIllustSnapshot(id: row.illust.id, title: "", vanishReason: .deleted) }
            return .upsert(row)
        })
        return batches
    }

    /// The batches prepared as a journal's blocks are: several lines sharing one set of rows.
    static func load(_ batches: [[BookmarkChange]], into state: BookmarkIndexState = BookmarkIndexState(), linesPerBlock: Int) -> BookmarkIndexState {
        var loader = IndexLoader(state)
        for (block, start) in stride(from: 0, to: batches.count, by: linesPerBlock).enumerated() {
            var rows = PreparedRows(origin: block)
            var ranges: [Range<Int>] = []
            for batch in batches[start..<min(start + linesPerBlock, batches.count)] {
                let first = rows.changes.count
                for change in batch { rows.append(change) }
                ranges.append(first..<rows.changes.count)
            }
            for range in ranges { loader.apply(PreparedRows.Batch(rows: rows, changes: range)) }
        }
        return loader.finish()
    }

    static func expectSameAnswers(_ a: BookmarkIndexState, _ b: BookmarkIndexState, _ comment: Comment) {
        IndexCheckpointTests().expectSameQueries(a, b, comment)
        #expect(a.revision == b.revision, comment)
        for restrict in Restrict.allCases {
            #expect(a.facets(in: restrict) == b.facets(in: restrict), comment)
            #expect(a.topArtists(in: restrict, limit: 10) == b.topArtists(in: restrict, limit: 10), comment)
            for key in BookmarkSort.Key.allCases {
                for direction in BookmarkSort.Direction.allCases {
                    let sort = BookmarkSort(key, direction)
                    let pageA = a.bookmarks(in: restrict, sortedBy: sort, after: nil, limit: 30)
                    let pageB = b.bookmarks(in: restrict, sortedBy: sort, after: nil, limit: 30)
                    #expect(Array(pageA.bookmarks) == Array(pageB.bookmarks), "\(sort) \(comment)")
                }
            }
        }
    }

    @Test(arguments: [(UInt64(1), 1), (2, 7), (3, 40)])
    func aLoadedIndexAnswersAsOneBuiltWriteByWrite(seed: UInt64, linesPerBlock: Int) {
        let batches = Self.batches(seed: seed)
        var built = BookmarkIndexState()
        for batch in batches { built.apply(batch) }
        var loaded = Self.load(batches, linesPerBlock: linesPerBlock)
        Self.expectSameAnswers(loaded, built, "after loading")

        // Writes after the load keep every derived structure as current as the built index's.
        let more = IndexCheckpointTests().randomBatches(seed: seed + 10, count: 60, firstStep: 500)
        for batch in more {
            loaded.apply(batch)
            built.apply(batch)
        }
        Self.expectSameAnswers(loaded, built, "after more writes")
    }

    /// Loaded onto an index with rows (a checkpoint's), writes keep it current as they go.
    @Test func loadingOntoRowsAppliesAsWrites() {
        let batches = Self.batches(seed: 4)
        var start = BookmarkIndexState()
        for batch in batches.prefix(100) { start.apply(batch) }
        var built = start
        for batch in batches.dropFirst(100) { built.apply(batch) }
        Self.expectSameAnswers(Self.load(Array(batches.dropFirst(100)), into: start, linesPerBlock: 9), built, "onto rows")
    }
}
