@testable import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import Testing

/// What a sync reads of a row without materializing it agrees with the row materialized.
@Suite("Bookmark placement")
struct PlacementTests {
    @Test(arguments: [1, 2] as [UInt64])
    func aPlacementIsWhatTheBookmarkSays(seed: UInt64) {
        let generator = SyntheticBookmarks(tagCount: 50, tagsPerWork: 0...4, invisibleShare: 0.1)
        var state = BookmarkIndexState()
        var random = SeededRandom(seed: seed)
        var removed: [BookmarkKey] = []
        for restrict in Restrict.allCases {
            let illusts = generator.illusts(count: 200, seed: seed &+ UInt64(restrict.listIndex), firstIllustID: 1_000)
            state.apply(generator.indexedBookmarks(illusts, in: restrict).map { .upsert($0) })
            // Rewrites seen later (which keep the first-indexed date) and removals.
            let later = Date(timeIntervalSince1970: 1_790_000_000.5)
            for illust in illusts where random.next() % 4 == 0 {
                if random.next() % 2 == 0 {
                    removed.append(BookmarkKey(illustID: illust.id, restrict: restrict))
                    state.apply(.remove(removed.last!))
                } else {
                    state.apply(.upsert(IndexedBookmark(illust: illust, restrict: restrict, serverOrder: Int64(random.next() % 1_000), firstIndexedAt: later, lastSeenAt: later)))
                }
            }
        }
        for restrict in Restrict.allCases {
            let bookmarks = state.allBookmarks(in: restrict)
            var placements: [BookmarkPlacement] = []
            state.forEachPlacement(in: restrict) { placements.append($0) }
            #expect(placements.map(\.illustID) == bookmarks.map(\.illust.id))
            #expect(bookmarks.count > 100)
            for (placement, bookmark) in zip(placements, bookmarks) {
                #expect(placement.serverOrder == bookmark.serverOrder)
                #expect(placement.firstIndexedAt == bookmark.firstIndexedAt)
                #expect(placement.lastSeenAt == bookmark.lastSeenAt)
                #expect(state.placement(of: bookmark.key) == placement)
            }
            // A key the list never had.
            #expect(state.placement(of: BookmarkKey(illustID: 999, restrict: restrict)) == nil)
        }
        // Keys the lists had.
        #expect(removed.count > 10)
        for key in removed { #expect(state.placement(of: key) == nil) }
    }
}
