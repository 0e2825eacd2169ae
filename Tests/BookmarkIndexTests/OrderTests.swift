import BookmarkIndex
import Foundation
import Testing

/// Server order, written the way the sync engine writes it (``ServerOrder``).
@Suite("Server order")
struct OrderTests {
    /// Writes `ids` (newest first) as a delta sync does: one batch per page of `pageSize`.
    func delta(_ ids: [Int], into state: inout BookmarkIndexState, pageSize: Int = 2) {
        let newest = state.serverOrderBounds(in: .public)?.newest
        for start in stride(from: 0, to: ids.count, by: pageSize) {
            let page = ids[start..<min(start + pageSize, ids.count)]
            state.apply(page.enumerated().map { offset, id in
                .upsert(row(id, order: ServerOrder.deltaOrder(index: start + offset, above: newest)))
            })
        }
    }

    /// Writes `ids` (newest first) as a complete full walk does, then prunes what it did not see.
    func fullWalk(_ ids: [Int], into state: inout BookmarkIndexState, pageSize: Int = 2) {
        let oldest = state.serverOrderBounds(in: .public)?.oldest
        for start in stride(from: 0, to: ids.count, by: pageSize) {
            let page = ids[start..<min(start + pageSize, ids.count)]
            state.apply(page.enumerated().map { offset, id in
                .upsert(row(id, order: ServerOrder.walkOrder(index: start + offset, below: oldest)))
            })
        }
        let seen = Set(ids)
        state.apply(state.allBookmarks(in: .public).filter { !seen.contains($0.illust.id) }.map { .remove($0.key) })
    }

    func order(_ state: BookmarkIndexState) -> [Int] {
        state.allBookmarks(in: .public).ids
    }

    @Test func deltaInsertsGoOnTopInPageOrder() {
        var state = BookmarkIndexState()
        fullWalk([10, 9, 8], into: &state)
        #expect(order(state) == [10, 9, 8])
        delta([14, 13, 12, 11], into: &state)
        #expect(order(state) == [14, 13, 12, 11, 10, 9, 8])
        delta([15], into: &state)
        #expect(order(state) == [15, 14, 13, 12, 11, 10, 9, 8])
        #expect(state.bookmarks(in: .public, limit: 3).ids == [15, 14, 13])
    }

    @Test func fullRewalkEstablishesExactServerOrder() {
        var state = BookmarkIndexState()
        fullWalk([5, 4, 3, 2, 1], into: &state)
        delta([7, 6], into: &state)
        // On the web: 3 was re-bookmarked (moves to the top), 4 and 6 were removed, 8 is new.
        let truth = [3, 8, 7, 5, 2, 1]
        fullWalk(truth, into: &state)
        #expect(order(state) == truth)
        #expect(state.bookmarks(in: .public).ids == truth)
        // A second walk of the same truth changes nothing.
        fullWalk(truth, into: &state)
        #expect(order(state) == truth)
    }

    @Test func aWalkInProgressKeepsSeenRowsInOrderBelowUnseenOnes() {
        var state = BookmarkIndexState()
        fullWalk([5, 4, 3, 2, 1], into: &state)
        let oldest = state.serverOrderBounds(in: .public)?.oldest
        state.apply([.upsert(row(2, order: ServerOrder.walkOrder(index: 0, below: oldest))),
                     .upsert(row(4, order: ServerOrder.walkOrder(index: 1, below: oldest)))])
        #expect(order(state) == [5, 3, 1, 2, 4])
    }

    @Test func inAppBookmarkGoesOnTop() {
        var state = BookmarkIndexState()
        fullWalk([3, 2, 1], into: &state)
        state.apply(.upsert(row(9, order: ServerOrder.newest(above: state.serverOrderBounds(in: .public)?.newest))))
        #expect(order(state) == [9, 3, 2, 1])
    }

    @Test func arbitraryOrdersAreSortedToo() {
        var state = BookmarkIndexState()
        state.apply([.upsert(row(1, order: 10)), .upsert(row(2, order: 30)), .upsert(row(3, order: 20))])
        #expect(order(state) == [2, 3, 1])
        state.apply(.upsert(row(1, order: 25)))
        #expect(order(state) == [2, 1, 3])
        #expect(state.serverOrderBounds(in: .public)! == (newest: 30, oldest: 20))
    }
}
