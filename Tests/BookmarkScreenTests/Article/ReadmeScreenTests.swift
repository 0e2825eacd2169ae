import BookmarkIndex
import BookmarkScreen
import BookmarkSync
import Foundation
import Testing

/// README's "The Bookmarks screen" lines, word for word, run over the real engine.
@MainActor
@Suite("README's Bookmarks screen", .hangLimit)
struct ReadmeScreenTests {
    @Test func theReadmeLinesRun() async throws {
        let harness = try await ScreenHarness()
        harness.source.add(harness.works(from: 1, count: 90), to: .public)
        let engine = harness.engine
        await engine.startAutoSync(for: .public)
        await harness.run()
        await harness.later()
        let driving = Task { await harness.clock.run(whileBusy: { await engine.isIndexingEnabled }) }
        defer { driving.cancel() }

        // readme-begin
        let feed = BookmarkFeed(store: engine.store, list: .public)       // 60 rows a page
        let sheet = TagSheet(store: engine.store, list: .public)
        let toast = SyncToast(engine: engine)
        // While the screen is shown, each follows the index or the engine (SwiftUI: `.task`).
        let screen = Task {
            await withDiscardingTaskGroup { group in
                group.addTask { await feed.observe() }
                group.addTask { await sheet.observe() }
                group.addTask { await toast.observe() }
            }
        }

        sheet.toggle("オリジナル")           // sheet.tags: the tags beside it, with counts
        sheet.searchText = "sky"            // sheet.tags: the tags named or translated "…sky…"
        feed.filter = sheet.filter          // the sheet's "Show \(sheet.matchingCount) bookmarks"
        await feed.loadMore()               // the last row appeared
        await feed.showNewer()              // the "\(feed.newerCount) new" button

        try await engine.unbookmark(illustID: feed.bookmarks[0].illust.id)   // gone from the feed at once
        _ = await engine.refresh(.public, until: .firstPage)                 // pull to refresh
        await engine.setIndexingEnabled(false)                               // the settings switch, kept on disk
        screen.cancel()                                                      // the screen went away
        // readme-end

        #expect(feed.filter.allOf == ["オリジナル"])
        #expect(!feed.bookmarks.isEmpty && feed.bookmarks.allSatisfy { $0.illust.tags.contains { $0.name == "オリジナル" } })
        #expect(await !engine.isIndexingEnabled)
        try Self.expectReadmeHolds(#filePath)
    }

    /// The lines between the markers of this file, unindented, are a block of README.md.
    static func expectReadmeHolds(_ path: String) throws {
        let source = try String(contentsOfFile: path, encoding: .utf8)
        let begin = try #require(source.range(of: "// readme-begin\n"))
        let end = try #require(source.range(of: "        // readme-end"))
        let lines = source[begin.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
        let block = lines.map { $0.hasPrefix("        ") ? String($0.dropFirst(8)) : String($0) }.joined(separator: "\n")
        let readme = try String(contentsOf: URL(fileURLWithPath: path).deletingLastPathComponent()
            .appendingPathComponent("../../../README.md").standardized, encoding: .utf8)
        #expect(readme.contains(block), "README's screen block is the lines between the markers")
    }
}
