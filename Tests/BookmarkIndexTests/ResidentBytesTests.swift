@testable import BookmarkIndex
import Foundation
import Testing

/// `BookmarksIndexStore.residentBytes`: an estimate that follows the rows the store keeps.
@Suite struct ResidentBytesTests {
    /// A bookmark like Pixiv's: a title, an artist, a thumbnail URL and ten tags, some shared.
    static func bookmark(_ id: Int, _ restrict: Restrict = .public) -> IndexedBookmark {
        var bookmark = row(
            id, restrict, tags: (0..<10).map { "tag\((id * 7 + $0 * 13) % 500)=translation \($0)" },
            order: Int64(-id), title: "Illustration number \(id)", artist: "artist \(id % 300)"
        )
        bookmark.illust.thumbnailURL = "https://i.pximg.net/c/250x250_80_a2/img-master/img/2024/01/01/00/00/00/\(id)_p0_square1200.jpg"
        return bookmark
    }

    static func fill(_ store: BookmarksIndexStore, ids: Range<Int>, in restrict: Restrict = .public) async throws {
        for start in stride(from: ids.lowerBound, to: ids.upperBound, by: 30) {
            try await store.upsert((start..<min(start + 30, ids.upperBound)).map { bookmark($0, restrict) })
        }
    }

    @Test func anEmptyStoreKeepsAlmostNothing() async throws {
        let store = try await BookmarksIndexStore(storage: InMemoryStorage())
        #expect(await store.residentBytes < 2_048)
    }

    @Test func itGrowsWithTheRowsAndFallsAfterRemovalsAndReset() async throws {
        let store = try await BookmarksIndexStore(storage: InMemoryStorage())
        let empty = await store.residentBytes
        try await Self.fill(store, ids: 0..<1_000)
        let thousand = await store.residentBytes
        try await Self.fill(store, ids: 1_000..<4_000)
        let fourThousand = await store.residentBytes
        // The first thousand rows interned every tag (5,000 name and translation pairs); the
        // next rows cost what a row costs: between 200 and 2,000 bytes for rows like these (a
        // real store: about 470).
        #expect(thousand - empty > 1_000 * 200)
        #expect((200...2_000).contains((fourThousand - thousand) / 3_000), "\((fourThousand - thousand) / 3_000) bytes a bookmark")

        // A full walk seeing every row again unchanged keeps what the rows keep.
        try await Self.fill(store, ids: 0..<4_000)
        #expect(await store.residentBytes <= fourThousand + fourThousand / 10)

        // Removing most rows frees their text and tags (packed), not their record slots.
        try await store.remove((0..<3_600).map { BookmarkKey(illustID: $0, restrict: .public) })
        let afterRemovals = await store.residentBytes
        #expect(afterRemovals < fourThousand - fourThousand / 4, "\(afterRemovals) after removing 90% of \(fourThousand)")

        try await store.resetStore()
        #expect(await store.residentBytes - empty < 1_024)
    }

    @Test func removingAListFreesItAndATextQueryCountsItsIndex() async throws {
        let store = try await BookmarksIndexStore(storage: InMemoryStorage())
        try await Self.fill(store, ids: 0..<600, in: .private)
        try await Self.fill(store, ids: 0..<600, in: .public)
        let both = await store.residentBytes
        _ = await store.bookmarks(in: .public, matching: BookmarkFilter(text: "number 12"))
        let withTextIndex = await store.residentBytes
        #expect(withTextIndex > both, "the text index a query built is kept, and counted")
        try await store.apply([.removeAll(.private)])
        let onePublicList = await store.residentBytes
        // The private list's rows are gone; the tags they interned stay in the table.
        #expect(both - onePublicList > 600 * 200, "\(onePublicList) of \(both)")
    }
}
