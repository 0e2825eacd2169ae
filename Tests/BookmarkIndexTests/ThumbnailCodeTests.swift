@testable import BookmarkIndex
@testable import BookmarkIndexTesting
import Foundation
import Testing

/// `ThumbnailCode`: Pixiv's thumbnail URLs in a few bytes, every URL given back exactly.
@Suite struct ThumbnailCodeTests {
    static func roundTrip(_ url: String, illustID: Int) -> (decoded: String, coded: [UInt8]) {
        let coded = ThumbnailCode.encode(url, illustID: illustID)
        return (coded.withUnsafeBufferPointer { ThumbnailCode.decode($0, illustID: illustID) }, coded)
    }

    static let squareMedium = "https://i.pximg.net/c/360x360_70/img-master/img/2024/01/31/12/34/56/123456789_p0_square1200.jpg"

    @Test func pixivsThumbnailsTakeNineBytes() {
        for url in [
            Self.squareMedium,
            "https://i.pximg.net/c/540x540_70/img-master/img/2018/09/10/00/00/04/123456789_p0_master1200.jpg",
            "https://i.pximg.net/c/600x1200_90/img-master/img/1999/12/31/23/59/59/123456789_p0_master1200.jpg",
            "https://i.pximg.net/c/250x250_80_a2/custom-thumb/img/2014/10/29/09/27/19/123456789_p0_custom1200.jpg",
        ] {
            let (decoded, coded) = Self.roundTrip(url, illustID: 123_456_789)
            #expect(decoded == url)
            #expect(coded.count == 9, "\(url): \(coded.count) bytes")
        }
    }

    @Test(arguments: [0, 1, 9, 10, 99, 100, 123_456_789, 999_999_999_999, Int.max] as [Int])
    func everyIDComesBackWithItsDigits(id: Int) {
        let url = "https://i.pximg.net/c/360x360_70/img-master/img/2024/01/31/12/34/56/\(id)_p0_square1200.jpg"
        let (decoded, coded) = Self.roundTrip(url, illustID: id)
        #expect(decoded == url)
        #expect(coded.count == 9)
    }

    @Test func aSizeOutsideTheTableIsSpelledOut() {
        let url = "https://i.pximg.net/c/480x960/img-master/img/2024/01/31/12/34/56/7_p0_square1200.jpg"
        let (decoded, coded) = Self.roundTrip(url, illustID: 7)
        #expect(decoded == url)
        #expect(coded.count == 2 + 1 + "480x960".utf8.count + 7)
    }

    /// What is not exactly the shape is kept verbatim: another work's ID, another page, a time
    /// that is not digits, a query after the name, another host.
    @Test func anythingElseIsKeptVerbatim() {
        let others = [
            Self.squareMedium.replacingOccurrences(of: "123456789_", with: "123456788_"),
            Self.squareMedium.replacingOccurrences(of: "_p0_", with: "_p1_"),
            Self.squareMedium.replacingOccurrences(of: "2024/01", with: "2024/0x"),
            Self.squareMedium + "?v=1",
            Self.squareMedium.replacingOccurrences(of: "i.pximg.net", with: "i-cf.pximg.net"),
            "https://s.pximg.net/common/images/limit_unknown_360.png",
            "", "/", "https://i.pximg.net/c/", "画像 🖼️ \"\\",
        ]
        for url in others {
            let (decoded, coded) = Self.roundTrip(url, illustID: 123_456_789)
            #expect(decoded == url)
            #expect(coded.count == 1 + url.utf8.count, "\(url) is kept as text")
        }
    }

    /// Every URL one edit away from the shape (each byte dropped, doubled or replaced) comes
    /// back exactly, coded or not; so do URLs of random bytes.
    @Test func everyURLComesBackExactly() {
        let bytes = Array(Self.squareMedium.utf8)
        var coded = 0
        for index in bytes.indices {
            var edits = [bytes, bytes, bytes]
            edits[0].remove(at: index)
            edits[1].insert(bytes[index], at: index)
            edits[2][index] = bytes[index] == UInt8(ascii: "7") ? UInt8(ascii: "8") : UInt8(ascii: "7")
            for edit in edits {
                let url = String(decoding: edit, as: UTF8.self)
                let (decoded, code) = Self.roundTrip(url, illustID: 123_456_789)
                #expect(decoded == url)
                if code.first != 0 { coded += 1 }
            }
        }
        // Digits of the time changed into other digits, or a longer size: still the shape.
        #expect(coded > 14)
        var random = SplitMix64(seed: 11)
        let alphabet = Array("/_.:0123456789abcdefpximgnetc-x画🖼️".unicodeScalars)
        for _ in 0..<2_000 {
            let length = Int(random.next() % 100)
            let url = String(String.UnicodeScalarView((0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }))
            #expect(Self.roundTrip(url, illustID: Int(random.next() % 1_000)).decoded == url)
        }
    }

    /// Decoding never traps, whatever bytes it is given (a checkpoint is checksummed, but the
    /// code does not rely on it).
    @Test func anyBytesDecodeWithoutTrapping() {
        var random = SplitMix64(seed: 12)
        var code = ThumbnailCode.encode(Self.squareMedium, illustID: 5)
        code += [255, 3] + Array("abc".utf8)
        for _ in 0..<5_000 {
            var bytes = Array(code.prefix(Int(random.next() % UInt64(code.count + 1))))
            for _ in 0..<Int(random.next() % 3) where !bytes.isEmpty {
                bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
            }
            _ = bytes.withUnsafeBufferPointer { ThumbnailCode.decode($0, illustID: 5) }
        }
        #expect([UInt8]().withUnsafeBufferPointer { ThumbnailCode.decode($0, illustID: 1) } == "")
    }

    /// The index gives back every thumbnail it was given, after updates that change only the
    /// thumbnail, and through a checkpoint; a row of Pixiv's shape keeps 9 bytes for it.
    @Test func theIndexGivesBackEveryThumbnail() throws {
        let generator = SyntheticBookmarks(tagCount: 40)
        var rows = generator.indexedBookmarks(generator.illusts(count: 300, seed: 3), in: .public)
        var state = BookmarkIndexState()
        state.apply(rows.map(BookmarkChange.upsert))
        let list = state.lists[0]
        let visible = list.slots.filter { $0.isLive && $0.isVisible }
        #expect(visible.count > 250 && visible.allSatisfy { $0.thumbnailLength == 9 }, "Pixiv's shape takes 9 bytes")
        for index in stride(from: 0, to: rows.count, by: 3) {
            rows[index].illust.thumbnailURL = index % 2 == 0 ? nil : rows[index].illust.thumbnailURL.map { $0 + "?v=2" }
        }
        state.apply(rows.map(BookmarkChange.upsert))
        let expected = Dictionary(uniqueKeysWithValues: rows.map { ($0.illust.id, $0.illust.thumbnailURL) })
        for bookmark in state.allBookmarks(in: .public) {
            #expect(bookmark.illust.thumbnailURL == expected[bookmark.illust.id]!)
        }
    }

    /// The synthetic works' thumbnails spell their time as Pixiv does, in Japan's time: the
    /// arithmetic agrees with `Calendar` from 1970 to 2100, around midnight and leap days too.
    @Test func syntheticThumbnailsSpellTheTimeAsPixivDoes() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 9 * 3600)!
        var random = SplitMix64(seed: 13)
        let edges: [TimeInterval] = [0, -1, 86_400 - 9 * 3600, 951_782_400 - 9 * 3600 - 1, 951_782_400, 4_102_444_799]
        for seconds in edges + (0..<2_000).map({ _ in TimeInterval(random.next() % 4_102_444_800) }) {
            let date = Date(timeIntervalSince1970: seconds)
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
            let expected = String(
                format: "%04d/%02d/%02d/%02d/%02d/%02d", parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!, parts.second!
            )
            #expect(SyntheticBookmarks.imagePathTime(date) == expected, "\(seconds)")
        }
    }
}
