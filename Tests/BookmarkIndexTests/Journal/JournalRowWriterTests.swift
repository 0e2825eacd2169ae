@testable import BookmarkIndex
@testable import BookmarkIndexTesting
import BookmarkJSON
import Foundation
import Testing

/// `JournalRowWriter`, compaction's encoder, writes each row exactly as the journal's record
/// description writes the bookmark the row holds.
@Suite struct JournalRowWriterTests {
    /// The batch lines of every list of `state`, `perLine` rows a line, both ways: from the
    /// bookmarks made of the rows, and from the rows.
    static func lines(of state: BookmarkIndexState, perLine: Int) -> [(described: [UInt8], direct: [UInt8])] {
        let tags = JournalRowWriter.EncodedTags(state.tags.refs)
        return Restrict.allCases.flatMap { restrict in
            let rows = state.rowsNewestFirst(in: restrict)
            let writer = JournalRowWriter(state, restrict: restrict, tags: tags)
            return stride(from: 0, to: rows.count, by: perLine).map { start in
                let slice = rows[start..<min(start + perLine, rows.count)]
                var described = JSONWriter(), direct = JSONWriter()
                JournalCodec.appendBatch(sequence: start + 1, slice.map { .upsert(state.materialize($0, in: restrict)) }, to: &described)
                writer.appendBatch(sequence: start + 1, rows: slice, to: &direct)
                return (described.takeBytes(), direct.takeBytes())
            }
        }
    }

    static func expectSameLines(_ state: BookmarkIndexState, perLine: Int = 7, sourceLocation: SourceLocation = #_sourceLocation) {
        let lines = lines(of: state, perLine: perLine)
        #expect(lines.count >= 2, sourceLocation: sourceLocation)
        for (described, direct) in lines where described != direct {
            // The first difference past the checksum, which differs whenever anything does.
            let at = zip(described, direct).enumerated().first { $0.offset >= 16 && $0.element.0 != $0.element.1 }?.offset ?? min(described.count, direct.count)
            let around = { (bytes: [UInt8]) in String(decoding: bytes[max(0, at - 60)..<min(bytes.count, at + 60)], as: UTF8.self) }
            Issue.record("the lines differ at byte \(at):\ndescribed: …\(around(described))…\ndirect:    …\(around(direct))…", sourceLocation: sourceLocation)
            return
        }
    }

    /// Two generated accounts' lists, with works vanished (placeholders the index never saw
    /// visible, and works it saw vanish later, which keep their content and a date), rows
    /// removed and replaced, so that the arenas hold garbage and free slots.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func generatedListsAreWrittenAsDescribed(seed: UInt64) throws {
        let generator = SyntheticBookmarks(tagCount: 300, tagsPerWork: 0...12, invisibleShare: 0.1)
        var state = BookmarkIndexState()
        var random = SeededRandom(seed: seed)
        for restrict in Restrict.allCases {
            let illusts = generator.illusts(count: 400, seed: seed &* 31 &+ UInt64(restrict.listIndex), firstIllustID: 100_000 * (restrict.listIndex + 1))
            state.apply(generator.indexedBookmarks(illusts, in: restrict).map { .upsert($0) })
            let seenLater = Date(timeIntervalSince1970: 1_790_000_000.25)
            for illust in illusts where random.next() % 8 == 0 {
                switch random.next() % 3 {
                case 0:
                    state.apply(.remove(BookmarkKey(illustID: illust.id, restrict: restrict)))
                case 1:
                    let placeholder = BookmarkedIllustSnapshot(
                        id: illust.id, title: "", thumbnailURL: SyntheticBookmarks.placeholderImageURL(for: .deleted), vanishReason: .deleted
                    )
                    state.apply(.upsert(IndexedBookmark(illust: placeholder, restrict: restrict, serverOrder: -1, firstIndexedAt: seenLater, lastSeenAt: seenLater)))
                default:
                    var changed = illust
                    changed.title += " (edited)"
                    changed.tags.reverse()
                    state.apply(.upsert(IndexedBookmark(illust: changed, restrict: restrict, serverOrder: -2, firstIndexedAt: seenLater, lastSeenAt: seenLater)))
                }
            }
        }
        #expect(state.rowsNewestFirst(in: .public).contains { !$0.isVisible && $0.hasVanishedAt })
        #expect(state.rowsNewestFirst(in: .private).contains { !$0.isVisible && !$0.hasVanishedAt })
        Self.expectSameLines(state)
    }

    /// Values at the edges of what each member holds: text that must be escaped, every kind of
    /// thumbnail, kinds Pixiv may add, dates with fractions and before 2001, extreme numbers.
    @Test func oddValuesAreWrittenAsDescribed() {
        let titles = ["", "\"quoted\"", "back\\slash", "tab\tnew\nline\r\u{01}\u{1F}\u{7F}", "夏の空 🌸 ✨", "</script>", String(repeating: "長", count: 300)]
        let thumbnails: [String?] = [
            nil, "", ThumbnailCodeTests.squareMedium,
            "https://i.pximg.net/c/480x960/custom-thumb/img/2024/01/31/12/34/56/7_p0_custom1200.jpg",
            "https://s.pximg.net/common/images/limit_unknown_360.png", "画像 \"🖼️\" \\ \u{02}",
        ]
        let types: [IllustType] = [.illust, .manga, .ugoira, IllustType(rawValue: "novel"), IllustType(rawValue: "odd \"kind\"\n")]
        let dates = [0, 1.5, -0.25, -978_307_200, 1e15, 1e16 + 2, 123_456_789.123_456_7, -1e-300, Double.leastNonzeroMagnitude]
        let numbers = [0, 1, -1, Int.max, Int.min, 4_294_967_295]
        var state = BookmarkIndexState()
        for index in 0..<120 {
            let illustID = index == 0 ? Int.max : index == 1 ? 0 : 1_000 + index
            let vanish: VanishReason? = index % 9 == 4 ? VanishReason.allCases[index % VanishReason.allCases.count] : nil
            let illust = BookmarkedIllustSnapshot(
                id: illustID,
                title: titles[index % titles.count],
                type: types[index % types.count],
                artistID: numbers[index % numbers.count],
                artistName: titles[(index + 3) % titles.count],
                tags: (0..<(index % 5)).map { ArtworkTag(name: titles[($0 + index) % titles.count] + "\($0)", translatedName: $0 % 2 == 0 ? nil : "t\"\($0)") },
                thumbnailURL: thumbnails[index % thumbnails.count].map { $0.replacingOccurrences(of: "/7_", with: "/\(illustID)_") },
                pageCount: numbers[(index + 1) % numbers.count],
                width: numbers[(index + 2) % numbers.count],
                height: index,
                xRestrict: index % 3,
                aiType: index % 4 - 1,
                createDate: Date(timeIntervalSinceReferenceDate: dates[index % dates.count]),
                vanishReason: vanish,
                totalBookmarks: numbers[(index + 4) % numbers.count],
                totalView: index * 1_000_003
            )
            let restrict = Restrict.allCases[index % 2]
            let date = Date(timeIntervalSinceReferenceDate: dates[(index + 5) % dates.count])
            state.apply(.upsert(IndexedBookmark(illust: illust, restrict: restrict, serverOrder: Int64(index - 60) * 1_000_000_007, firstIndexedAt: date, lastSeenAt: date)))
        }
        Self.expectSameLines(state, perLine: 5)
    }

    /// A tag table with no tags, and lists with no rows, still write as described.
    @Test func aListOfTaglessWorksIsWrittenAsDescribed() {
        var state = BookmarkIndexState()
        state.apply((1...20).map { .upsert(IndexedBookmark(illust: BookmarkedIllustSnapshot(id: $0, title: "w\($0)"), restrict: .private, serverOrder: Int64($0), firstIndexedAt: Date(timeIntervalSinceReferenceDate: 0), lastSeenAt: Date(timeIntervalSinceReferenceDate: 0))) })
        #expect(state.tags.refs.isEmpty)
        Self.expectSameLines(state, perLine: 3)
    }
}
