@testable import BookmarkIndex
import Foundation
import Testing

@Suite("Index state")
struct IndexStateTests {
    @Test func sameIllustInBothListsIsIndependent() {
        var state = BookmarkIndexState()
        state.apply([.upsert(row(1, .public, tags: ["a"])), .upsert(row(1, .private, tags: ["b"]))])
        #expect(state.contains(BookmarkKey(illustID: 1, restrict: .public)))
        #expect(state.contains(BookmarkKey(illustID: 1, restrict: .private)))
        #expect(state.tagHistogram(in: .public).map(\.name) == ["a"])
        #expect(state.tagHistogram(in: .private).map(\.name) == ["b"])

        state.apply(.remove(BookmarkKey(illustID: 1, restrict: .public)))
        #expect(!state.contains(BookmarkKey(illustID: 1, restrict: .public)))
        #expect(state.bookmark(for: BookmarkKey(illustID: 1, restrict: .private))?.illust.tags.map(\.name) == ["b"])
        #expect(state.tagHistogram(in: .public).isEmpty)
        #expect(state.count(in: .private) == 1)

        state.apply(.removeAll(.private))
        #expect(state.count(in: .private) == 0)
    }

    @Test func upsertReplacesTagsAndKeepsFirstIndexedAt() {
        var state = BookmarkIndexState()
        state.apply(.upsert(row(1, tags: ["a", "b"], seen: 100)))
        state.apply(.upsert(row(1, tags: ["b", "c"], seen: 200)))
        #expect(state.tagHistogram(in: .public) == [
            ArtworkTagCount(name: "b", count: 1), ArtworkTagCount(name: "c", count: 1),
        ])
        let stored = state.bookmark(for: BookmarkKey(illustID: 1, restrict: .public))
        #expect(stored?.firstIndexedAt == Date(timeIntervalSince1970: 100))
        #expect(stored?.lastSeenAt == Date(timeIntervalSince1970: 200))
    }

    @Test func histogramIsByCountThenName() {
        var state = BookmarkIndexState()
        state.apply([
            .upsert(row(1, tags: ["b", "a"])),
            .upsert(row(2, tags: ["c", "a"])),
            .upsert(row(3, tags: ["c", "b", "a"])),
            .upsert(row(4, tags: ["d"])),
        ])
        let expected = [
            ArtworkTagCount(name: "a", count: 3), ArtworkTagCount(name: "b", count: 2),
            ArtworkTagCount(name: "c", count: 2), ArtworkTagCount(name: "d", count: 1),
        ]
        #expect(state.tagHistogram(in: .public) == expected)
        #expect(state.tagHistogram(in: .public, limit: 2) == Array(expected.prefix(2)))
        #expect(state.tagHistogram(in: .public, limit: 0).isEmpty)
    }

    @Test func duplicateTagOnOneWorkCountsOnce() {
        var state = BookmarkIndexState()
        state.apply(.upsert(row(1, tags: ["a", "a"])))
        #expect(state.tagHistogram(in: .public) == [ArtworkTagCount(name: "a", count: 1)])
        state.apply(.remove(BookmarkKey(illustID: 1, restrict: .public)))
        #expect(state.tagHistogram(in: .public).isEmpty)
    }

    @Test func metadataIsPerList() {
        var state = BookmarkIndexState()
        let metadata = BookmarkIndexMetadata(lastFullSync: Date(timeIntervalSince1970: 9))
        state.apply(.setMetadata(metadata, for: .private))
        #expect(state.metadata(for: .private) == metadata)
        #expect(state.metadata(for: .public) == BookmarkIndexMetadata())
        state.apply(.removeAll(.private))
        #expect(state.metadata(for: .private) == metadata, "removeAll keeps the list's metadata")
    }

    @Test func tagStringsAreInterned() {
        var state = BookmarkIndexState()
        state.apply([.upsert(row(1, tags: ["オリジナル=original"])), .upsert(row(2, .private, tags: ["オリジナル=original"]))])
        #expect(state.tags.count == 1)
        let first = state.bookmark(for: BookmarkKey(illustID: 1, restrict: .public))!.illust.tags[0]
        #expect(first == ArtworkTag(name: "オリジナル", translatedName: "original"))
    }
}
