import BookmarkIndex
import Foundation
import Testing

/// The README's usage example, compiled and run. `exampleSource` must appear in README.md
/// verbatim, so the two cannot drift apart.
@Suite("README")
struct ReadmeExampleTests {
    @Test func usageExampleRuns() async throws {
        // BEGIN README EXAMPLE
        let store = try await BookmarksIndexStore(storage: InMemoryStorage())

        let illust = BookmarkedIllustSnapshot(
            id: 123_456, title: "夏の空", artistID: 42, artistName: "みどり",
            tags: [ArtworkTag(name: "オリジナル", translatedName: "original"), ArtworkTag(name: "風景", translatedName: "scenery")]
        )
        let now = Date()
        try await store.upsert([
            IndexedBookmark(illust: illust, restrict: .public, serverOrder: 1, firstIndexedAt: now, lastSeenAt: now),
        ])

        // Tags of the public list, most used first.
        for tag in await store.tagHistogram(in: .public, limit: 10) {
            print(tag.name, tag.translatedName ?? "", tag.count)
        }
        // Bookmarks tagged "original" (or オリジナル) and not "R-18", newest first.
        let filter = BookmarkFilter(allOf: ["original"], noneOf: ["R-18"])
        let feed = await store.bookmarks(in: .public, matching: filter, limit: 30)
        // END README EXAMPLE

        #expect(feed.map(\.key.description) == ["123456-public"])
    }

    /// The README's "Vanished works" example, compiled and run.
    @Test func vanishedWorksExampleRuns() async throws {
        let store = try await BookmarksIndexStore(storage: InMemoryStorage())
        let seen = Date(timeIntervalSince1970: 1_780_000_000)
        try await store.upsert([IndexedBookmark(
            illust: BookmarkedIllustSnapshot(id: 7, title: "夏の空", artistName: "みどり", tags: [ArtworkTag(name: "風景", translatedName: "scenery")]),
            restrict: .public, serverOrder: 1, firstIndexedAt: seen, lastSeenAt: seen
        )])
        // What a later sync writes once Pixiv sends the work as a placeholder.
        try await store.upsert([IndexedBookmark(
            illust: BookmarkedIllustSnapshot(id: 7, title: "", vanishReason: .deleted),
            restrict: .public, serverOrder: 1, firstIndexedAt: seen, lastSeenAt: seen + 3_600
        )])
        var lines: [String] = []
        func print(_ items: Any...) { lines.append(items.map { "\($0)" }.joined(separator: " ")) }

        // BEGIN README VANISHED EXAMPLE
        // What vanished from the public list, why, since when, and what the index kept of it.
        let vanished = BookmarkFilter(visibility: .vanished)
        for bookmark in await store.bookmarks(in: .public, matching: vanished) {
            let since = bookmark.vanishedAt.map { "since \($0)" } ?? "before it was first indexed"
            print(bookmark.key, bookmark.illust.vanishReason!, since, bookmark.illust.title, bookmark.illust.tags.map(\.name))
        }
        // Tag counts of the works Pixiv shows (the default), or of every bookmark.
        let everything = await store.tagHistogram(in: .public, visibility: .all)
        // END README VANISHED EXAMPLE

        #expect(lines == ["7-public deleted since \(seen + 3_600) 夏の空 [\"風景\"]"])
        #expect(everything.map(\.name) == ["風景"])
        #expect(await store.tagHistogram(in: .public).isEmpty)
    }

    /// The README's example of what a Bookmarks screen reads, compiled and run.
    @Test func screenExampleRuns() async throws {
        let store = try await BookmarksIndexStore(storage: InMemoryStorage())
        let seen = Date(timeIntervalSince1970: 1_780_000_000)
        func bookmark(_ id: Int, order: Int64) -> IndexedBookmark {
            IndexedBookmark(
                illust: BookmarkedIllustSnapshot(id: id, title: "#\(id)", tags: [ArtworkTag(name: "オリジナル", translatedName: "original")]),
                restrict: .public, serverOrder: order, firstIndexedAt: seen, lastSeenAt: seen
            )
        }
        try await store.upsert((1...40).map { bookmark($0, order: Int64($0)) })
        let newerBookmarks = (41...43).map { bookmark($0, order: Int64($0)) }
        var lines: [String] = []
        func print(_ items: Any...) { lines.append(items.map { "\($0)" }.joined(separator: " ")) }

        // BEGIN README SCREEN EXAMPLE
        // A feed pages by cursor: rows a sync adds on top never shift the next page.
        let filter = BookmarkFilter(allOf: ["original"])
        let first = await store.bookmarks(in: .public, matching: filter, after: nil, limit: 30)
        let next = await store.bookmarks(in: .public, matching: filter, after: first.lastCursor, limit: 30)

        // It re-queries only when a durable write changed its list.
        let changes = await store.changes()
        try await store.upsert(newerBookmarks) // a sync adds bookmarks on top
        for await change in changes where change.isReset || change[.public].changesBookmarks {
            if let top = first.firstCursor {
                let new = await store.bookmarks(in: .public, matching: filter, before: top)
                print("\(new.bookmarks.count) new bookmarks") // prepend new.bookmarks
            }
            break
        }

        // The tag sheet finds tags as the user types: "orig" finds オリジナル by its translation.
        let suggestions = await store.searchTags("orig", in: .public, limit: 10)
        // END README SCREEN EXAMPLE

        #expect(first.bookmarks.map(\.illust.id) == Array((11...40).reversed()))
        #expect(next.bookmarks.map(\.illust.id) == Array((1...10).reversed()) && !next.hasMore)
        #expect(lines == ["3 new bookmarks"])
        #expect(suggestions == [ArtworkTagCount(name: "オリジナル", translatedName: "original", count: 43)])
    }

    /// The README's example of field filters, facets and sorts, compiled and run.
    @Test func facetsExampleRuns() async throws {
        let store = try await BookmarksIndexStore(storage: InMemoryStorage())
        let seen = Date(timeIntervalSince1970: 1_780_000_000)
        func bookmark(_ id: Int, artist: Int, pages: Int = 1, xRestrict: Int = 0, ai: Int = 1, type: IllustType = .illust, bookmarks: Int) -> IndexedBookmark {
            IndexedBookmark(
                illust: BookmarkedIllustSnapshot(
                    id: id, title: "#\(id)", type: type, artistID: artist, artistName: "artist \(artist)", pageCount: pages,
                    xRestrict: xRestrict, aiType: ai, totalBookmarks: bookmarks, totalView: bookmarks * 10
                ),
                restrict: .public, serverOrder: Int64(id), firstIndexedAt: seen, lastSeenAt: seen
            )
        }
        try await store.upsert([
            bookmark(1, artist: 42, bookmarks: 500), bookmark(2, artist: 42, bookmarks: 900), bookmark(3, artist: 77, bookmarks: 700),
            bookmark(4, artist: 77, pages: 12, type: .manga, bookmarks: 5_000), bookmark(5, artist: 42, xRestrict: 1, bookmarks: 80),
            bookmark(6, artist: 42, ai: 2, bookmarks: 9_000), bookmark(7, artist: 9, ai: 0, bookmarks: 100),
        ])
        var lines: [String] = []
        func print(_ items: Any...) { lines.append(items.map { "\($0)" }.joined(separator: " ")) }

        // BEGIN README FACETS EXAMPLE
        // Single images for all ages by two artists, AI-generated works left out, newest first.
        let clean = BookmarkFilter(ai: .excludingAI, ageRatings: [.allAges], pageCount: 1...1, artistIDs: [42, 77])
        let works = await store.bookmarks(in: .public, matching: clean, after: nil, limit: 30)

        // The filter sheet: the top artists, and how the matches spread over AI kind, rating, type.
        let notAI = BookmarkFilter(ai: .excludingAI)
        for artist in await store.topArtists(in: .public, matching: notAI, limit: 50) {
            print(artist.artistID, artist.name, artist.count)
        }
        let facets = await store.facets(in: .public, matching: notAI)
        print(facets.count, facets.aiKinds[.unknown]!, facets.ageRatings[.r18]!, facets.types[.manga]!)

        // The most bookmarked first, 30 at a time; equal counts come in bookmark order.
        let popular = await store.bookmarks(in: .public, matching: clean, sortedBy: .popularity, after: nil, limit: 30)
        let more = await store.bookmarks(in: .public, matching: clean, sortedBy: .popularity, after: popular.lastCursor, limit: 30)
        // END README FACETS EXAMPLE

        #expect(works.bookmarks.map(\.illust.id) == [3, 2, 1])
        #expect(lines == ["42 artist 42 3", "77 artist 77 2", "9 artist 9 1", "6 1 1 1"])
        #expect(popular.bookmarks.map(\.illust.id) == [2, 3, 1] && !popular.hasMore && more.bookmarks.isEmpty)
    }

    @Test(arguments: ["README EXAMPLE", "README VANISHED EXAMPLE", "README SCREEN EXAMPLE", "README FACETS EXAMPLE"])
    func readmeShowsTheExampleVerbatim(marker: String) throws {
        let thisFile = URL(fileURLWithPath: #filePath)
        let root = thisFile.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let source = try String(contentsOf: thisFile, encoding: .utf8)
        let begin = try #require(source.range(of: "// BEGIN \(marker)\n"))
        let end = try #require(source.range(of: "        // END \(marker)\n"))
        let example = source[begin.upperBound..<end.lowerBound]
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("        ") ? String($0.dropFirst(8)) : String($0) }
            .joined(separator: "\n")
        #expect(readme.contains(example), "README.md must contain the example between the \(marker) markers of ReadmeExampleTests.swift verbatim")
    }
}
