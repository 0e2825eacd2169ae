import BookmarkIndex
import Foundation

/// Generates realistic bookmark data: reproducible from a seed, with Zipf-distributed tags from
/// a vocabulary of Japanese tag names (some with English translations), titles and artist names
/// that mix CJK, emoji, quotes and backslashes, Pixiv-shaped thumbnail URLs, and a share of works
/// that were hidden or deleted after being bookmarked.
///
/// The demo, the benchmarks and the tests use it to build accounts of any size.
public struct SyntheticBookmarks: Sendable {
    /// The distinct tags the generator draws from; the first ones are the most common.
    public let vocabulary: [TagRef]
    private let cumulativeWeights: [Double]
    private let tagsPerWork: ClosedRange<Int>
    private let invisibleShare: Double

    /// Creates a generator.
    ///
    /// - Parameters:
    ///   - tagCount: distinct tags in the vocabulary.
    ///   - tagsPerWork: how many tags each visible work gets.
    ///   - zipfExponent: the skew of tag popularity; tag k is drawn with weight 1 / k^s.
    ///   - invisibleShare: the fraction of works that are hidden or deleted.
    public init(
        tagCount: Int = 5_000,
        tagsPerWork: ClosedRange<Int> = 6...10,
        zipfExponent: Double = 1.0,
        invisibleShare: Double = 0.02
    ) {
        precondition(tagCount >= tagsPerWork.upperBound, "the vocabulary must have at least tagsPerWork.upperBound tags")
        vocabulary = (0..<tagCount).map(Self.tag)
        var running = 0.0
        cumulativeWeights = (1...tagCount).map { rank in
            running += 1 / pow(Double(rank), zipfExponent)
            return running
        }
        self.tagsPerWork = tagsPerWork
        self.invisibleShare = invisibleShare
    }

    /// The illusts of an account with `count` bookmarks, newest bookmark first.
    ///
    /// Illust IDs are distinct and start at `firstIllustID`.
    public func illusts(count: Int, seed: UInt64, firstIllustID: Int = 100_000_000) -> [BookmarkedIllustSnapshot] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { index in
            illust(id: firstIllustID + (count - index) * 7 + Int(random.next() % 7), using: &random)
        }
    }

    /// The rows a complete sync of `illusts` (newest first) into `restrict` would store.
    public func indexedBookmarks(
        _ illusts: [BookmarkedIllustSnapshot],
        in restrict: Restrict,
        seenAt date: Date = Date(timeIntervalSince1970: 1_780_000_000)
    ) -> [IndexedBookmark] {
        illusts.enumerated().map { index, illust in
            IndexedBookmark(
                illust: illust,
                restrict: restrict,
                serverOrder: ServerOrder.walkOrder(index: index, below: nil),
                firstIndexedAt: date,
                lastSeenAt: date
            )
        }
    }

    /// One generated illust with the given ID.
    public func illust(id: Int, using random: inout SeededRandom) -> BookmarkedIllustSnapshot {
        let artistID = 1_000 + Int(random.next() % 20_000)
        let createDate = Date(timeIntervalSince1970: 1_400_000_000 + Double(random.next() % 380_000_000))
        if Double(random.next() % 10_000) / 10_000 < invisibleShare {
            // How Pixiv sends a work deleted or hidden after it was bookmarked.
            return BookmarkedIllustSnapshot(
                id: id, title: "", type: .illust, artistID: artistID, artistName: "",
                tags: [], thumbnailURL: "https://s.pximg.net/common/images/limit_unknown_360.png",
                pageCount: 1, width: 0, height: 0, createDate: createDate, isVisible: false
            )
        }
        let tagCount = tagsPerWork.lowerBound + Int(random.next() % UInt64(tagsPerWork.count))
        var indices: [Int] = []
        while indices.count < tagCount {
            let index = drawTagIndex(using: &random)
            if !indices.contains(index) { indices.append(index) }
        }
        let pages = random.next() % 5 == 0 ? 1 + Int(random.next() % 12) : 1
        let type: IllustType = random.next() % 10 == 0 ? .manga : (random.next() % 30 == 0 ? .ugoira : .illust)
        let date = createDate.formatted(.iso8601.year().month().day().dateSeparator(.omitted))
        return BookmarkedIllustSnapshot(
            id: id,
            title: Self.title(random: &random, id: id),
            type: type,
            artistID: artistID,
            artistName: Self.artistName(artistID),
            tags: indices.map { vocabulary[$0] },
            thumbnailURL: "https://i.pximg.net/c/360x360_70/img-master/img/\(date)/\(id)_p0_square1200.jpg",
            pageCount: pages,
            width: 600 + Int(random.next() % 3000),
            height: 600 + Int(random.next() % 3000),
            xRestrict: random.next() % 20 == 0 ? 1 : 0,
            aiType: random.next() % 8 == 0 ? 2 : 1,
            createDate: createDate,
            isVisible: true,
            totalBookmarks: Int(random.next() % 50_000)
        )
    }

    private func drawTagIndex(using random: inout SeededRandom) -> Int {
        let target = Double(random.next() >> 11) / Double(1 << 53) * cumulativeWeights[cumulativeWeights.count - 1]
        var low = 0, high = cumulativeWeights.count - 1
        while low < high {
            let mid = (low + high) / 2
            if cumulativeWeights[mid] < target { low = mid + 1 } else { high = mid }
        }
        return low
    }

    // MARK: Vocabulary

    private static let commonTags: [TagRef] = [
        TagRef(name: "オリジナル", translatedName: "original"),
        TagRef(name: "女の子", translatedName: "girl"),
        TagRef(name: "風景", translatedName: "scenery"),
        TagRef(name: "創作", translatedName: "creation"),
        TagRef(name: "ファンタジー", translatedName: "fantasy"),
        TagRef(name: "東方Project", translatedName: "Touhou Project"),
        TagRef(name: "猫", translatedName: "cat"),
        TagRef(name: "落書き", translatedName: "doodle"),
        TagRef(name: "漫画", translatedName: "manga"),
        TagRef(name: "メイド", translatedName: "maid"),
        TagRef(name: "R-18", translatedName: nil),
        TagRef(name: "背景", translatedName: "background"),
        TagRef(name: "ケモノ", translatedName: "furry"),
        TagRef(name: "制服", translatedName: "uniform"),
        TagRef(name: "空", translatedName: "sky"),
        TagRef(name: "夜", translatedName: "night"),
        TagRef(name: "桜", translatedName: "cherry blossoms"),
        TagRef(name: "ロボット", translatedName: "robot"),
        TagRef(name: "ドラゴン", translatedName: "dragon"),
        TagRef(name: "海", translatedName: "sea"),
        TagRef(name: "AIイラスト", translatedName: "AI-generated illustration"),
        TagRef(name: "ポケモン", translatedName: "Pokémon"),
        TagRef(name: "初音ミク", translatedName: "Hatsune Miku"),
        TagRef(name: "原神", translatedName: "Genshin Impact"),
        TagRef(name: "VOCALOID", translatedName: nil),
    ]

    private static let syllables = ["あ", "か", "さ", "た", "な", "は", "ま", "や", "ら", "わ", "き", "し", "ち", "に", "ひ", "み", "り", "く", "す", "つ"]
    private static let words = ["sky", "night", "blue", "dream", "star", "rain", "light", "forest", "city", "winter"]

    private static func tag(_ rank: Int) -> TagRef {
        if rank < commonTags.count { return commonTags[rank] }
        var name = ""
        var value = rank
        repeat {
            name += syllables[value % syllables.count]
            value /= syllables.count
        } while value > 0
        name += "\(rank)"
        // About half of Pixiv's long-tail tags come with a translation.
        let translation = rank % 2 == 0 ? "\(words[rank % words.count]) \(rank)" : nil
        return TagRef(name: name, translatedName: translation)
    }

    private static let titleParts = ["夏の空", "Sunset", "落書き", "\"Quoted\"", "back\\slash", "🌸 spring", "練習", "Commission", "星空 ✨", "無題"]

    private static func title(random: inout SeededRandom, id: Int) -> String {
        let first = titleParts[Int(random.next() % UInt64(titleParts.count))]
        let second = titleParts[Int(random.next() % UInt64(titleParts.count))]
        return "\(first) \(second) #\(id % 1000)"
    }

    private static func artistName(_ artistID: Int) -> String {
        let names = ["みどり", "Kaito", "ねこ丸", "Studio \"A\"", "夜空🌙", "R\\K", "さくら", "Hiro"]
        return "\(names[artistID % names.count])\(artistID % 97)"
    }
}
