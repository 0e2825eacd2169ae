@testable import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import Testing

/// What the index does with a work that vanished from Pixiv: a placeholder keeps what the index
/// knew, filters, counts and histograms see it only when asked, and a visible page restores it.
@Suite("Vanished works")
struct VanishedWorksTests {
    /// A placeholder as Pixiv sends it (and PixivIllust.snapshot maps it): no title, no tags, no artist name.
    static func placeholder(_ id: Int, _ reason: VanishReason, order: Int64, seen: TimeInterval) -> BookmarkChange {
        .upsert(IndexedBookmark(
            illust: BookmarkedIllustSnapshot(
                id: id, title: "", artistID: reason == .deleted ? 0 : id % 100,
                thumbnailURL: "https://s.pximg.net/common/images/limit_unknown_360.png", width: 100, height: 100, vanishReason: reason
            ),
            restrict: .public, serverOrder: order,
            firstIndexedAt: Date(timeIntervalSince1970: seen), lastSeenAt: Date(timeIntervalSince1970: seen)
        ))
    }

    /// Rows 1...4 synced at 1,000; then 2 deleted and 3 limited to My pixiv seen at 2,000; 5 a
    /// placeholder the index never saw with content.
    static let state: BookmarkIndexState = {
        var state = BookmarkIndexState()
        state.apply([
            .upsert(row(1, tags: ["オリジナル=original", "風景=scenery"], order: 1, title: "Morning sea", artist: "Kaito")),
            .upsert(row(2, tags: ["オリジナル=original", "猫=cat"], order: 2, title: "Cat nap", artist: "ねこ丸")),
            .upsert(row(3, tags: ["女の子=girl", "猫=cat"], order: 3, title: "夏の空", artist: "みどり")),
            .upsert(row(4, tags: ["オリジナル=original"], order: 4, title: "Sunset", artist: "Hiro")),
        ])
        state.apply([placeholder(2, .deleted, order: 2, seen: 2_000), placeholder(3, .myPixivOnly, order: 3, seen: 2_000)])
        state.apply(placeholder(5, .unknown, order: 5, seen: 2_000))
        return state
    }()

    func ids(_ filter: BookmarkFilter, in state: BookmarkIndexState = Self.state) -> [Int] {
        state.bookmarks(in: .public, matching: filter).ids
    }

    @Test func aPlaceholderKeepsWhatTheIndexKnewAndRecordsWhenAndWhy() throws {
        let kept = try #require(Self.state.bookmark(for: BookmarkKey(illustID: 2, restrict: .public)))
        let before = row(2, tags: ["オリジナル=original", "猫=cat"], order: 2, title: "Cat nap", artist: "ねこ丸")
        var expected = before
        expected.illust.vanishReason = .deleted
        expected.lastSeenAt = Date(timeIntervalSince1970: 2_000)
        expected.vanishedAt = Date(timeIntervalSince1970: 2_000)
        #expect(kept == expected, "title, artist, tags (with translations), thumbnail, size and counts are the last known")

        let never = try #require(Self.state.bookmark(for: BookmarkKey(illustID: 5, restrict: .public)))
        #expect(never.illust.title.isEmpty && never.illust.vanishReason == .unknown)
        #expect(never.vanishedAt == nil, "never seen with content: no vanish date, nothing kept")
    }

    @Test func laterPlaceholdersKeepTheFirstVanishDateAndTakeTheLatestReason() throws {
        var state = Self.state
        state.apply(Self.placeholder(2, .unviewable, order: 7, seen: 3_000))
        let row = try #require(state.bookmark(for: BookmarkKey(illustID: 2, restrict: .public)))
        #expect(row.illust.vanishReason == .unviewable)
        #expect(row.vanishedAt == Date(timeIntervalSince1970: 2_000))
        #expect(row.lastSeenAt == Date(timeIntervalSince1970: 3_000) && row.serverOrder == 7)
        #expect(row.illust.title == "Cat nap" && row.illust.tags.map(\.name) == ["オリジナル", "猫"])
        #expect(row.firstIndexedAt == Date(timeIntervalSince1970: 1_000))
    }

    @Test func aVisiblePageRestoresPixivsDataAndClearsTheMark() throws {
        var state = Self.state
        state.apply(.upsert(row(2, tags: ["創作=creation"], order: 2, title: "Cat nap (remastered)", artist: "ねこ丸", seen: 3_000)))
        let row = try #require(state.bookmark(for: BookmarkKey(illustID: 2, restrict: .public)))
        #expect(row.illust.isVisible && row.vanishedAt == nil)
        #expect(row.illust.title == "Cat nap (remastered)" && row.illust.tags == [ArtworkTag(name: "創作", translatedName: "creation")])
        #expect(ids(BookmarkFilter(allOf: ["cat"]), in: state) == [], "the old tags are gone from the index")
        #expect(ids(BookmarkFilter(allOf: ["creation"]), in: state) == [2])
        #expect(state.tagHistogram(in: .public, visibility: .vanished).map(\.name) == ["女の子", "猫"])

        // It may vanish again: a new vanish date then.
        state.apply(Self.placeholder(2, .deleted, order: 2, seen: 4_000))
        #expect(state.bookmark(for: BookmarkKey(illustID: 2, restrict: .public))?.vanishedAt == Date(timeIntervalSince1970: 4_000))
    }

    @Test func aPlaceholderOverAPlaceholderWithoutContentIsStoredAsSent() throws {
        var state = Self.state
        state.apply(Self.placeholder(5, .sanityLimited, order: 9, seen: 3_000))
        let stored = try #require(state.bookmark(for: BookmarkKey(illustID: 5, restrict: .public)))
        #expect(stored.illust.vanishReason == .sanityLimited && stored.vanishedAt == nil && stored.serverOrder == 9)
        // Content for it later is a restore, not a merge.
        state.apply(.upsert(row(5, tags: ["猫=cat"], order: 9, title: "back", seen: 4_000)))
        #expect(state.bookmark(for: BookmarkKey(illustID: 5, restrict: .public))?.illust.title == "back")
    }

    @Test func filtersMatchVanishedWorksByTheirLastKnownTagsAndTextOnlyWhenAsked() {
        #expect(ids(.all) == [4, 1], "by default only works Pixiv shows")
        #expect(ids(BookmarkFilter(visibility: .vanished)) == [5, 3, 2])
        #expect(ids(BookmarkFilter(visibility: .all)) == [5, 4, 3, 2, 1])

        #expect(ids(BookmarkFilter(allOf: ["cat"])) == [])
        #expect(ids(BookmarkFilter(allOf: ["cat"], visibility: .vanished)) == [3, 2])
        #expect(ids(BookmarkFilter(allOf: ["original"], visibility: .all)) == [4, 2, 1])
        #expect(ids(BookmarkFilter(anyOf: ["girl", "scenery"], visibility: .vanished)) == [3])
        #expect(ids(BookmarkFilter(noneOf: ["cat"], visibility: .vanished)) == [5])
        #expect(ids(BookmarkFilter(text: "nap")) == [])
        #expect(ids(BookmarkFilter(text: "nap", visibility: .vanished)) == [2], "the last-known title")
        #expect(ids(BookmarkFilter(text: "みどり", visibility: .all)) == [3], "the last-known artist")
        #expect(Self.state.coOccurringTags(in: .public, matching: BookmarkFilter(allOf: ["cat"], visibility: .vanished)) == [
            ArtworkTagCount(name: "オリジナル", translatedName: "original", count: 1),
            ArtworkTagCount(name: "女の子", translatedName: "girl", count: 1),
        ])
    }

    @Test func histogramsAndCountsFollowTheVisibility() {
        let state = Self.state
        #expect(state.tagHistogram(in: .public) == [
            ArtworkTagCount(name: "オリジナル", translatedName: "original", count: 2),
            ArtworkTagCount(name: "風景", translatedName: "scenery", count: 1),
        ], "visible works only, by default")
        #expect(state.tagHistogram(in: .public, visibility: .vanished) == [
            ArtworkTagCount(name: "猫", translatedName: "cat", count: 2),
            ArtworkTagCount(name: "オリジナル", translatedName: "original", count: 1),
            ArtworkTagCount(name: "女の子", translatedName: "girl", count: 1),
        ])
        #expect(state.tagHistogram(in: .public, visibility: .all, limit: 2) == [
            ArtworkTagCount(name: "オリジナル", translatedName: "original", count: 3),
            ArtworkTagCount(name: "猫", translatedName: "cat", count: 2),
        ])
        #expect(state.count(in: .public) == 5, "every row, as Pixiv counts the list")
        #expect(state.count(in: .public, matching: .all) == 2)
        #expect(state.count(in: .public, matching: BookmarkFilter(visibility: .vanished)) == 3)
        #expect(state.count(in: .public, matching: BookmarkFilter(visibility: .all)) == 5)
        #expect(state.count(in: .public, matching: BookmarkFilter(allOf: ["cat"], visibility: .all)) == 2)
        #expect(state.count(in: .public, matching: BookmarkFilter(allOf: ["cat"])) == 0)

        // Removing a vanished row takes it out of every count.
        var removed = state
        removed.apply(.remove(BookmarkKey(illustID: 3, restrict: .public)))
        #expect(removed.tagHistogram(in: .public, visibility: .vanished).map(\.count) == [1, 1])
        #expect(removed.count(in: .public, matching: BookmarkFilter(visibility: .vanished)) == 2)
    }

    @Test func countsByVisibilityAndVanishedFiltersReadOnlyWhatTheyNeed() {
        let generator = SyntheticBookmarks(tagCount: 500)
        var state = BookmarkIndexState()
        let rows = generator.indexedBookmarks(generator.illusts(count: 5_000, seed: 9), in: .public)
        state.apply(rows.map(BookmarkChange.upsert))
        let vanishing = rows.filter(\.illust.isVisible).prefix(40)
        state.apply(vanishing.map { Self.placeholder($0.illust.id, .deleted, order: $0.serverOrder, seen: 9_000) })
        let vanishedCount = rows.count(where: { !$0.illust.isVisible }) + vanishing.count

        let reads = QueryReads()
        let counts = QueryReads.$current.withValue(reads) {
            BookmarkFilter.Visibility.allCases.map { state.count(in: .public, matching: BookmarkFilter(visibility: $0)) }
        }
        #expect(counts == [5_000 - vanishedCount, vanishedCount, 5_000])
        #expect(reads.rowCount == 0, "counting by visibility reads no row")

        let vanishedReads = QueryReads()
        let vanished = QueryReads.$current.withValue(vanishedReads) { state.bookmarks(in: .public, matching: BookmarkFilter(visibility: .vanished)) }
        #expect(vanished.count == vanishedCount)
        #expect(vanishedReads.rowCount == vanishedCount, "a vanished-only feed reads the vanished rows only")
    }
}
