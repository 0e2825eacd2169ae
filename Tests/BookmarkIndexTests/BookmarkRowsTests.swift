@testable import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import Testing

/// A page's rows, copied out of the index and built when read: the same bookmarks the index
/// holds, and still the same after the index changes.
@Suite("Bookmark rows")
struct BookmarkRowsTests {
    static let generator = SyntheticBookmarks(tagCount: 60, invisibleShare: 0.1)

    /// 300 rows, some vanished with their content kept (so their rows hold both), some
    /// placeholders only.
    static func state() -> BookmarkIndexState {
        let rows = generator.indexedBookmarks(generator.illusts(count: 300, seed: 11), in: .public)
        var state = BookmarkIndexState()
        state.apply(rows.map(BookmarkChange.upsert))
        let vanishing = rows.enumerated().filter { $0.offset % 9 == 4 && $0.element.illust.isVisible }.map { placeholder(of: $0.element) }
        state.apply(vanishing.map(BookmarkChange.upsert))
        return state
    }

    static func placeholder(of bookmark: IndexedBookmark) -> IndexedBookmark {
        var placeholder = bookmark
        placeholder.illust.vanishReason = .deleted
        placeholder.illust.title = "-----"
        placeholder.illust.tags = []
        placeholder.lastSeenAt += 3_600
        return placeholder
    }

    @Test(arguments: [BookmarkSort.bookmarkOrder, .popularity, .bookmarkRate, .createDate.reversed(), .pageCount])
    func everyPageHoldsTheBookmarksTheIndexHolds(sort: BookmarkSort) {
        let state = Self.state()
        let filters = [BookmarkFilter(visibility: .all), BookmarkFilter(visibility: .vanished), BookmarkFilter(anyOf: ["girl", "猫"])]
        for filter in filters {
            let whole = state.bookmarks(in: .public, matching: filter, sortedBy: sort, after: nil, limit: 1_000).bookmarks
            // Built from the row, each equals the index's own value for its key, field by field.
            let byKey = whole.keys.map { state.bookmark(for: $0)! }
            #expect(Array(whole) == byKey, "\(filter) \(sort)")
            #expect(whole.keys == byKey.map(\.key))
            #expect(whole.count == state.count(in: .public, matching: filter))
            #expect(whole.contains { $0.vanishedAt != nil } == (filter.visibility != .visible))
            #expect(whole.contains { !$0.illust.tags.isEmpty })
            // Read again in pages of 7, the pages put together are the whole.
            var paged: [IndexedBookmark] = []
            var cursor: BookmarkCursor?
            for _ in 0...whole.count {
                let page = state.bookmarks(in: .public, matching: filter, sortedBy: sort, after: cursor, limit: 7)
                paged += page.bookmarks
                guard page.hasMore else { break }
                cursor = page.lastCursor
            }
            #expect(paged == Array(whole), "\(filter) \(sort)")
        }
    }

    /// Rows rewritten (new titles, hundreds of new tags, enough garbage to pack the arenas),
    /// removed, and the list reset: a page read before keeps every bookmark it had.
    @Test func aPageIsAValueAsOfItsRead() {
        var state = Self.state()
        let page = state.bookmarks(in: .public, matching: BookmarkFilter(visibility: .all), after: nil, limit: 120)
        let before = Array(page.bookmarks)
        let refsBefore = state.tags.refs.count
        let rewritten = state.allBookmarks(in: .public).enumerated().map { index, bookmark in
            var changed = bookmark
            changed.illust.title = "rewritten \(index) " + String(repeating: "長", count: index % 40)
            changed.illust.tags = (0..<8).map { ArtworkTag(name: "new tag \(index) \($0)", translatedName: $0 == 0 ? "new \(index)" : nil) }
            return changed
        }
        state.apply(rewritten.map(BookmarkChange.upsert))
        state.apply(rewritten.map(BookmarkChange.upsert))
        #expect(state.tags.refs.count >= refsBefore + 2_000, "the new tags fill chunks past the page's")
        #expect(Array(page.bookmarks) == before)
        state.apply(rewritten.prefix(200).map { BookmarkChange.remove($0.key) })
        state.apply(.removeAll(.public))
        #expect(state.count(in: .public) == 0)
        #expect(Array(page.bookmarks) == before)
        #expect(page.bookmarks.keys == before.map(\.key))
    }

    @Test func rowsCompareAndHashByTheirBookmarks() {
        let state = Self.state()
        let page = state.bookmarks(in: .public, after: nil, limit: 20).bookmarks
        let values = BookmarkRows(Array(page))
        #expect(values == page && page == values)
        #expect(values.hashValue == page.hashValue)
        #expect(Set([page, values]).count == 1)
        #expect(BookmarkRows(page.dropLast()) != page)
        var changed = Array(page)
        changed[3].illust.totalBookmarks += 1
        #expect(BookmarkRows(changed) != page)
        let empty: BookmarkRows = []
        #expect(empty.isEmpty && empty == BookmarkRows([IndexedBookmark]()) && empty.keys.isEmpty)
        #expect(page.description == Array(page).description)
        // A page of the private list keys its rows by that list.
        var both = state
        both.apply(page.map { bookmark in
            var moved = bookmark
            moved.restrict = .private
            return .upsert(moved)
        })
        #expect(both.bookmarks(in: .private, after: nil, limit: 20).bookmarks.keys.allSatisfy { $0.restrict == .private })
    }

    @Test func aChunkedArrayCopiesOneChunkWhenItGrowsShared() {
        var array = ChunkedArray<Int>()
        for value in 0..<2_500 { array.append(value) }
        #expect(Array(array) == Array(0..<2_500))
        #expect(array.chunks.count == 3 && array.chunks.allSatisfy { $0.count <= ChunkedArray<Int>.chunkSize })
        let held = array
        array.append(2_500)
        #expect(held.count == 2_500 && array.count == 2_501 && array[2_500] == 2_500)
        #expect(Array(held) == Array(0..<2_500))
        // The full chunks are still shared; only the last one was copied.
        func address(_ chunk: [Int]) -> UnsafePointer<Int>? { chunk.withUnsafeBufferPointer(\.baseAddress) }
        #expect(address(held.chunks[0]) == address(array.chunks[0]) && address(held.chunks[1]) == address(array.chunks[1]))
        #expect(address(held.chunks[2]) != address(array.chunks[2]))
        #expect(ChunkedArray(0..<5).map { $0 * 2 } == [0, 2, 4, 6, 8])
        #expect(ResidentBytes.of(array) >= 2_501 * MemoryLayout<Int>.stride)
    }
}
