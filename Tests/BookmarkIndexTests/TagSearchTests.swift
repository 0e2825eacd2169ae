@testable import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import Testing

/// Finding a list's tags by what the user typed: names and translations, any case, those that
/// begin with it first, counted under a filter; checked against a scan of every bookmark.
@Suite("Tag search")
struct TagSearchTests {
    static let state: BookmarkIndexState = {
        var state = BookmarkIndexState()
        state.apply([
            .upsert(row(1, tags: ["オリジナル=original", "風景=scenery"], order: 1)),
            .upsert(row(2, tags: ["オリジナル=original", "女の子=girl"], order: 2)),
            .upsert(row(3, tags: ["オリジナル", "Original Character", "猫=cat"], order: 3)),
            .upsert(row(4, tags: ["東方Project=Touhou Project", "風景画"], order: 4)),
            .upsert(row(5, tags: ["原神=Genshin Impact", "オリジナル=original"], order: 5)),
            .upsert(row(6, tags: ["猫=cat", "オリジナル作品"], order: 6, vanished: .deleted, vanishedAt: 2_000)),
            .upsert(row(7, .private, tags: ["オリジナルキャラ=original character"], order: 1)),
        ])
        return state
    }()

    func names(_ text: String, _ filter: BookmarkFilter = .all, limit: Int? = nil) -> [String] {
        Self.state.searchTags(text, in: .public, matching: filter, limit: limit).map(\.name)
    }

    @Test func cjkNamesTranslationsAndCase() {
        #expect(names("オリ") == ["オリジナル"], "the vanished row's tag is not counted by default")
        #expect(names("オリ", BookmarkFilter(visibility: .all)) == ["オリジナル", "オリジナル作品"])
        #expect(names("風") == ["風景", "風景画"])
        #expect(names("景") == ["風景", "風景画"], "a CJK substring")
        #expect(names("orig") == ["オリジナル", "Original Character"], "by translation, then by name; most used first")
        #expect(names("ORIG") == names("orig") && names("Orig") == names("orig"))
        #expect(names("character") == ["Original Character"], "the private list's translation is not the public list's")
        #expect(Self.state.searchTags("character", in: .private).map(\.name) == ["オリジナルキャラ"])
        #expect(names("project") == ["東方Project"], "a substring of the name and of the translation, once")
        #expect(names("impact") == ["原神"])
        #expect(names("no such tag").isEmpty)
    }

    @Test func prefixMatchesComeBeforeMoreCommonSubstringMatches() {
        var state = BookmarkIndexState()
        state.apply((1...10).map { .upsert(row($0, tags: ["Blue sky"] + ($0 <= 2 ? ["Skyline"] : []), order: Int64($0))) })
        #expect(state.searchTags("sky", in: .public) == [
            ArtworkTagCount(name: "Skyline", count: 2), ArtworkTagCount(name: "Blue sky", count: 10),
        ])
        #expect(state.searchTags("sky", in: .public, limit: 1).map(\.name) == ["Skyline"])
    }

    @Test func countsUnderAFilterAndTheTagsItRequires() {
        let search = Self.state.searchTags("o", in: .public, matching: BookmarkFilter(allOf: ["猫"], visibility: .all))
        // Rows 3 and 6 carry 猫, which is required, so left out; オリジナル作品 has no "o".
        #expect(search == [
            ArtworkTagCount(name: "Original Character", count: 1), ArtworkTagCount(name: "オリジナル", translatedName: "original", count: 1),
        ])
        #expect(names("", BookmarkFilter(allOf: ["オリジナル"])) == ["Original Character", "原神", "女の子", "猫", "風景"])
    }

    // MARK: Against a naive scan

    /// Every tag of the list under `filter`, counted by reading every matching bookmark, that
    /// `text` finds by name or by a translation a row carries; ordered as the search orders.
    static func naiveSearch(_ text: String, in state: BookmarkIndexState, matching filter: BookmarkFilter) -> [ArtworkTagCount] {
        naiveSearch(text, in: state, matching: filter, matches: state.bookmarks(in: .public, matching: filter), all: state.allBookmarks(in: .public))
    }

    /// ``naiveSearch(_:in:matching:)`` given the list's bookmarks, `all`, and those matching `filter`.
    static func naiveSearch(
        _ text: String, in state: BookmarkIndexState, matching filter: BookmarkFilter,
        matches: [IndexedBookmark], all: [IndexedBookmark]
    ) -> [ArtworkTagCount] {
        let needle = Array(text.lowercased().utf8)
        func find(_ haystack: String) -> (found: Bool, isPrefix: Bool) {
            let bytes = Array(haystack.lowercased().utf8)
            guard bytes.count >= needle.count else { return (false, false) }
            let found = (0...(bytes.count - needle.count)).contains { Array(bytes[$0..<$0 + needle.count]) == needle }
            return (found, Array(bytes.prefix(needle.count)) == needle)
        }
        var translations: [String: Set<String>] = [:]
        for bookmark in all {
            for tag in bookmark.illust.tags { if let translation = tag.translatedName { translations[tag.name, default: []].insert(translation) } }
        }
        let required = Set(filter.allOf.map { $0.lowercased() })
        var counts: [String: Int] = [:]
        for bookmark in matches {
            for name in Set(bookmark.illust.tags.map(\.name)) { counts[name, default: 0] += 1 }
        }
        var results: [(tag: ArtworkTagCount, isPrefix: Bool)] = []
        for (name, count) in counts {
            let texts = [name] + (translations[name] ?? [])
            if texts.contains(where: { required.contains($0.lowercased()) }) { continue }
            let finds = texts.map(find)
            guard finds.contains(where: \.found) else { continue }
            let isPrefix = finds.contains(where: \.isPrefix)
            results.append((ArtworkTagCount(name: name, translatedName: state.translationForTest(of: name), count: count), isPrefix))
        }
        return results.sorted { a, b in
            if a.isPrefix != b.isPrefix { return a.isPrefix }
            if a.tag.count != b.tag.count { return a.tag.count > b.tag.count }
            return a.tag.name < b.tag.name
        }.map(\.tag)
    }

    @Test func matchesANaiveScanOfEveryBookmark() {
        let generator = SyntheticBookmarks(tagCount: 400, tagsPerWork: 2...6, invisibleShare: 0.1)
        var state = BookmarkIndexState()
        state.apply(generator.indexedBookmarks(generator.illusts(count: 1_500, seed: 3), in: .public).map(BookmarkChange.upsert))
        var random = SeededRandom(seed: 5)
        // Pieces of names and translations: one to three scalars, from their start or inside.
        var queries = ["オリ", "風景", "original", "ORIG", "Sky", "a", "", "ka", "Project", "ー", "1"]
        for _ in 0..<40 {
            let tag = generator.vocabulary[Int(random.next() % UInt64(generator.vocabulary.count))]
            let text = Array(random.next() % 2 == 0 ? tag.name : (tag.translatedName ?? tag.name))
            let start = Int(random.next() % UInt64(text.count))
            let piece = String(text[start..<min(text.count, start + 1 + Int(random.next() % 3))])
            queries.append(random.next() % 2 == 0 ? piece.uppercased() : piece)
        }
        let filters: [BookmarkFilter] = [
            .all, BookmarkFilter(visibility: .all), BookmarkFilter(visibility: .vanished),
            BookmarkFilter(allOf: ["女の子"]), BookmarkFilter(anyOf: ["cat", "sky"], noneOf: ["R-18"]),
        ]
        var nonEmpty = 0
        let all = state.allBookmarks(in: .public)
        for filter in filters {
            let matches = state.bookmarks(in: .public, matching: filter)
            for query in queries {
                let expected = Self.naiveSearch(query, in: state, matching: filter, matches: matches, all: all)
                #expect(state.searchTags(query, in: .public, matching: filter) == expected, "\(query) under \(filter)")
                #expect(state.searchTags(query, in: .public, matching: filter, limit: 5) == Array(expected.prefix(5)))
                if !expected.isEmpty { nonEmpty += 1 }
            }
        }
        #expect(nonEmpty > 100)
    }
}

extension BookmarkIndexState {
    /// The translation the index shows for the tag `name` in the public list.
    func translationForTest(of name: String) -> String? {
        tags.id(ofName: name).flatMap { translation(of: $0, in: lists[Restrict.public.listIndex]) }
    }
}
