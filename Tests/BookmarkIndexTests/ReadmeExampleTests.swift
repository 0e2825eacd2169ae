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

    @Test(arguments: ["README EXAMPLE", "README VANISHED EXAMPLE", "README SCREEN EXAMPLE"])
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
