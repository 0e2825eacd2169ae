@testable import BookmarkIndex
import Foundation
import Testing

/// A page in bookmark order whose filter draws candidates either walks the list in order,
/// testing each candidate's bit before it reads a row, or tests every candidate; the walk gives
/// up for the test when the candidates lie deeper than its budget. Either way the page is the
/// one a naive filter gives.
@Suite("Candidate walks")
struct CandidateWalkTests {
    /// 20,000 rows, newest with the largest order: every tenth carries "spread", the 2,000
    /// oldest carry "old", and every seventh carries "seventh" too.
    static let state: BookmarkIndexState = {
        var state = BookmarkIndexState()
        state.apply((0..<20_000).map { index in
            var tags: [String] = []
            if index % 10 == 0 { tags.append("spread") }
            if index < 2_000 { tags.append("old") }
            if index % 7 == 0 { tags.append("seventh") }
            return .upsert(row(index + 1, tags: tags, order: Int64(index)))
        })
        return state
    }()

    static func naive(_ filter: BookmarkFilter) -> [Int] {
        state.allBookmarks(in: .public).filter { bookmark in
            let names = Set(bookmark.illust.tags.map(\.name))
            return filter.allOf.allSatisfy(names.contains) && (filter.anyOf.isEmpty || filter.anyOf.contains(where: names.contains))
        }.map(\.illust.id)
    }

    static let filters = [
        BookmarkFilter(anyOf: ["spread"]), BookmarkFilter(anyOf: ["old"]), BookmarkFilter(anyOf: ["spread", "old"]),
        BookmarkFilter(allOf: ["spread"]), BookmarkFilter(allOf: ["old", "seventh"]), BookmarkFilter(allOf: ["spread"], anyOf: ["seventh"]),
    ]

    @Test(arguments: filters)
    func pagesAreTheNaiveFiltersWhicheverWayTheyAreFound(filter: BookmarkFilter) {
        let expected = Self.naive(filter)
        #expect(!expected.isEmpty)
        for limit in [1, 31, 500] {
            var cursor: BookmarkCursor?
            var paged: [Int] = []
            repeat {
                let page = Self.state.bookmarks(in: .public, matching: filter, after: cursor, limit: limit)
                paged += page.bookmarks.map(\.illust.id)
                #expect(page.hasMore == (paged.count < expected.count))
                guard page.hasMore else { break }
                cursor = page.lastCursor
            } while true
            #expect(paged == expected, "limit \(limit)")
            for offset in [0, 3, 1_990] {
                let rows = Self.state.bookmarks(in: .public, matching: filter, limit: limit, offset: offset).map(\.illust.id)
                #expect(rows == Array(expected.dropFirst(offset).prefix(limit)), "limit \(limit), offset \(offset)")
            }
        }
    }

    /// Candidates spread through the list: the walk reads only the rows it returns.
    @Test func spreadCandidatesAreFoundByWalkingInOrder() {
        let reads = QueryReads()
        let page = QueryReads.$current.withValue(reads) {
            Self.state.bookmarks(in: .public, matching: BookmarkFilter(anyOf: ["spread"]), after: nil, limit: 30)
        }
        #expect(page.bookmarks.count == 30 && page.hasMore)
        #expect(reads.rowCount == 31, "the 30 rows and the one that says there are more: \(reads.rowCount)")
    }

    /// Candidates deep in the list: the walk gives up at its budget, with no row read, and each
    /// candidate is tested instead.
    @Test func deepCandidatesAreTestedWhenTheWalkRunsOutOfBudget() throws {
        var plan = Self.state.queryPlan(in: .public, matching: BookmarkFilter(anyOf: ["old"]))
        let budget = try #require(plan.walkBudget(forFirst: 31))
        #expect(budget < 18_000, "the walk cannot reach the old rows")
        #expect(Self.state.firstMatches(31, of: &plan, after: nil) == nil)

        let reads = QueryReads()
        let page = QueryReads.$current.withValue(reads) {
            Self.state.bookmarks(in: .public, matching: BookmarkFilter(anyOf: ["old"]), after: nil, limit: 30)
        }
        #expect(page.bookmarks.map(\.illust.id) == Array((1_971...2_000).reversed()))
        #expect(reads.rowCount == 2_000, "every candidate's place, none read by the walk")
    }

    /// Few candidates among many rows: they are tested from the start.
    @Test func fewCandidatesAreTestedWithoutAWalk() {
        let plan = Self.state.queryPlan(in: .public, matching: BookmarkFilter(allOf: ["old", "seventh"]))
        #expect(plan.candidates?.count == 286)
        #expect(plan.walkBudget(forFirst: 31) == nil)
    }
}
