import BookmarkIndex
import BookmarkScreen
import BookmarkSync
import Foundation
import Synchronization
import Testing

/// "Building the Bookmarks screen": its model is the one in BookmarksScreenModel.swift, word for
/// word, and it does what the article says, through the real engine.
@MainActor
@Suite("The Bookmarks screen article", .hangLimit)
struct ArticleTests {
    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let article = testsDirectory
        .appendingPathComponent("../../../Sources/BookmarkScreen/BookmarkScreen.docc/BuildingTheBookmarksScreen.md").standardized

    @Test func theArticleShowsTheModelTheTestsCompile() throws {
        let source = try String(contentsOf: Self.testsDirectory.appendingPathComponent("BookmarksScreenModel.swift"), encoding: .utf8)
        let begin = try #require(source.range(of: "// article-code-begin\n"))
        let end = try #require(source.range(of: "// article-code-end"))
        let model = String(source[begin.upperBound..<end.lowerBound])
        let article = try String(contentsOf: Self.article, encoding: .utf8)
        #expect(article.contains("```swift\n" + model + "```\n"), "the article's model block is BookmarksScreenModel.swift between its markers")
    }

    @Test func theScreenSyncsFiltersBookmarksAndRefreshes() async throws {
        let harness = try await ScreenHarness()
        harness.source.add(harness.works(from: 1, count: 120), to: .public)
        let model = BookmarksScreenModel(engine: harness.engine, list: .public)
        let screen = Task { await model.run() }
        defer { screen.cancel() }

        // The screen appears: a first walk, the feed's first page, a finished toast.
        await settle { model.feed.isLoaded }
        await harness.run()
        await settle { model.feed.bookmarks.count == 60 && model.tagSheet.isLoaded }
        #expect(model.feed.bookmarks.map(\.illust.id) == Array(harness.source.illusts(in: .public).map(\.id).prefix(60)))
        await settle { model.toast.rows.map(\.phase) == [.finished(indexedCount: 120, change: 120)] }

        // Pick the most common tag and apply the sheet: the feed shows those bookmarks.
        let tag = try #require(model.tagSheet.tags.first)
        model.isShowingTagSheet = true
        model.tagSheet.toggle(tag.name)
        model.applyTags()
        #expect(!model.isShowingTagSheet)
        let tagged = await harness.store.bookmarks(in: .public, matching: BookmarkFilter(allOf: [tag.name]), limit: 60)
        await settle { Array(model.feed.bookmarks) == tagged }
        #expect(model.feed.matchingCount == tag.count)

        // Unbookmark a row: gone from the feed at once, and from Pixiv once the POST went.
        let removed = try #require(model.feed.bookmarks.first)
        await drive(harness) { await model.unbookmark(removed) }
        #expect(model.failure == nil)
        await settle { !model.feed.bookmarks.contains(removed) }
        #expect(!harness.source.illusts(in: .public).contains { $0.id == removed.illust.id })

        // A refused POST rolls back and says why.
        harness.source.failNext(BookmarkSyncError(.unauthorized, "sign in again"))
        let other = try #require(model.feed.bookmarks.first)
        await drive(harness) { await model.unbookmark(other) }
        #expect(model.failure?.code == .unauthorized)
        #expect(await harness.store.contains(other.key))

        // Pull to refresh: new works on Pixiv; the spinner stops at the first page.
        harness.source.add(harness.works(from: 5_000, count: 3, seed: 6), to: .public)
        await harness.later()
        let outcome = await drive(harness) { await model.pullToRefresh() }
        #expect(outcome == .firstPageWritten)
        await harness.run()

        // The switch: off, saved; a refresh is refused.
        await model.setIndexing(false)
        let engineIndexes = await harness.engine.isIndexingEnabled
        #expect(!model.isIndexingEnabled && !engineIndexes)
        #expect(await model.pullToRefresh() == .refused(.disabled))
    }

    /// Runs `body` while the clock is driven, and returns what it returned.
    private func drive<Value: Sendable>(_ harness: ScreenHarness, _ body: @escaping @MainActor () async -> Value) async -> Value? {
        let task = Task { @MainActor in await body() }
        let done = Done()
        let watcher = Task { _ = await task.value; done.set() }
        _ = await harness.clock.run(whileBusy: { !done.isSet })
        _ = await watcher.value
        return await task.value
    }
}

/// A flag set once, read from the clock's loop.
final class Done: Sendable {
    private let flag = Mutex(false)
    func set() { flag.withLock { $0 = true } }
    var isSet: Bool { flag.withLock { $0 } }
}
