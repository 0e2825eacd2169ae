// The app-side model of "Building the Bookmarks screen" (BookmarkScreen's DocC catalog), exactly
// as the article shows it: ArticleTests checks the article holds this code and drives it.
// article-code-begin
import BookmarkIndex
import BookmarkScreen
import BookmarkSync
import Observation

/// Everything the Bookmarks tab shows for one list, and what its buttons do.
@MainActor
@Observable
final class BookmarksScreenModel {
    let list: Restrict
    let feed: BookmarkFeed
    let tagSheet: TagSheet
    let toast: SyncToast
    var isShowingTagSheet = false
    var isIndexingEnabled = true
    /// Why the last tap failed (its change was rolled back), for an alert.
    var failure: BookmarkSyncError?

    @ObservationIgnored private let engine: BookmarkSyncEngine

    init(engine: BookmarkSyncEngine, list: Restrict) {
        self.engine = engine
        self.list = list
        feed = BookmarkFeed(store: engine.store, list: list)
        tagSheet = TagSheet(store: engine.store, list: list)
        toast = SyncToast(engine: engine)
    }

    /// While the screen is shown: sync the list if it is due, and keep the feed, the tag sheet
    /// and the toast current. Cancelled with the screen's task.
    func run() async {
        isIndexingEnabled = await engine.isIndexingEnabled
        await engine.startAutoSync(for: list)
        await withDiscardingTaskGroup { group in
            group.addTask { await self.feed.observe() }
            group.addTask { await self.tagSheet.observe() }
            group.addTask { await self.toast.observe() }
        }
    }

    /// The sheet's "Show N bookmarks" button.
    func applyTags() {
        feed.filter = tagSheet.filter
        isShowingTagSheet = false
    }

    /// Pull to refresh: a full walk of the list; the spinner stops once its first page is
    /// written (the feed is current at its top), and the walk goes on behind the toast.
    func pullToRefresh() async -> SyncOutcome {
        await engine.refresh(list, until: .firstPage)
    }

    func bookmark(_ illust: BookmarkedIllustSnapshot, privately: Bool) async {
        await perform { try await $0.bookmark(illust, in: privately ? .private : .public) }
    }

    func unbookmark(_ bookmark: IndexedBookmark) async {
        await perform { try await $0.unbookmark(illustID: bookmark.illust.id) }
    }

    func moveToOtherList(_ bookmark: IndexedBookmark) async {
        await perform { try await $0.move(illustID: bookmark.illust.id, to: bookmark.restrict == .public ? .private : .public) }
    }

    /// The settings switch: off, nothing is fetched (taps still go to Pixiv); saved with the
    /// index, so a relaunch keeps it.
    func setIndexing(_ enabled: Bool) async {
        await engine.setIndexingEnabled(enabled)
        isIndexingEnabled = enabled
    }

    /// A tap changes the index at once; a refused POST rolls it back and says why.
    private func perform(_ tap: (BookmarkSyncEngine) async throws -> Void) async {
        do {
            try await tap(engine)
        } catch let error as BookmarkSyncError {
            failure = error
        } catch {
            failure = BookmarkSyncError(.transport, "\(error)")
        }
    }
}
// article-code-end
