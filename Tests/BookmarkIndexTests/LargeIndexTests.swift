@testable import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import Testing

/// 100,000 generated bookmarks: reads do not scan bookmarks, filters touch only named postings.
@Suite("Large index")
struct LargeIndexTests {
    /// The bookmarks written, for the counts the tests check the index's answers against
    /// (reading them back out of the index would build 100,000 bookmarks for each).
    static let rows: [IndexedBookmark] = {
        let generator = SyntheticBookmarks()
        return generator.indexedBookmarks(generator.illusts(count: 100_000, seed: 7), in: .public)
    }()

    static let state: BookmarkIndexState = {
        var state = BookmarkIndexState()
        let rows = Self.rows
        for start in stride(from: 0, to: rows.count, by: 30) {
            state.apply(rows[start..<min(start + 30, rows.count)].map(BookmarkChange.upsert))
        }
        return state
    }()

    @Test func histogramReadsNoBookmark() {
        let state = Self.state
        let reads = QueryReads()
        let top = QueryReads.$current.withValue(reads) { state.tagHistogram(in: .public, limit: 50) }
        #expect(reads.rowCount == 0, "the histogram is the maintained counts")
        #expect(top.count == 50)
        #expect(top.first?.name == "オリジナル")
        #expect(zip(top, top.dropFirst()).allSatisfy { $0.count > $1.count || ($0.count == $1.count && $0.name < $1.name) })
        // The bounded selection agrees with a full sort of the histogram, and with a count of the rows.
        #expect(Array(state.tagHistogram(in: .public).prefix(50)) == top)
        let counted = Self.rows.filter { $0.illust.tags.contains { $0.name == "オリジナル" } }.count
        #expect(top[0].count == counted)
    }

    @Test func allOfFilterReadsOnlyThePostingsOfItsTagsAndTheRowsCarryingBoth() {
        let state = Self.state
        let histogram = state.tagHistogram(in: .public)
        let common = histogram[40], rare = histogram[400]
        let filter = BookmarkFilter(allOf: [common.name, rare.name])
        let reads = QueryReads()
        let result = QueryReads.$current.withValue(reads) { state.bookmarks(in: .public, matching: filter, limit: 100) }
        #expect(reads.postingsRead == Set([common.name, rare.name].compactMap { state.tags.id(ofName: $0) }))
        #expect(rare.count < 100_000 / 100)

        let expected = Self.rows.filter { bookmark in
            let names = bookmark.illust.tags.map(\.name)
            return names.contains(common.name) && names.contains(rare.name)
        }
        // The postings are intersected before any row is read: only the rows carrying both.
        #expect(reads.rowCount == expected.count, "candidates are exactly the rows carrying both tags: no other row is read")
        #expect(expected.count < rare.count)
        #expect(result == Array(expected.prefix(100)))
    }

    @Test func aFilterWithoutTagsStopsAfterItsPage() {
        let state = Self.state
        let reads = QueryReads()
        let page = QueryReads.$current.withValue(reads) { state.bookmarks(in: .public, limit: 30) }
        #expect(page.count == 30)
        #expect(reads.rowCount < 60, "walks the list in order and stops: \(reads.rowCount) rows read")
    }
}
