@testable import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import Testing

/// A text filter with no tag to select by scans the list's folded texts once
/// (`TextSearchIndex`); it must answer as the row-by-row match does, and follow every write.
@Suite("Text search index")
struct TextSearchIndexTests {
    private static let pieces = ["夏", "の", "空", "Sunset", "SUN", "é", "É", "e\u{301}", "Σ", "σ", "ß", "İ", "\u{212A}", "ル", "\u{0}", "#9", " ", "Ａ", "ａ", "🌸"]

    private func bookmark(_ id: Int, title: String, artist: String, order: Int64, restrict: Restrict = .public) -> BookmarkChange {
        .upsert(IndexedBookmark(
            illust: BookmarkedIllustSnapshot(id: id, title: title, artistName: artist, tags: [ArtworkTag(name: id % 2 == 0 ? "even" : "odd")]),
            restrict: restrict, serverOrder: order, firstIndexedAt: Date(timeIntervalSinceReferenceDate: 0), lastSeenAt: Date(timeIntervalSinceReferenceDate: 0)
        ))
    }

    private func text(_ random: inout SeededRandom, pieces count: Int) -> String {
        (0..<count).map { _ in Self.pieces[Int(random.next() % UInt64(Self.pieces.count))] }.joined()
    }

    /// The reference: the folded title or artist name contains the folded text.
    private func matches(_ needle: String, title: String, artist: String) -> Bool {
        let folded = Array(needle.lowercased().utf8)
        return [title, artist].contains { Array($0.lowercased().utf8).firstRange(of: folded) != nil }
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func answersAsTheReferenceOnRandomLists(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var state = BookmarkIndexState()
        var rows: [(id: Int, title: String, artist: String)] = []
        for id in 1...300 {
            let row = (id, text(&random, pieces: Int(random.next() % 6)), text(&random, pieces: Int(random.next() % 3)))
            rows.append(row)
            state.apply(bookmark(row.0, title: row.1, artist: row.2, order: Int64(id)))
        }
        for _ in 0..<200 {
            let needle = text(&random, pieces: 1 + Int(random.next() % 2))
            let expected = rows.reversed().filter { matches(needle, title: $0.title, artist: $0.artist) }.map(\.id)
            let found = state.bookmarks(in: .public, matching: BookmarkFilter(text: needle)).map(\.illust.id)
            if needle.lowercased().isEmpty {
                #expect(found.count == rows.count)
            } else {
                #expect(found == expected, "\(needle.unicodeScalars.map { String($0.value, radix: 16) })")
                #expect(state.count(in: .public, matching: BookmarkFilter(text: needle)) == expected.count)
                // The same text beside a tag goes row by row, and agrees.
                let evens = state.bookmarks(in: .public, matching: BookmarkFilter(allOf: ["even"], text: needle)).map(\.illust.id)
                #expect(evens == expected.filter { $0 % 2 == 0 })
            }
        }
    }

    @Test func aMatchNeverSpansTheTitleAndTheArtist() {
        var state = BookmarkIndexState()
        state.apply(bookmark(1, title: "ab", artist: "cd", order: 1))
        state.apply(bookmark(2, title: "b", artist: "c", order: 2))
        #expect(state.bookmarks(in: .public, matching: BookmarkFilter(text: "bc")).isEmpty)
        #expect(state.bookmarks(in: .public, matching: BookmarkFilter(text: "c")).map(\.illust.id) == [2, 1])
    }

    @Test func eachWriteIsSeenAndCopiesKeepTheirOwnRows() {
        var state = BookmarkIndexState()
        state.apply(bookmark(1, title: "夏の空", artist: "みどり", order: 1))
        #expect(state.bookmarks(in: .public, matching: BookmarkFilter(text: "空")).map(\.illust.id) == [1])
        let before = state
        state.apply([bookmark(2, title: "青い空", artist: "Kaito", order: 2), .remove(BookmarkKey(illustID: 1, restrict: .public))])
        #expect(state.bookmarks(in: .public, matching: BookmarkFilter(text: "空")).map(\.illust.id) == [2])
        #expect(before.bookmarks(in: .public, matching: BookmarkFilter(text: "空")).map(\.illust.id) == [1], "a copy from before the write")
        state.apply(bookmark(2, title: "青い海", artist: "Kaito", order: 2))
        #expect(state.bookmarks(in: .public, matching: BookmarkFilter(text: "空")).isEmpty)
        #expect(state.bookmarks(in: .public, matching: BookmarkFilter(text: "KAITO")).map(\.illust.id) == [2])
        #expect(state.bookmarks(in: .private, matching: BookmarkFilter(text: "kaito")).isEmpty, "each list has its own")
    }

    @Test func vanishedWorksMatchByWhatTheIndexKept() {
        var state = BookmarkIndexState()
        state.apply(bookmark(1, title: "夏の空", artist: "みどり", order: 1))
        state.apply(.upsert(IndexedBookmark(
            illust: BookmarkedIllustSnapshot(id: 1, title: "", vanishReason: .deleted), restrict: .public, serverOrder: 1,
            firstIndexedAt: Date(timeIntervalSinceReferenceDate: 0), lastSeenAt: Date(timeIntervalSinceReferenceDate: 9)
        )))
        #expect(state.bookmarks(in: .public, matching: BookmarkFilter(text: "夏")).isEmpty, "visible works only, by default")
        #expect(state.bookmarks(in: .public, matching: BookmarkFilter(text: "夏", visibility: .vanished)).map(\.illust.id) == [1])
    }
}
