import BookmarkIndex
import BookmarkIndexTesting
@testable import BookmarkScreen
import Foundation
import Testing

/// The tag sheet lists the histogram, narrows to the tags beside the picked ones, finds tags by
/// name or translation as the user types (CJK, case), and follows the index.
@MainActor
@Suite("Tag sheet", .hangLimit)
struct TagSheetTests {
    static func store() async throws -> BookmarksIndexStore {
        let generator = SyntheticBookmarks(tagCount: 40, invisibleShare: 0.1)
        var rows = generator.indexedBookmarks(generator.illusts(count: 300, seed: 21), in: .public)
        // Tags in mixed case, in full-width letters, and one found by its translation.
        rows[0].illust.tags += [ArtworkTag(name: "SkyBlue"), ArtworkTag(name: "ｓｋｙ　ｌｉｎｅ")]
        rows[1].illust.tags += [ArtworkTag(name: "青空", translatedName: "Blue Sky")]
        let store = try await BookmarksIndexStore(storage: InMemoryStorage())
        try await store.upsert(rows)
        return store
    }

    /// Every visible row's tags counted by hand, for the rows matching `filter`.
    static func naiveCounts(_ store: BookmarksIndexStore, _ filter: BookmarkFilter) async -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in await store.bookmarks(in: .public, matching: filter) {
            for tag in Set(row.illust.tags.map(\.name)) where !filter.allOf.contains(tag) { counts[tag, default: 0] += 1 }
        }
        return counts
    }

    @Test func withNothingPickedItListsTheHistogram() async throws {
        let store = try await Self.store()
        let sheet = TagSheet(store: store, list: .public, limit: 500)
        await sheet.reload()
        let counts = await Self.naiveCounts(store, .all)
        #expect(Dictionary(uniqueKeysWithValues: sheet.tags.map { ($0.name, $0.count) }) == counts)
        #expect(sheet.tags.map(\.count) == sheet.tags.map(\.count).sorted(by: >))
        #expect(sheet.matchingCount == (await store.count(in: .public, matching: .all)))
        #expect(sheet.pickedTags.isEmpty)
    }

    @Test func pickingTagsNarrowsToTheTagsBesideThem() async throws {
        let store = try await Self.store()
        let sheet = TagSheet(store: store, list: .public, limit: 500)
        await sheet.reload()
        let first = try #require(sheet.tags.first?.name)
        sheet.toggle(first)
        await sheet.reload()
        #expect(sheet.pickedTags == [first])
        #expect(Dictionary(uniqueKeysWithValues: sheet.tags.map { ($0.name, $0.count) }) == (await Self.naiveCounts(store, sheet.filter)))
        #expect(!sheet.tags.contains { $0.name == first }, "the picked tag is not listed beside itself")
        let second = try #require(sheet.tags.first?.name)
        sheet.toggle(second)
        await sheet.reload()
        #expect(sheet.filter.allOf == [first, second])
        #expect(sheet.matchingCount == (await store.count(in: .public, matching: BookmarkFilter(allOf: [first, second]))))
        #expect(sheet.matchingCount > 0)
        // Unpicking goes back.
        sheet.toggle(second)
        sheet.toggle(first)
        await sheet.reload()
        #expect(sheet.tags == (await store.tagHistogram(in: .public, limit: 500)))
    }

    @Test(arguments: [
        ("sky", ["SkyBlue", "青空"]),      // case folded; a translation
        ("SKY", ["SkyBlue", "青空"]),
        ("ＳＫＹ", ["ｓｋｙ　ｌｉｎｅ"]),   // full-width letters fold case too (width is kept)
        ("青", ["青空"]),
        ("blue sky", ["青空"]),
    ])
    func searchFindsTagsByNameOrTranslation(text: String, expected: [String]) async throws {
        let store = try await Self.store()
        let sheet = TagSheet(store: store, list: .public)
        sheet.searchText = text
        await sheet.reload()
        for name in expected { #expect(sheet.tags.contains { $0.name == name }, "\(text) finds \(name)") }
        #expect(sheet.tags == (await store.searchTags(text, in: .public)))
        // Those that begin with the text come first.
        let begins = sheet.tags.map { tag in
            [tag.name, tag.translatedName ?? ""].contains { $0.lowercased().hasPrefix(text.lowercased()) }
        }
        #expect(begins == begins.sorted { $0 && !$1 })
    }

    @Test func searchCountsUnderThePickedTags() async throws {
        let store = try await Self.store()
        let sheet = TagSheet(store: store, list: .public, limit: 500)
        sheet.toggle("オリジナル")
        sheet.searchText = "女"
        await sheet.reload()
        let counts = await Self.naiveCounts(store, BookmarkFilter(allOf: ["オリジナル"]))
        #expect(!sheet.tags.isEmpty)
        for tag in sheet.tags where tag.name != "オリジナル" {
            #expect(tag.count == counts[tag.name], "\(tag.name) counted among the bookmarks tagged オリジナル")
        }
        sheet.searchText = "  "
        await sheet.reload()
        #expect(sheet.tags.map(\.name) == (await store.coOccurringTags(in: .public, matching: sheet.filter, limit: 500)).map(\.name), "blank text is no search")
    }

    @Test func observingFollowsPicksSearchAndWrites() async throws {
        let store = try await Self.store()
        let sheet = TagSheet(store: store, list: .public)
        let observing = Task { await sheet.observe() }
        defer { observing.cancel() }
        await settle { sheet.isLoaded }
        sheet.searchText = "blue sky"
        await settle { sheet.tags.map(\.name) == ["青空"] }
        // A write that adds a tag the search finds.
        var row = try #require(await store.bookmarks(in: .public, matching: .all, limit: 1).first)
        row.illust.tags.append(ArtworkTag(name: "Blue Sky Club"))
        try await store.upsert([row])
        await settle { sheet.tags.map(\.name).sorted() == ["Blue Sky Club", "青空"] }
    }

}
