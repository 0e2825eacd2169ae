import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import Testing

/// `IndexedBookmark.upserted(over:)` states the index's upsert rule for storages that keep rows:
/// folding it over a key's upserts gives the row the index itself stores.
@Suite struct UpsertRuleTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func foldingTheRuleGivesTheIndexesRow(seed: UInt64) {
        let generator = SyntheticBookmarks(tagCount: 50, invisibleShare: 0.5)
        var random = SeededRandom(seed: seed)
        var state = BookmarkIndexState()
        var rows: [Int: IndexedBookmark] = [:]
        for step in 0..<2_000 {
            let id = 1 + Int(random.next() % 12)
            var illust = generator.illust(id: id, using: &random)
            if random.next() % 3 == 0 { illust.vanishReason = VanishReason.allCases.randomElement(using: &random) }
            if random.next() % 3 == 0 { illust.vanishReason = nil }
            let seen = Date(timeIntervalSince1970: 1_780_000_000 + Double(random.next() % 100_000))
            let bookmark = IndexedBookmark(
                illust: illust, restrict: .public, serverOrder: Int64(random.next() % 1_000),
                firstIndexedAt: seen.addingTimeInterval(-Double(random.next() % 5_000)), lastSeenAt: seen,
                vanishedAt: random.next() % 2 == 0 ? seen.addingTimeInterval(-7) : nil
            )
            if random.next() % 17 == 0 {
                state.apply(.remove(bookmark.key))
                rows[id] = nil
                continue
            }
            state.apply(.upsert(bookmark))
            rows[id] = bookmark.upserted(over: rows[id])
            #expect(state.bookmark(for: bookmark.key) == rows[id], "step \(step), illust \(id)")
        }
    }
}
