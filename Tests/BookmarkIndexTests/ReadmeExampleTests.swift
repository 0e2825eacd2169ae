import BookmarkIndex
import Foundation
import Testing

/// The README's usage example, compiled and run. `exampleSource` must appear in README.md
/// verbatim, so the two cannot drift apart.
@Suite("README")
struct ReadmeExampleTests {
    @Test func usageExampleRuns() async throws {
        // BEGIN README EXAMPLE
        let store = try BookmarksIndexStore(storage: InMemoryStorage())

        let illust = BookmarkedIllustSnapshot(
            id: 123_456, title: "夏の空", artistID: 42, artistName: "みどり",
            tags: [TagRef(name: "オリジナル", translatedName: "original"), TagRef(name: "風景", translatedName: "scenery")]
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

    @Test func readmeShowsTheExampleVerbatim() throws {
        let thisFile = URL(fileURLWithPath: #filePath)
        let root = thisFile.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let source = try String(contentsOf: thisFile, encoding: .utf8)
        let begin = try #require(source.range(of: "// BEGIN README EXAMPLE\n"))
        let end = try #require(source.range(of: "        // END README EXAMPLE"))
        let example = source[begin.upperBound..<end.lowerBound]
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("        ") ? String($0.dropFirst(8)) : String($0) }
            .joined(separator: "\n")
        #expect(readme.contains(example), "README.md must contain the usage example from ReadmeExampleTests.swift verbatim")
    }
}
