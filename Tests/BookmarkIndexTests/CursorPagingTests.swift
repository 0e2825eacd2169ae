@testable import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import Testing

/// Paging by cursor: a page is the rows after (or before) a place in the list, whatever was
/// added above or removed since; checked against the offset query, filtered by hand.
@Suite("Cursor paging", .hangLimit)
struct CursorPagingTests {
    static let generator = SyntheticBookmarks(tagCount: 40, invisibleShare: 0.1)

    static let filters: [BookmarkFilter] = [
        .all, BookmarkFilter(visibility: .all), BookmarkFilter(visibility: .vanished),
        BookmarkFilter(allOf: ["オリジナル"]), BookmarkFilter(anyOf: ["girl", "猫"]),
        BookmarkFilter(noneOf: ["女の子"], visibility: .all), BookmarkFilter(text: "sun"),
    ]

    /// 400 rows of a walk, every fifth with the order of the row above it (ties rank by ID).
    static func state() -> BookmarkIndexState {
        var rows = generator.indexedBookmarks(generator.illusts(count: 400, seed: 7), in: .public)
        for index in stride(from: 5, to: rows.count, by: 5) { rows[index].serverOrder = rows[index - 1].serverOrder }
        var state = BookmarkIndexState()
        state.apply(rows.map(BookmarkChange.upsert))
        return state
    }

    /// The page the cursor query must return: every match, newest first, cut by hand.
    static func naiveAfter(_ state: BookmarkIndexState, _ filter: BookmarkFilter, _ cursor: BookmarkCursor?, limit: Int) -> (ids: [Int], hasMore: Bool) {
        naiveAfter(state.bookmarks(in: .public, matching: filter), cursor, limit: limit)
    }

    /// ``naiveAfter(_:_:_:limit:)`` over `matches`, every match of a list that has not changed
    /// since they were read.
    static func naiveAfter(_ matches: [IndexedBookmark], _ cursor: BookmarkCursor?, limit: Int) -> (ids: [Int], hasMore: Bool) {
        let below = matches.filter { cursor?.precedes(BookmarkCursor($0)) ?? true }
        return (Array(below.prefix(limit)).ids, below.count > limit)
    }

    static func naiveBefore(_ state: BookmarkIndexState, _ filter: BookmarkFilter, _ cursor: BookmarkCursor) -> [Int] {
        state.bookmarks(in: .public, matching: filter).filter { BookmarkCursor($0).precedes(cursor) }.ids
    }

    @Test(arguments: filters)
    func pagesOfAStillListAreTheListInOrder(filter: BookmarkFilter) {
        let state = Self.state()
        // The list does not change: its matches, read once, are every page's.
        let matches = state.bookmarks(in: .public, matching: filter)
        for limit in [1, 7, 30, 1_000] {
            var cursor: BookmarkCursor?
            var paged: [Int] = []
            // A cursor that did not move on would page forever: bounded by the list's length.
            for _ in 0...state.count(in: .public) {
                let page = state.bookmarks(in: .public, matching: filter, after: cursor, limit: limit)
                let expected = Self.naiveAfter(matches, cursor, limit: limit)
                #expect(page.bookmarks.ids == expected.ids && page.hasMore == expected.hasMore)
                paged += page.bookmarks.ids
                guard page.hasMore, let last = page.lastCursor else { break }
                cursor = last
            }
            #expect(paged == matches.ids, "limit \(limit)")
            #expect(!paged.isEmpty)
        }
    }

    @Test(arguments: filters)
    func rowsAddedAboveOrRemovedBelowNeverShiftTheNextPage(filter: BookmarkFilter) {
        var state = Self.state()
        var random = SeededRandom(seed: 42)
        let initial = state.bookmarks(in: .public, matching: filter).ids
        var gone = Set<Int>(), added = Set<Int>()
        var nextID = 900_000_000
        var cursor: BookmarkCursor?
        var paged: [Int] = []
        var lastPlace: BookmarkCursor?
        // About twenty pages, whatever the filter's share of the list.
        let limit = max(2, initial.count / 20)
        for _ in 0...state.count(in: .public) {
            let page = state.bookmarks(in: .public, matching: filter, after: cursor, limit: limit)
            let expected = Self.naiveAfter(state, filter, cursor, limit: limit)
            #expect(page.bookmarks.ids == expected.ids && page.hasMore == expected.hasMore)
            for bookmark in page.bookmarks {
                if let lastPlace { #expect(lastPlace.precedes(BookmarkCursor(bookmark)), "pages go down the list") }
                lastPlace = BookmarkCursor(bookmark)
            }
            paged += page.bookmarks.ids
            guard page.hasMore, let last = page.lastCursor else { break }
            cursor = last

            // Meanwhile a sync adds rows on top, and rows are removed or moved to the top.
            var changes: [BookmarkChange] = []
            let newest = state.serverOrderBounds(in: .public)?.newest
            for index in 0..<Int(random.next() % 6) {
                let illust = Self.generator.illust(id: nextID, using: &random)
                added.insert(nextID)
                nextID += 1
                changes.append(.upsert(IndexedBookmark(
                    illust: illust, restrict: .public, serverOrder: ServerOrder.deltaOrder(index: index, above: newest),
                    firstIndexedAt: Date(timeIntervalSince1970: 1_790_000_000), lastSeenAt: Date(timeIntervalSince1970: 1_790_000_000)
                )))
            }
            let rows = state.allBookmarks(in: .public)
            let below = rows.filter { last.precedes(BookmarkCursor($0)) }
            let above = rows.filter { BookmarkCursor($0).precedes(last) }
            for _ in 0..<Int(random.next() % 3) where !below.isEmpty {
                let victim = below[Int(random.next() % UInt64(below.count))]
                gone.insert(victim.illust.id)
                changes.append(.remove(victim.key))
            }
            if random.next() % 3 == 0, !above.isEmpty {
                changes.append(.remove(above[Int(random.next() % UInt64(above.count))].key))
            }
            if random.next() % 3 == 0, var moved = below.first {
                // A row not yet paged is bookmarked again: it moves to the top, above the cursor.
                moved.serverOrder = ServerOrder.newest(above: newest.map { $0 + ServerOrder.deltaSpan })
                gone.insert(moved.illust.id)
                changes.append(.upsert(moved))
            }
            state.apply(changes)
        }
        #expect(Set(paged).count == paged.count, "no row twice")
        #expect(Set(paged).isDisjoint(with: added), "rows added above never shift in")
        let stayed = initial.filter { !gone.contains($0) }
        #expect(paged.filter { !gone.contains($0) } == stayed, "every row that stayed, once, in order")
        #expect(gone.count > 5 && !added.isEmpty)
    }

    @Test(arguments: filters)
    func beforeReturnsExactlyTheRowsThatAppearedAbove(filter: BookmarkFilter) throws {
        var state = Self.state()
        var random = SeededRandom(seed: 9)
        let first = state.bookmarks(in: .public, matching: filter, after: nil, limit: 20)
        let top = try #require(first.firstCursor)
        #expect(state.bookmarks(in: .public, matching: filter, before: top).bookmarks.isEmpty)
        let newest = state.serverOrderBounds(in: .public)?.newest
        var changes: [BookmarkChange] = []
        for index in 0..<60 {
            let illust = Self.generator.illust(id: 800_000_000 + index, using: &random)
            changes.append(.upsert(IndexedBookmark(
                illust: illust, restrict: .public, serverOrder: ServerOrder.deltaOrder(index: index, above: newest),
                firstIndexedAt: Date(timeIntervalSince1970: 1_790_000_000), lastSeenAt: Date(timeIntervalSince1970: 1_790_000_000)
            )))
        }
        // And one below the top row: not new, never in what is above.
        changes.append(.remove(first.bookmarks[first.bookmarks.count - 1].key))
        state.apply(changes)
        let new = Self.naiveBefore(state, filter, top)
        #expect(Set(new).isSubset(of: Set(800_000_000..<800_000_060)))
        #expect(new == state.bookmarks(in: .public, matching: filter).ids.filter { $0 >= 800_000_000 })

        let all = state.bookmarks(in: .public, matching: filter, before: top)
        #expect(all.bookmarks.ids == new && !all.hasMore)
        // Read upwards a few at a time: the nearest first, then the ones above them.
        var cursor = top
        var prepended: [Int] = []
        for _ in 0...state.count(in: .public) {
            let page = state.bookmarks(in: .public, matching: filter, before: cursor, limit: 4)
            let expected = Self.naiveBefore(state, filter, cursor)
            #expect(page.bookmarks.ids == Array(expected.suffix(4)) && page.hasMore == (expected.count > 4))
            prepended = page.bookmarks.ids + prepended
            guard page.hasMore, let next = page.firstCursor else { break }
            cursor = next
        }
        #expect(prepended == new)
    }

    @Test func aCursorInsideRowsOfOneOrderAndOfARemovedRow() {
        var state = BookmarkIndexState()
        state.apply((1...50).map { .upsert(row($0, tags: $0 % 2 == 0 ? ["猫"] : [], order: $0 <= 25 ? 7 : 3)) })
        for filter in [BookmarkFilter.all, BookmarkFilter(allOf: ["猫"])] {
            var cursor: BookmarkCursor?
            var paged: [Int] = []
            for _ in 0...50 {
                let page = state.bookmarks(in: .public, matching: filter, after: cursor, limit: 6)
                paged += page.bookmarks.ids
                guard page.hasMore else { break }
                cursor = page.lastCursor
            }
            #expect(paged == state.bookmarks(in: .public, matching: filter).ids)
        }
        // The cursor of a row that is gone still names its place.
        let place = BookmarkCursor(serverOrder: 7, illustID: 10)
        state.apply(.remove(BookmarkKey(illustID: 10, restrict: .public)))
        #expect(state.bookmarks(in: .public, after: place, limit: 3).bookmarks.ids == [9, 8, 7])
        #expect(state.bookmarks(in: .public, before: place, limit: 3).bookmarks.ids == [13, 12, 11])
        #expect(state.bookmarks(in: .public, after: BookmarkCursor(serverOrder: 7, illustID: 1), limit: 2).bookmarks.ids == [50, 49])
    }

    @Test func theStoreAnswersAsItsState() async throws {
        let store = try await BookmarksIndexStore(storage: InMemoryStorage())
        try await store.apply((1...10).map { .upsert(row($0, order: Int64($0))) })
        let page = await store.bookmarks(in: .public, after: nil, limit: 4)
        #expect(page.bookmarks.ids == [10, 9, 8, 7] && page.hasMore)
        #expect(await store.bookmarks(in: .public, after: page.lastCursor, limit: 4).bookmarks.ids == [6, 5, 4, 3])
        try await store.apply([.upsert(row(11, order: 11))])
        #expect(await store.bookmarks(in: .public, before: try #require(page.firstCursor)).bookmarks.ids == [11])
        #expect(await store.bookmarks(in: .public, after: page.lastCursor, limit: 4).bookmarks.ids == [6, 5, 4, 3])
    }
}
