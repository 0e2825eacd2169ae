@testable import BookmarkIndex
import BookmarkIndexTesting
import Foundation

/// Generated accounts whose works spread over every value the field filters, facets and sorts
/// read (issue 24), and a naive reading of a filter's field constraints to check them against.
enum FacetAccounts {
    static let generator = SyntheticBookmarks(tagCount: 40, invisibleShare: 0.08)
    /// Kinds, one of them none of Pixiv's three.
    static let types: [IllustType] = [.illust, .manga, .ugoira, IllustType(rawValue: "novel")]
    static let artists = Array(1_000..<1_030)

    /// A list of about `count` rows with random AI kinds (an unknown code among them), ratings,
    /// kinds, pages, artists, counts and dates, few distinct values each so that sort keys tie;
    /// then rows vanished over content, rows removed (their slots reused) and rows rewritten.
    static func state(count: Int, seed: UInt64) -> BookmarkIndexState {
        var random = SeededRandom(seed: seed)
        var rows = generator.indexedBookmarks(generator.illusts(count: count, seed: seed), in: .public)
        for index in rows.indices {
            randomize(&rows[index], &random)
            if index % 9 == 4 { rows[index].serverOrder = rows[index - 1].serverOrder }
        }
        var state = BookmarkIndexState()
        state.apply(rows.map(BookmarkChange.upsert))
        var changes: [BookmarkChange] = []
        for _ in 0..<count / 10 {
            let victim = rows[Int(random.next() % UInt64(rows.count))]
            switch random.next() % 3 {
            case 0:
                // Pixiv sends a placeholder: the row keeps what the index knew of the work.
                var placeholder = victim
                placeholder.illust = BookmarkedIllustSnapshot(id: victim.illust.id, title: "", artistID: 0, vanishReason: .deleted)
                changes.append(.upsert(placeholder))
            case 1:
                changes.append(.remove(victim.key))
            default:
                var rewritten = victim
                randomize(&rewritten, &random)
                changes.append(.upsert(rewritten))
            }
        }
        state.apply(changes)
        // New rows take the removed rows' slots.
        let added = generator.indexedBookmarks(generator.illusts(count: count / 20, seed: seed + 1, firstIllustID: 900_000_000), in: .public)
        state.apply(added.map { row in
            var row = row
            randomize(&row, &random)
            row.serverOrder = -Int64(random.next() % 5_000)
            return .upsert(row)
        })
        return state
    }

    static func randomize(_ row: inout IndexedBookmark, _ random: inout SeededRandom) {
        func draw(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
        row.firstIndexedAt = Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(draw(40)) * 86_400)
        row.lastSeenAt = row.firstIndexedAt.addingTimeInterval(Double(draw(4)) * 86_400)
        guard row.illust.isVisible else { return }
        row.illust.aiType = [0, 1, 1, 2, 7][draw(5)]
        row.illust.xRestrict = [0, 0, 1, 2, 5][draw(5)]
        row.illust.type = types[[0, 0, 0, 1, 2, 3][draw(6)]]
        row.illust.pageCount = [1, 1, 1, 2, 3, 10, 25][draw(7)]
        row.illust.artistID = artists[draw(artists.count)]
        row.illust.artistName = "artist \(row.illust.artistID) v\(draw(3))"
        row.illust.totalBookmarks = [0, 1, 5, 50, 500, 5_000][draw(6)]
        row.illust.totalView = [0, 10, 100, 1_000, 10_000][draw(5)]
        row.illust.createDate = Date(timeIntervalSinceReferenceDate: 500_000_000 + Double(draw(30)) * 86_400)
    }

    /// A random filter: each field constraint present about half the time, sometimes a tag.
    static func filter(_ random: inout SeededRandom) -> BookmarkFilter {
        func draw(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
        func some<Element>(_ values: [Element]) -> [Element] { values.filter { _ in draw(2) == 0 } }
        var filter = BookmarkFilter()
        if draw(2) == 0 { filter.ai = BookmarkFilter.AIFilter.allCases[draw(3)] }
        if draw(2) == 0 { filter.ageRatings = Set(some(AgeRating.allCases)) }
        if draw(2) == 0 { filter.types = Set(some(types)) }
        if draw(3) == 0 {
            let low = [1, 2, 3, 10][draw(4)]
            filter.pageCount = low...max(low, [low, 3, 10, Int.max][draw(4)])
        }
        if draw(3) == 0 { filter.artistIDs = Set((0..<1 + draw(3)).map { _ in artists[draw(artists.count)] } + [draw(2) == 0 ? 5 : 1_000]) }
        if draw(3) == 0 {
            let start = 500_000_000 + Double(draw(30)) * 86_400
            filter.createDate = Date(timeIntervalSinceReferenceDate: start)..<Date(timeIntervalSinceReferenceDate: start + Double(draw(15)) * 86_400)
        }
        if draw(3) == 0 {
            let start = 700_000_000 + Double(draw(40)) * 86_400
            filter.firstIndexedAt = Date(timeIntervalSinceReferenceDate: start)..<Date(timeIntervalSinceReferenceDate: start + Double(1 + draw(20)) * 86_400)
        }
        if draw(4) == 0 { filter.noneOf = ["女の子"] }
        if draw(6) == 0 { filter.allOf = ["オリジナル"] }
        if draw(8) == 0 { filter.text = "sun" }
        filter.visibility = [.visible, .visible, .vanished, .all][draw(4)]
        return filter
    }

    /// Whether `bookmark` passes `filter`'s field constraints, read naively from the bookmark.
    static func passesFields(_ bookmark: IndexedBookmark, _ filter: BookmarkFilter) -> Bool {
        let illust = bookmark.illust
        switch filter.ai {
        case .any: break
        case .excludingAI: if illust.aiType == 2 { return false }
        case .onlyAI: if illust.aiType != 2 { return false }
        }
        if !filter.ageRatings.isEmpty {
            let rating: AgeRating? = switch illust.xRestrict {
            case 0: .allAges
            case 1: .r18
            case 2: .r18g
            default: nil
            }
            guard let rating, filter.ageRatings.contains(rating) else { return false }
        }
        if !filter.types.isEmpty && !filter.types.contains(illust.type) { return false }
        if let pages = filter.pageCount, !pages.contains(illust.pageCount) { return false }
        if !filter.artistIDs.isEmpty && !filter.artistIDs.contains(illust.artistID) { return false }
        if let range = filter.createDate, !range.contains(illust.createDate) { return false }
        if let range = filter.firstIndexedAt, !range.contains(bookmark.firstIndexedAt) { return false }
        return true
    }

    /// `filter` without its field constraints: tags, text and visibility only.
    static func withoutFields(_ filter: BookmarkFilter) -> BookmarkFilter {
        BookmarkFilter(allOf: filter.allOf, anyOf: filter.anyOf, noneOf: filter.noneOf, text: filter.text, visibility: filter.visibility)
    }

    /// What `filter` matches, newest first: the index's answer to its tags, text and
    /// visibility, narrowed by the naive reading of the rest.
    static func naiveMatches(_ state: BookmarkIndexState, _ filter: BookmarkFilter) -> [IndexedBookmark] {
        state.bookmarks(in: .public, matching: withoutFields(filter)).filter { passesFields($0, filter) }
    }
}
