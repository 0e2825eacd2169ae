@testable import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import Testing

/// 100,000 generated bookmarks: reads do not scan bookmarks, filters touch only named postings.
@Suite("Large index")
struct LargeIndexTests {
    static let state: BookmarkIndexState = {
        let generator = SyntheticBookmarks()
        var state = BookmarkIndexState()
        let rows = generator.indexedBookmarks(generator.illusts(count: 100_000, seed: 7), in: .public)
        for start in stride(from: 0, to: rows.count, by: 30) {
            state.apply(rows[start..<min(start + 30, rows.count)].map(BookmarkChange.upsert))
        }
        return state
    }()

    @Test func histogramIsReadFromTheMaintainedCounts() {
        let state = Self.state
        let top = state.tagHistogram(in: .public, limit: 50)
        #expect(top.count == 50)
        #expect(top.first?.name == "オリジナル")
        #expect(zip(top, top.dropFirst()).allSatisfy { $0.count > $1.count || ($0.count == $1.count && $0.name < $1.name) })
        // The bounded selection agrees with a full sort of the histogram.
        #expect(Array(state.tagHistogram(in: .public).prefix(50)) == top)
        // The counts are the per-tag totals kept on write; nothing here looks at a row.
        let list = state.lists[0]
        #expect(top[0].count == list.tagCount(of: state.tags.id(ofName: "オリジナル")!))
    }

    @Test func allOfFilterDrawsCandidatesFromTheRarestPostingOnly() {
        let state = Self.state
        let histogram = state.tagHistogram(in: .public)
        let common = histogram[40], rare = histogram[400]
        let filter = BookmarkFilter(allOf: [common.name, rare.name])
        let plan = state.queryPlan(in: .public, matching: filter)
        // Candidates are exactly the rarer tag's postings: no other row is read.
        #expect(plan.candidates?.count == rare.count)

        let result = state.bookmarks(in: .public, matching: filter, limit: 100)
        let expected = state.allBookmarks(in: .public).filter { bookmark in
            let names = bookmark.illust.tags.map(\.name)
            return names.contains(common.name) && names.contains(rare.name)
        }
        #expect(result == Array(expected.prefix(100)))
    }

    @Test func repeatedQueriesStayCheap() {
        let state = Self.state
        let names = state.tagHistogram(in: .public, limit: 200).map(\.name)
        var total = 0
        for index in 0..<2_000 {
            total += state.tagHistogram(in: .public, limit: 50).count
            total += state.bookmarks(in: .public, matching: BookmarkFilter(allOf: [names[index % 100 + 50], names[(index * 7) % 100 + 100]]), limit: 100).count
        }
        #expect(total >= 2_000 * 50)
    }
}
