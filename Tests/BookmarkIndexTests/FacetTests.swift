@_spi(Testing) @testable import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import Testing

/// The facets of a filter sheet (issue 24): top artists with their last-known names, counts by
/// AI kind, age rating and kind, under random filters, against naive counts of the matches.
@Suite("Facets")
struct FacetTests {
    static let state = FacetAccounts.state(count: 600, seed: 42)

    /// The artists of `matches`, by count then ID, named as the index documents it: from the
    /// list's rows with content, visible ones first, then the one seen last, then the newest.
    static func naiveTopArtists(_ state: BookmarkIndexState, _ matches: [IndexedBookmark], limit: Int?) -> [ArtistCount] {
        var counts: [Int: Int] = [:]
        for bookmark in matches where bookmark.illust.artistID != 0 { counts[bookmark.illust.artistID, default: 0] += 1 }
        let sorted = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        let rows = state.allBookmarks(in: .public) // newest first
        return (limit.map { Array(sorted.prefix($0)) } ?? sorted).map { artist, count in
            let named = rows.filter {
                $0.illust.artistID == artist && !$0.illust.artistName.isEmpty && ($0.illust.isVisible || $0.vanishedAt != nil)
            }
            // Stable: among equals, the first (newest) stays first.
            let best = named.enumerated().min { a, b in
                if a.element.illust.isVisible != b.element.illust.isVisible { return a.element.illust.isVisible }
                if a.element.lastSeenAt != b.element.lastSeenAt { return a.element.lastSeenAt > b.element.lastSeenAt }
                return a.offset < b.offset
            }
            return ArtistCount(artistID: artist, name: best?.element.illust.artistName ?? "", count: count)
        }
    }

    static func naiveFacets(_ matches: [IndexedBookmark]) -> BookmarkFacets {
        var facets = BookmarkFacets(
            count: matches.count,
            aiKinds: Dictionary(uniqueKeysWithValues: AIKind.allCases.map { ($0, 0) }),
            ageRatings: Dictionary(uniqueKeysWithValues: AgeRating.allCases.map { ($0, 0) }),
            types: [.illust: 0, .manga: 0, .ugoira: 0]
        )
        for bookmark in matches {
            let illust = bookmark.illust
            facets.aiKinds[illust.aiType == 1 ? .notAIGenerated : illust.aiType == 2 ? .aiGenerated : .unknown]! += 1
            if let rating = [0: AgeRating.allAges, 1: .r18, 2: .r18g][illust.xRestrict] { facets.ageRatings[rating]! += 1 }
            facets.types[illust.type, default: 0] += 1
        }
        return facets
    }

    @Test(arguments: 0..<3 as Range<UInt64>)
    func randomFiltersFacetsAreTheNaiveCountsOfTheMatches(seed: UInt64) {
        let state = Self.state
        var random = SeededRandom(seed: 300 + seed)
        for round in 0..<40 {
            let filter = round == 0 ? .all : FacetAccounts.filter(&random)
            let matches = FacetAccounts.naiveMatches(state, filter)
            #expect(state.facets(in: .public, matching: filter) == Self.naiveFacets(matches), "\(filter)")
            for limit in [nil, 0, 1, 5] as [Int?] {
                #expect(state.topArtists(in: .public, matching: filter, limit: limit) == Self.naiveTopArtists(state, matches, limit: limit), "\(filter), limit \(limit.map(String.init) ?? "none")")
            }
        }
    }

    /// A filter of visibility only reads the counts of rows each artist has, which every write
    /// keeps and a checkpoint's rows rebuild: the account was made by upserts, placeholders
    /// over known works, rewrites that change a work's artist, removals, and new rows in freed
    /// slots.
    @Test func aFilterOfVisibilityOnlyCountsWhatTheListKeepsAsTheNaiveCount() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        let written = FacetAccounts.state(count: 300, seed: 7)
        try IndexCheckpoint.write(written, coverage: .init(schemaVersion: 5, journalID: 1, length: 1, lines: 1, lastSequence: 0, lastLineOffset: 0), directory: directory.url.path, fileSystem: PosixFileSystem())
        let read = try #require(try IndexCheckpoint.read(directory: directory.url.path, fileSystem: PosixFileSystem(), pool: .shared)).state
        for visibility in BookmarkFilter.Visibility.allCases {
            let filter = BookmarkFilter(visibility: visibility)
            let naive = Self.naiveTopArtists(written, FacetAccounts.naiveMatches(written, filter), limit: nil)
            #expect(naive.count > 5, "\(visibility)")
            for state in [written, read] {
                #expect(state.topArtists(in: .public, matching: filter) == naive, "\(visibility)")
                #expect(state.topArtists(in: .public, matching: filter, limit: 3) == Array(naive.prefix(3)), "\(visibility)")
            }
        }
    }

    @Test func theWholeListsFacetsAddUpAndNameEveryArtist() {
        let state = Self.state
        let facets = state.facets(in: .public)
        #expect(facets.count == state.count(in: .public, matching: .all))
        #expect(facets.aiKinds.values.reduce(0, +) == facets.count)
        #expect(facets.types.values.reduce(0, +) == facets.count && facets.types[IllustType(rawValue: "novel")] ?? 0 > 0)
        #expect(facets.ageRatings.values.reduce(0, +) < facets.count, "an x_restrict none of the three is counted in no rating")
        let artists = state.topArtists(in: .public)
        #expect(artists.count == FacetAccounts.artists.count && artists.allSatisfy { !$0.name.isEmpty })
        #expect(artists.map(\.count).reduce(0, +) == facets.count)
    }

    /// A vanished work counts by what the index kept of it; a placeholder it never saw with
    /// content counts by what Pixiv sent, and a deleted work's artist 0 is no artist.
    @Test func vanishedWorksCountByWhatTheIndexKept() {
        var state = BookmarkIndexState()
        let seen = Date(timeIntervalSinceReferenceDate: 1_000)
        func bookmark(_ illust: BookmarkedIllustSnapshot, order: Int64, seen: Date = seen) -> BookmarkChange {
            .upsert(IndexedBookmark(illust: illust, restrict: .public, serverOrder: order, firstIndexedAt: seen, lastSeenAt: seen))
        }
        state.apply([
            bookmark(BookmarkedIllustSnapshot(id: 1, title: "a", type: .manga, artistID: 7, artistName: "old name", xRestrict: 2, aiType: 2), order: 4),
            bookmark(BookmarkedIllustSnapshot(id: 1, title: "", artistID: 0, vanishReason: .deleted), order: 4, seen: seen + 500),
            bookmark(BookmarkedIllustSnapshot(id: 2, title: "", artistID: 0, vanishReason: .deleted), order: 3),
            bookmark(BookmarkedIllustSnapshot(id: 3, title: "", artistID: 7, vanishReason: .myPixivOnly), order: 2),
            bookmark(BookmarkedIllustSnapshot(id: 4, title: "b", artistID: 7, artistName: "new name", aiType: 1), order: 1, seen: seen + 100),
        ])
        let vanished = BookmarkFilter(visibility: .vanished)
        let facets = state.facets(in: .public, matching: vanished)
        #expect(facets.count == 3 && facets.aiKinds[.aiGenerated] == 1 && facets.aiKinds[.unknown] == 2)
        #expect(facets.ageRatings == [.allAges: 2, .r18: 0, .r18g: 1] && facets.types == [.illust: 2, .manga: 1, .ugoira: 0])
        #expect(state.topArtists(in: .public, matching: vanished) == [ArtistCount(artistID: 7, name: "new name", count: 2)],
                "artist 0 is no artist; the visible row's name wins over the vanished one seen later")
        #expect(state.topArtists(in: .public, matching: BookmarkFilter(visibility: .all)) == [ArtistCount(artistID: 7, name: "new name", count: 3)])
    }
}
