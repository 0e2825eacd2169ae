@testable import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import Testing

/// Sorted feeds (issue 24): every key both ways, paged by cursor, against a naive sort of the
/// matches; ties in bookmark order; pages that rows added, removed and changed never shift.
@Suite("Sorts")
struct SortTests {
    static let state = FacetAccounts.state(count: 500, seed: 11)
    static let sorts: [BookmarkSort] = BookmarkSort.Key.allCases.flatMap { [BookmarkSort($0), BookmarkSort($0, .ascending)] }

    /// The key of `bookmark` in `sort`, as a Double that orders alike for these accounts.
    static func key(_ bookmark: IndexedBookmark, _ sort: BookmarkSort) -> Double {
        let illust = bookmark.illust
        switch sort.key {
        case .bookmarkOrder: return 0
        case .popularity: return Double(illust.totalBookmarks)
        case .bookmarkRate: return illust.totalView == 0 ? 0 : Double(illust.totalBookmarks) / Double(illust.totalView)
        case .createDate: return illust.createDate.timeIntervalSinceReferenceDate
        case .pageCount: return Double(illust.pageCount)
        }
    }

    /// Whether `a` comes before `b` in `sort`: by key, ties newest bookmark first; bookmark
    /// order ascending reversed whole.
    static func naiveIsBefore(_ a: IndexedBookmark, _ b: IndexedBookmark, _ sort: BookmarkSort) -> Bool {
        let newer = a.serverOrder != b.serverOrder ? a.serverOrder > b.serverOrder : a.illust.id > b.illust.id
        if sort.key == .bookmarkOrder { return sort.direction == .descending ? newer : !newer && a.illust.id != b.illust.id }
        let (x, y) = (key(a, sort), key(b, sort))
        if x != y { return sort.direction == .descending ? x > y : x < y }
        return newer
    }

    /// `matches` in `sort`.
    static func naiveSorted(_ matches: [IndexedBookmark], _ sort: BookmarkSort) -> [IndexedBookmark] {
        matches.sorted { naiveIsBefore($0, $1, sort) }
    }

    static func pages(_ state: BookmarkIndexState, _ filter: BookmarkFilter, _ sort: BookmarkSort, limit: Int) -> [Int] {
        var paged: [Int] = []
        var cursor: BookmarkCursor?
        for _ in 0...state.count(in: .public) {
            let page = state.bookmarks(in: .public, matching: filter, sortedBy: sort, after: cursor, limit: limit)
            #expect(page.sort == sort && page.lastCursor.map { $0.sort == sort } ?? true)
            paged += page.bookmarks.ids
            guard page.hasMore, let last = page.lastCursor else { break }
            cursor = last
        }
        return paged
    }

    @Test(arguments: sorts)
    func everySortPagesAsANaiveSortOfTheMatches(sort: BookmarkSort) {
        let state = Self.state
        var random = SeededRandom(seed: 500)
        for round in 0..<12 {
            let filter = round == 0 ? .all : FacetAccounts.filter(&random)
            let expected = Self.naiveSorted(FacetAccounts.naiveMatches(state, filter), sort).ids
            #expect(Self.pages(state, filter, sort, limit: 7) == expected, "\(sort), \(filter)")
            let first = state.bookmarks(in: .public, matching: filter, sortedBy: sort, after: nil, limit: 30)
            #expect(first.bookmarks.ids == Array(expected.prefix(30)) && first.hasMore == (expected.count > 30), "\(sort), \(filter)")
        }
    }

    @Test(arguments: sorts)
    func beforeReturnsTheNearestRowsAboveACursor(sort: BookmarkSort) {
        let state = Self.state
        var random = SeededRandom(seed: 600)
        for round in 0..<8 {
            let filter = round == 0 ? .all : FacetAccounts.filter(&random)
            let all = Self.naiveSorted(FacetAccounts.naiveMatches(state, filter), sort)
            guard !all.isEmpty else { continue }
            let place = all[all.count / 2]
            let above = Array(all.prefix(all.count / 2))
            let cursor = BookmarkCursor(place, sortedBy: sort)
            let every = state.bookmarks(in: .public, matching: filter, sortedBy: sort, before: cursor)
            #expect(every.bookmarks.ids == above.ids && !every.hasMore, "\(sort), \(filter)")
            let nearest = state.bookmarks(in: .public, matching: filter, sortedBy: sort, before: cursor, limit: 3)
            #expect(nearest.bookmarks.ids == Array(above.suffix(3)).ids && nearest.hasMore == (above.count > 3), "\(sort), \(filter)")
            #expect(nearest.firstCursor.map { $0.sort == sort } ?? true)
        }
    }

    @Test func tiesComeInBookmarkOrderAndAWorkWithNoViewsRatesZero() {
        var state = BookmarkIndexState()
        let seen = Date(timeIntervalSinceReferenceDate: 0)
        func row(_ id: Int, order: Int64, bookmarks: Int, views: Int, pages: Int = 1) -> BookmarkChange {
            .upsert(IndexedBookmark(
                illust: BookmarkedIllustSnapshot(id: id, title: "\(id)", pageCount: pages, totalBookmarks: bookmarks, totalView: views),
                restrict: .public, serverOrder: order, firstIndexedAt: seen, lastSeenAt: seen
            ))
        }
        state.apply([
            row(1, order: 5, bookmarks: 10, views: 0), row(2, order: 4, bookmarks: 0, views: 100),
            row(3, order: 3, bookmarks: 10, views: 100), row(4, order: 3, bookmarks: 20, views: 200, pages: 3),
            row(5, order: 1, bookmarks: 10, views: 50, pages: 3),
        ])
        func ids(_ sort: BookmarkSort) -> [Int] { state.bookmarks(in: .public, sortedBy: sort, after: nil, limit: 10).bookmarks.ids }
        #expect(ids(.bookmarkRate) == [5, 4, 3, 1, 2], "0.2, then 0.1 twice newest bookmark first (4 before 3 at equal order), then the two 0s")
        #expect(ids(.bookmarkRate.reversed()) == [1, 2, 4, 3, 5], "ties still newest bookmark first")
        #expect(ids(.popularity) == [4, 1, 3, 5, 2])
        #expect(ids(.pageCount) == [4, 5, 1, 2, 3])
        #expect(ids(.bookmarkOrder) == [1, 2, 4, 3, 5] && ids(.bookmarkOrder.reversed()) == [5, 3, 4, 2, 1])
    }

    /// Rows added, removed and changed between pages: each page is the rows after the cursor's
    /// place in the list as it is then, and every row that stayed unchanged comes once, in order.
    @Test(arguments: [BookmarkSort.popularity, .bookmarkRate.reversed(), .createDate, .pageCount.reversed(), .bookmarkOrder.reversed()])
    func rowsAddedRemovedAndChangedBetweenPagesNeverShiftThePages(sort: BookmarkSort) {
        var state = Self.state
        var random = SeededRandom(seed: 77)
        let filter = BookmarkFilter(ai: .excludingAI)
        let initial = Self.naiveSorted(FacetAccounts.naiveMatches(state, filter), sort).ids
        var touched = Set<Int>()
        var nextID = 950_000_000
        var cursor: BookmarkCursor?
        var lastRead: IndexedBookmark?
        var paged: [Int] = []
        for _ in 0...state.count(in: .public) {
            let page = state.bookmarks(in: .public, matching: filter, sortedBy: sort, after: cursor, limit: 9)
            let all = Self.naiveSorted(FacetAccounts.naiveMatches(state, filter), sort)
            // The rows after the last row read, where it was when it was read.
            let after = lastRead.map { last in all.filter { Self.naiveIsBefore(last, $0, sort) } } ?? all
            #expect(page.bookmarks.ids == Array(after.prefix(9)).ids, "\(sort)")
            #expect(page.hasMore == (after.count > 9))
            paged += page.bookmarks.ids
            guard page.hasMore, let last = page.lastCursor else { break }
            cursor = last
            lastRead = page.bookmarks.last

            var changes: [BookmarkChange] = []
            let rows = state.allBookmarks(in: .public)
            for _ in 0..<3 {
                var row = rows[Int(random.next() % UInt64(rows.count))]
                touched.insert(row.illust.id)
                if random.next() % 2 == 0 {
                    changes.append(.remove(row.key))
                } else {
                    FacetAccounts.randomize(&row, &random)
                    changes.append(.upsert(row))
                }
            }
            var added = FacetAccounts.generator.illust(id: nextID, using: &random)
            added.totalBookmarks = Int(random.next() % 6_000)
            touched.insert(nextID)
            nextID += 1
            changes.append(.upsert(IndexedBookmark(
                illust: added, restrict: .public, serverOrder: Int64(random.next() % 10_000),
                firstIndexedAt: Date(timeIntervalSince1970: 1_790_000_000), lastSeenAt: Date(timeIntervalSince1970: 1_790_000_000)
            )))
            state.apply(changes)
        }
        let stayed = initial.filter { !touched.contains($0) }
        #expect(paged.filter { !touched.contains($0) } == stayed, "\(sort): every row that stayed unchanged, once, in order")
        #expect(touched.count > 20)
    }

    /// A cursor is a place in the order it was read in: passed with another, it is refused.
    @Test func aCursorOfAnotherSortIsRefused() async {
        await #expect(processExitsWith: .failure) {
            var state = BookmarkIndexState()
            let seen = Date(timeIntervalSinceReferenceDate: 0)
            state.apply((1...3).map { .upsert(IndexedBookmark(
                illust: BookmarkedIllustSnapshot(id: $0, title: "", totalBookmarks: $0), restrict: .public,
                serverOrder: Int64($0), firstIndexedAt: seen, lastSeenAt: seen
            )) })
            let cursor = state.bookmarks(in: .public, sortedBy: .popularity, after: nil, limit: 1).lastCursor
            _ = state.bookmarks(in: .public, sortedBy: .pageCount, after: cursor, limit: 1)
        }
    }

    @Test func aCursorKeepsItsSortThroughCoding() throws {
        let page = Self.state.bookmarks(in: .public, sortedBy: .bookmarkRate, after: nil, limit: 3)
        let cursor = try #require(page.lastCursor)
        let decoded = try JSONDecoder().decode(BookmarkCursor.self, from: JSONEncoder().encode(cursor))
        #expect(decoded == cursor && decoded.sort == .bookmarkRate)
        let next = Self.state.bookmarks(in: .public, sortedBy: .bookmarkRate, after: decoded, limit: 3)
        #expect(next.bookmarks.ids == Self.state.bookmarks(in: .public, sortedBy: .bookmarkRate, after: nil, limit: 6).bookmarks.ids.suffix(3))
        // A cursor encoded before sorts existed is in bookmark order.
        let old = try JSONDecoder().decode(BookmarkCursor.self, from: Data(#"{"serverOrder":5,"illustID":7}"#.utf8))
        #expect(old == BookmarkCursor(serverOrder: 5, illustID: 7) && old.sort == .bookmarkOrder)
    }
}
