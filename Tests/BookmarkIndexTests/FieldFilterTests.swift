@testable import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import Testing

/// The filters on a work's fields (issue 24): AI, age rating, kind, pages, artist, dates,
/// alone and together with tags, text and visibility, against a naive reading of each.
@Suite("Field filters")
struct FieldFilterTests {
    static let state = FacetAccounts.state(count: 600, seed: 24)

    @Test(arguments: 0..<4 as Range<UInt64>)
    func randomFiltersMatchWhatANaiveReadingMatches(seed: UInt64) {
        let state = Self.state
        var random = SeededRandom(seed: 100 + seed)
        var nonEmpty = 0
        for _ in 0..<60 {
            let filter = FacetAccounts.filter(&random)
            let expected = FacetAccounts.naiveMatches(state, filter).ids
            if !expected.isEmpty { nonEmpty += 1 }
            #expect(state.bookmarks(in: .public, matching: filter).ids == expected, "\(filter)")
            #expect(state.count(in: .public, matching: filter) == expected.count, "\(filter)")
            #expect(state.bookmarks(in: .public, matching: filter, limit: 5, offset: 3).ids == Array(expected.dropFirst(3).prefix(5)), "\(filter)")
            var paged: [Int] = []
            var cursor: BookmarkCursor?
            for _ in 0...expected.count {
                let page = state.bookmarks(in: .public, matching: filter, after: cursor, limit: 7)
                paged += page.bookmarks.ids
                guard page.hasMore, let last = page.lastCursor else { break }
                cursor = last
            }
            #expect(paged == expected, "\(filter)")
            if let middle = expected.dropFirst(expected.count / 2).first,
               let place = state.bookmark(for: BookmarkKey(illustID: middle, restrict: .public)).map(BookmarkCursor.init) {
                let above = state.bookmarks(in: .public, matching: filter, before: place)
                #expect(above.bookmarks.ids == Array(expected.prefix(expected.count / 2)), "\(filter)")
            }
        }
        #expect(nonEmpty > 20, "the filters match something often enough to test")
    }

    @Test func eachConstraintAlone() {
        let state = Self.state
        let all = state.bookmarks(in: .public, matching: BookmarkFilter(visibility: .all))
        let from = Date(timeIntervalSinceReferenceDate: 500_000_000 + 5 * 86_400), to = from.addingTimeInterval(10 * 86_400)
        let filters: [BookmarkFilter] = [
            BookmarkFilter(ai: .excludingAI), BookmarkFilter(ai: .onlyAI),
            BookmarkFilter(ageRatings: [.allAges]), BookmarkFilter(ageRatings: [.r18, .r18g]),
            BookmarkFilter(types: [.manga]), BookmarkFilter(types: [IllustType(rawValue: "novel")]), BookmarkFilter(types: [.illust, .ugoira]),
            BookmarkFilter(pageCount: 1...1), BookmarkFilter(pageCount: 10...Int.max),
            BookmarkFilter(artistIDs: [1_003]), BookmarkFilter(artistIDs: [1_003, 1_004, 77]),
            BookmarkFilter(createDate: from..<to), BookmarkFilter(firstIndexedAt: Date(timeIntervalSinceReferenceDate: 700_000_000)..<Date(timeIntervalSinceReferenceDate: 700_000_000 + 86_400 * 3)),
        ]
        for filter in filters {
            for visibility in BookmarkFilter.Visibility.allCases {
                var filter = filter
                filter.visibility = visibility
                let expected = all.filter { visibility.includes(isVisible: $0.illust.isVisible) && FacetAccounts.passesFields($0, filter) }
                #expect(state.bookmarks(in: .public, matching: filter).ids == expected.ids, "\(filter)")
                #expect(!expected.isEmpty || visibility == .vanished, "\(filter) matches something")
            }
        }
        // Excluding AI keeps the works Pixiv says nothing of, and a code it may add later.
        let unknown = state.bookmarks(in: .public, matching: BookmarkFilter(ai: .excludingAI)).filter { $0.illust.aiKind == .unknown }
        #expect(Set(unknown.map(\.illust.aiType)) == [0, 7])
        #expect(state.count(in: .public, matching: BookmarkFilter(ageRatings: Set(AgeRating.allCases)))
            < state.count(in: .public, matching: .all), "an x_restrict none of the three has no rating")
    }

    /// Vanished works match by what the index kept of them: their last-known fields when it
    /// saw them with content, Pixiv's placeholder's otherwise.
    @Test func vanishedWorksMatchByWhatTheIndexKept() {
        var state = BookmarkIndexState()
        let work = BookmarkedIllustSnapshot(id: 1, title: "kept", type: .manga, artistID: 42, pageCount: 12, xRestrict: 1, aiType: 2)
        let seen = Date(timeIntervalSinceReferenceDate: 1_000)
        state.apply(.upsert(IndexedBookmark(illust: work, restrict: .public, serverOrder: 2, firstIndexedAt: seen, lastSeenAt: seen)))
        let placeholder = BookmarkedIllustSnapshot(id: 1, title: "", artistID: 0, vanishReason: .deleted)
        state.apply(.upsert(IndexedBookmark(illust: placeholder, restrict: .public, serverOrder: 2, firstIndexedAt: seen, lastSeenAt: seen)))
        let never = BookmarkedIllustSnapshot(id: 2, title: "", artistID: 42, vanishReason: .myPixivOnly)
        state.apply(.upsert(IndexedBookmark(illust: never, restrict: .public, serverOrder: 1, firstIndexedAt: seen, lastSeenAt: seen)))

        func ids(_ filter: BookmarkFilter) -> [Int] {
            var filter = filter
            filter.visibility = .vanished
            return state.bookmarks(in: .public, matching: filter).ids
        }
        #expect(ids(BookmarkFilter(ai: .onlyAI, ageRatings: [.r18], types: [.manga], pageCount: 10...Int.max)) == [1])
        #expect(ids(BookmarkFilter(artistIDs: [42])) == [1, 2])
        #expect(ids(BookmarkFilter(ai: .excludingAI)) == [2], "the placeholder says nothing of AI")
        #expect(ids(BookmarkFilter(types: [.illust], pageCount: 1...1)) == [2])
        #expect(state.bookmarks(in: .public, matching: BookmarkFilter(artistIDs: [42])).isEmpty, "visible works only by default")
    }

    /// A list read back from a checkpoint rebuilds the columns the filters read.
    @Test func aListReadFromACheckpointAnswersAlike() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = journalOptions(durability: .none)
        options.checkpointMinimumBytes = 0
        let journal = try await JournalStorage.open(directory: directory.url, options: options)
        let changes = Self.state.allBookmarks(in: .public).map(BookmarkChange.upsert)
        var model = BookmarkIndexState()
        model.apply(changes)
        try await journal.append(changes)
        try await journal.beginCompaction(to: model)()
        try await journal.close()
        let reopened = try await JournalStorage.open(directory: directory.url, options: options)
        #expect(reopened.recovery.checkpointNotUsed == nil)
        let state = try await reopened.load()
        try await reopened.close()
        #expect(state.count(in: .public) == Self.state.count(in: .public))
        var random = SeededRandom(seed: 7)
        for _ in 0..<40 {
            let filter = FacetAccounts.filter(&random)
            #expect(state.bookmarks(in: .public, matching: filter).ids == Self.state.bookmarks(in: .public, matching: filter).ids, "\(filter)")
        }
    }
}
