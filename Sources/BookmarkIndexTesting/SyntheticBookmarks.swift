import BookmarkIndex
import Foundation

/// Generates realistic bookmark data: reproducible from a seed, with Zipf-distributed tags from
/// a vocabulary of Japanese tag names (some with English translations), titles and artist names
/// that mix CJK, emoji, quotes and backslashes, Pixiv-shaped thumbnail URLs, and a share of works
/// the account can no longer see, of every kind.
///
/// A visible work has a view count (usually several per bookmark, unknown for one in 40); an
/// invisible work is what Pixiv sends for it: not visible, empty title and tags, 100 × 100,
/// zero counts, its kind's placeholder (Pixiv's `limit_<kind>_360.png`) as thumbnail, and
/// artist ID 0 if deleted, so the snapshot itself says its kind and `FakePixiv` serves it as
/// that kind. In an account from ``illusts(count:seed:firstIllustID:)`` the invisible works take
/// the kinds in turn, newest first (``invisibleKinds``), so any account with at least five of them
/// has every kind.
///
/// The demo, the benchmarks and the tests use it to build accounts of any size.
public struct SyntheticBookmarks: Sendable {
    /// The distinct tags the generator draws from; the first ones are the most common.
    public let vocabulary: [ArtworkTag]
    private let cumulativeWeights: [Double]
    private let tagsPerWork: ClosedRange<Int>
    private let invisibleShare: Double

    /// Creates a generator.
    ///
    /// - Parameters:
    ///   - tagCount: distinct tags in the vocabulary.
    ///   - tagsPerWork: how many tags each visible work gets.
    ///   - zipfExponent: the skew of tag popularity; tag k is drawn with weight 1 / k^s.
    ///   - invisibleShare: the fraction of works the account can no longer see (each drawn
    ///     independently; an account of 3,000 at the default 0.02 has about 60).
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

    /// The kinds of invisible works, in the order an account's invisible works take them.
    public static let invisibleKinds: [VanishReason] = [.deleted, .myPixivOnly, .sanityLimited, .unviewable, .unknown]

    /// The illusts of an account with `count` bookmarks, newest bookmark first.
    ///
    /// Illust IDs are distinct and start at `firstIllustID`. The invisible works cycle through
    /// ``invisibleKinds`` in list order, so every kind appears once there are five of them.
    public func illusts(count: Int, seed: UInt64, firstIllustID: Int = 100_000_000) -> [BookmarkedIllustSnapshot] {
        var random = SeededRandom(seed: seed)
        var invisibleSoFar = 0
        return (0..<count).map { index in
            let id = firstIllustID + (count - index) * 7 + Int(random.next() % 7)
            let work = illust(id: id, using: &random, invisibleKind: Self.invisibleKinds[invisibleSoFar % Self.invisibleKinds.count])
            if !work.isVisible { invisibleSoFar += 1 }
            return work
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

    /// One generated illust with the given ID; if it comes out invisible, its kind is
    /// ``invisibleKinds``[`id` % 5].
    public func illust(id: Int, using random: inout SeededRandom) -> BookmarkedIllustSnapshot {
        illust(id: id, using: &random, invisibleKind: Self.invisibleKinds[Int(id.magnitude % UInt(Self.invisibleKinds.count))])
    }

    /// One generated illust, of kind `invisibleKind` if it comes out invisible. The kind draws
    /// nothing from `random`, so it changes no other work of the account.
    private func illust(id: Int, using random: inout SeededRandom, invisibleKind: VanishReason) -> BookmarkedIllustSnapshot {
        let artistID = 1_000 + Int(random.next() % 20_000)
        let createDate = Date(timeIntervalSince1970: 1_400_000_000 + Double(random.next() % 380_000_000))
        if Double(random.next() % 10_000) / 10_000 < invisibleShare {
            // How Pixiv sends a work the account can no longer see.
            return BookmarkedIllustSnapshot(
                id: id, title: "", type: .illust, artistID: invisibleKind == .deleted ? 0 : artistID, artistName: "",
                tags: [], thumbnailURL: Self.placeholderImageURL(for: invisibleKind),
                pageCount: 1, width: 100, height: 100, createDate: createDate, vanishReason: invisibleKind
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
        let date = Self.imagePathTime(createDate)
        var work = BookmarkedIllustSnapshot(
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
            totalBookmarks: Int(random.next() % 50_000)
        )
        work.totalView = Self.views(id: id, bookmarks: work.totalBookmarks)
        return work
    }

    /// A view count for the work `id` with `bookmarks` bookmarks: 2 to 31 views a bookmark plus
    /// a few hundred, 0 (unknown) for one work in 40. Drawn from the ID, not from the random
    /// sequence, so adding it changed no other generated value.
    private static func views(id: Int, bookmarks: Int) -> Int {
        var hash = UInt64(bitPattern: Int64(id)) &* 0x9E37_79B9_7F4A_7C15
        hash ^= hash >> 29
        hash &*= 0xBF58_476D_1CE4_E5B9
        hash ^= hash >> 32
        if hash % 40 == 0 { return 0 }
        return bookmarks * Int(2 + hash % 30) + Int((hash >> 8) % 500)
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

    private static let commonTags: [ArtworkTag] = [
        ArtworkTag(name: "オリジナル", translatedName: "original"),
        ArtworkTag(name: "女の子", translatedName: "girl"),
        ArtworkTag(name: "風景", translatedName: "scenery"),
        ArtworkTag(name: "創作", translatedName: "creation"),
        ArtworkTag(name: "ファンタジー", translatedName: "fantasy"),
        ArtworkTag(name: "東方Project", translatedName: "Touhou Project"),
        ArtworkTag(name: "猫", translatedName: "cat"),
        ArtworkTag(name: "落書き", translatedName: "doodle"),
        ArtworkTag(name: "漫画", translatedName: "manga"),
        ArtworkTag(name: "メイド", translatedName: "maid"),
        ArtworkTag(name: "R-18", translatedName: nil),
        ArtworkTag(name: "背景", translatedName: "background"),
        ArtworkTag(name: "ケモノ", translatedName: "furry"),
        ArtworkTag(name: "制服", translatedName: "uniform"),
        ArtworkTag(name: "空", translatedName: "sky"),
        ArtworkTag(name: "夜", translatedName: "night"),
        ArtworkTag(name: "桜", translatedName: "cherry blossoms"),
        ArtworkTag(name: "ロボット", translatedName: "robot"),
        ArtworkTag(name: "ドラゴン", translatedName: "dragon"),
        ArtworkTag(name: "海", translatedName: "sea"),
        ArtworkTag(name: "AIイラスト", translatedName: "AI-generated illustration"),
        ArtworkTag(name: "ポケモン", translatedName: "Pokémon"),
        ArtworkTag(name: "初音ミク", translatedName: "Hatsune Miku"),
        ArtworkTag(name: "原神", translatedName: "Genshin Impact"),
        ArtworkTag(name: "VOCALOID", translatedName: nil),
    ]

    private static let syllables = ["あ", "か", "さ", "た", "な", "は", "ま", "や", "ら", "わ", "き", "し", "ち", "に", "ひ", "み", "り", "く", "す", "つ"]
    private static let words = ["sky", "night", "blue", "dream", "star", "rain", "light", "forest", "city", "winter"]

    private static func tag(_ rank: Int) -> ArtworkTag {
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
        return ArtworkTag(name: name, translatedName: translation)
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

    /// The time as Pixiv's image URLs spell it, `2024/01/31/12/34/56`, in Japan's time.
    static func imagePathTime(_ date: Date) -> String {
        let time = JapanTime(date)
        return [JapanTime.padded(time.year, 4), JapanTime.padded(time.month, 2), JapanTime.padded(time.day, 2),
                JapanTime.padded(time.hour, 2), JapanTime.padded(time.minute, 2), JapanTime.padded(time.second, 2)]
            .joined(separator: "/")
    }

    /// The image URL Pixiv sends in place of every image of a work invisible for `reason`
    /// (`limit_unknown_360.png` for a deleted work too).
    public static func placeholderImageURL(for reason: VanishReason) -> String {
        let kind = switch reason {
        case .deleted, .unknown: "unknown"
        case .myPixivOnly: "mypixiv"
        case .sanityLimited: "sanity_level"
        case .unviewable: "unviewable"
        case .hiddenByR18Setting: "r18"
        case .hiddenByR18GSetting: "r18g"
        }
        return "https://s.pximg.net/common/images/limit_\(kind)_360.png"
    }
}
