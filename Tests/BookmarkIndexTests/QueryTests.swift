@testable import BookmarkIndex
import Foundation
import Testing

@Suite("Queries")
struct QueryTests {
    /// Rows 1...6, newest first by id descending.
    static let state: BookmarkIndexState = {
        var state = BookmarkIndexState()
        state.apply([
            .upsert(row(1, tags: ["オリジナル=original", "風景=scenery"], order: 1, title: "Morning sea", artist: "Kaito")),
            .upsert(row(2, tags: ["オリジナル=original", "女の子=girl"], order: 2, title: "夏の空", artist: "みどり")),
            .upsert(row(3, tags: ["女の子=girl", "猫=cat"], order: 3, title: "Cat nap", artist: "ねこ丸")),
            .upsert(row(4, tags: ["オリジナル=original", "女の子=girl", "猫=cat"], order: 4, title: "Sunset", artist: "Hiro")),
            .upsert(row(5, tags: [], order: 5, vanished: .deleted)),
            .upsert(row(6, tags: ["R-18", "女の子=girl"], order: 6, title: "Night", artist: "kaito")),
            .upsert(row(7, .private, tags: ["オリジナル=original"], order: 7, title: "private one")),
        ])
        return state
    }()

    func ids(_ filter: BookmarkFilter, limit: Int? = nil, offset: Int = 0) -> [Int] {
        Self.state.bookmarks(in: .public, matching: filter, limit: limit, offset: offset).ids
    }

    @Test func emptyFilterListsVisibleWorksNewestFirst() {
        #expect(ids(.all) == [6, 4, 3, 2, 1])
        #expect(ids(BookmarkFilter(visibility: .all)) == [6, 5, 4, 3, 2, 1])
    }

    @Test func allOf() {
        #expect(ids(BookmarkFilter(allOf: ["オリジナル"])) == [4, 2, 1])
        #expect(ids(BookmarkFilter(allOf: ["オリジナル", "女の子"])) == [4, 2])
        #expect(ids(BookmarkFilter(allOf: ["オリジナル", "女の子", "猫"])) == [4])
        #expect(ids(BookmarkFilter(allOf: ["オリジナル", "no such tag"])) == [])
    }

    @Test func anyOf() {
        #expect(ids(BookmarkFilter(anyOf: ["風景", "猫"])) == [4, 3, 1])
        #expect(ids(BookmarkFilter(anyOf: ["no such tag"])) == [])
        #expect(ids(BookmarkFilter(allOf: ["女の子"], anyOf: ["猫", "R-18"])) == [6, 4, 3])
    }

    @Test func noneOf() {
        #expect(ids(BookmarkFilter(noneOf: ["女の子"])) == [1])
        #expect(ids(BookmarkFilter(noneOf: ["女の子"], visibility: .all)) == [5, 1])
        #expect(ids(BookmarkFilter(allOf: ["女の子"], noneOf: ["R-18", "猫"])) == [2])
        #expect(ids(BookmarkFilter(noneOf: ["no such tag"])) == [6, 4, 3, 2, 1])
    }

    @Test func translatedNamesMatchIgnoringCase() {
        #expect(ids(BookmarkFilter(allOf: ["ORIGINAL", "Girl"])) == [4, 2])
        #expect(ids(BookmarkFilter(anyOf: ["Scenery"])) == [1])
        #expect(ids(BookmarkFilter(noneOf: ["CAT", "r-18"])) == [2, 1])
    }

    /// Which translation a histogram shows, and which translations a filter matches, follow what
    /// the list's rows carry now, not the order they were written in: an index replayed from a
    /// compacted journal answers as the one that saw every write.
    @Test func translationsFollowTheRowsTheListHoldsNow() {
        var state = BookmarkIndexState()
        state.apply([
            .upsert(row(1, tags: ["猫=cat"], order: 3)),
            .upsert(row(2, tags: ["猫=kitty"], order: 2)),
            .upsert(row(3, tags: ["猫=kitty"], order: 1)),
            .upsert(row(4, .private, tags: ["猫=neko"], order: 1)),
        ])
        #expect(state.tagHistogram(in: .public) == [ArtworkTagCount(name: "猫", translatedName: "kitty", count: 3)])
        #expect(state.tagHistogram(in: .private) == [ArtworkTagCount(name: "猫", translatedName: "neko", count: 1)])
        #expect(state.bookmarks(in: .public, matching: BookmarkFilter(allOf: ["CAT"])).ids == [1, 2, 3])
        #expect(state.bookmarks(in: .public, matching: BookmarkFilter(allOf: ["neko"])).ids == [], "no public row carries 'neko'")

        state.apply(.upsert(row(2, tags: ["猫"], order: 2)))
        #expect(state.tagHistogram(in: .public) == [ArtworkTagCount(name: "猫", translatedName: "cat", count: 3)], "a tie goes to the first alphabetically")
        state.apply([.remove(BookmarkKey(illustID: 1, restrict: .public)), .remove(BookmarkKey(illustID: 3, restrict: .public))])
        #expect(state.tagHistogram(in: .public) == [ArtworkTagCount(name: "猫", translatedName: nil, count: 1)], "no row carries a translation any more")
        #expect(state.bookmarks(in: .public, matching: BookmarkFilter(allOf: ["kitty"])).ids == [])
        #expect(state.bookmarks(in: .public, matching: BookmarkFilter(allOf: ["猫"])).ids == [2])

        // The same rows written in another order give the same answers.
        var other = BookmarkIndexState()
        other.apply([.upsert(row(4, .private, tags: ["猫=neko"], order: 1)), .upsert(row(2, tags: ["猫"], order: 2))])
        #expect(other.tagHistogram(in: .public) == state.tagHistogram(in: .public))
        #expect(other.tagHistogram(in: .private) == state.tagHistogram(in: .private))
    }

    /// Tag names are kept byte for byte, but a filter word matches a name in another Unicode
    /// normalization form (Swift's canonical equivalence): "が" typed as か + U+3099 finds "が".
    @Test func filterWordsMatchNamesInAnyNormalizationForm() {
        var state = BookmarkIndexState()
        state.apply(.upsert(row(1, tags: ["がんばれ"], order: 1)))
        let decomposed = "\u{304B}\u{3099}んばれ"
        #expect(Array(decomposed.utf8) != Array("がんばれ".utf8))
        #expect(state.bookmarks(in: .public, matching: BookmarkFilter(allOf: [decomposed])).ids == [1])
        #expect(state.tagHistogram(in: .public).map(\.name) == ["がんばれ"], "the name as Pixiv sent it")
    }

    @Test func textMatchesTitleOrArtistIgnoringCase() {
        #expect(ids(BookmarkFilter(text: "kaito")) == [6, 1])
        #expect(ids(BookmarkFilter(text: "SUN")) == [4])
        #expect(ids(BookmarkFilter(text: "空")) == [2])
        #expect(ids(BookmarkFilter(allOf: ["original"], text: "kaito")) == [1])
        #expect(ids(BookmarkFilter(text: "")) == [6, 4, 3, 2, 1], "empty text matches everything")
    }

    @Test func limitAndOffsetPageThroughServerOrder() {
        #expect(ids(.all, limit: 2) == [6, 4])
        #expect(ids(.all, limit: 2, offset: 2) == [3, 2])
        #expect(ids(.all, limit: 2, offset: 4) == [1])
        #expect(ids(.all, limit: 0) == [])
        #expect(ids(BookmarkFilter(allOf: ["girl"]), limit: 2, offset: 1) == [4, 3])
        #expect(ids(BookmarkFilter(anyOf: ["cat", "scenery"]), limit: 1, offset: 2) == [1])
    }

    @Test func countMatchesTheListedRows() {
        for filter in [BookmarkFilter.all, BookmarkFilter(allOf: ["girl"]), BookmarkFilter(anyOf: ["cat", "r-18"]), BookmarkFilter(noneOf: ["girl"], visibility: .all)] {
            #expect(Self.state.count(in: .public, matching: filter) == ids(filter).count)
        }
        #expect(Self.state.count(in: .public) == 6)
        #expect(Self.state.count(in: .private, matching: .all) == 1)
    }

    @Test func coOccurringTagsNarrowWithTheFilter() {
        #expect(Self.state.coOccurringTags(in: .public, matching: BookmarkFilter(allOf: ["original"])) == [
            ArtworkTagCount(name: "女の子", translatedName: "girl", count: 2),
            ArtworkTagCount(name: "猫", translatedName: "cat", count: 1),
            ArtworkTagCount(name: "風景", translatedName: "scenery", count: 1),
        ])
        #expect(Self.state.coOccurringTags(in: .public, matching: BookmarkFilter(allOf: ["original", "girl"]), limit: 1) == [
            ArtworkTagCount(name: "猫", translatedName: "cat", count: 1),
        ])
        #expect(Self.state.coOccurringTags(in: .public, matching: BookmarkFilter(noneOf: ["girl"])) == [
            ArtworkTagCount(name: "オリジナル", translatedName: "original", count: 1),
            ArtworkTagCount(name: "風景", translatedName: "scenery", count: 1),
        ])
    }

    @Test func listsAreSeparate() {
        #expect(Self.state.bookmarks(in: .private, matching: BookmarkFilter(allOf: ["original"])).ids == [7])
        #expect(Self.state.tagHistogram(in: .private) == [ArtworkTagCount(name: "オリジナル", translatedName: "original", count: 1)])
    }
}
