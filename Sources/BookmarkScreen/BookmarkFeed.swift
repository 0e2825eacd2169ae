import BookmarkIndex
import Observation

/// One list's bookmarks under a filter, newest first, as a screen shows them: a page at a time,
/// current with the index, and still where the user left it while a sync writes.
///
/// Bind a view to ``bookmarks`` and run ``observe()`` for as long as the screen is shown (in
/// SwiftUI, from `.task`); call ``loadMore()`` as the user nears the end. Everything is read
/// from the index in memory, so a filtered feed is never sparse.
///
/// ```swift
/// let feed = BookmarkFeed(store: store, list: .public)
/// feed.filter = BookmarkFilter(allOf: ["オリジナル"])
/// Task { await feed.observe() }     // first page, then every change of the index
/// await feed.loadMore()             // the next page below
/// ```
///
/// **Staying put.** The feed shows a window of the list: as many rows as it has loaded, from
/// its top row down. When the index changes, the window is read again from the same top row,
/// found by its key wherever a sync placed it: rows written inside the window appear, removed
/// ones go, changed ones are replaced, and nothing written above the top row moves the rows
/// down. Bookmarks added above it (a sync's newest) are counted in ``newerCount`` instead, for
/// a "12 new" button that calls ``showNewer()``. Each read is one query in the list's current
/// order, so no row is shown twice and none is skipped; ``loadMore()`` makes the window a page
/// longer.
///
/// The model is main-actor isolated, for a view to bind to; a server uses it the same way from
/// any task. Each read takes the index's state in one hop to the store, then queries it on the
/// main actor: a page of 100,000 bookmarks is a fraction of a millisecond.
@MainActor
@Observable
public final class BookmarkFeed {
    /// The list shown.
    public let list: Restrict
    /// How many rows the first page and each ``loadMore()`` read.
    public let pageSize: Int
    /// What the feed shows. Changing it starts the window again at the top of the list: while
    /// ``observe()`` runs, it reads the first page under the new filter by itself; otherwise call
    /// ``reload()``.
    public var filter: BookmarkFilter {
        didSet {
            guard filter != oldValue else { return }
            window = FeedWindow()
            follower.poke()
        }
    }

    /// The rows shown, newest first, each built from the index's row when it is read (see
    /// `BookmarkRows`): a `ForEach` takes their identities from `BookmarkRows.keys` without
    /// building them.
    public private(set) var bookmarks: BookmarkRows = []
    /// Whether rows below the last one shown match the filter: what ``loadMore()`` would read.
    public private(set) var hasMore = false
    /// How many bookmarks matching the filter are above the first row shown (added by a sync
    /// since the feed read its top), at most ``maximumNewerCount``: "99+" when it is that.
    public private(set) var newerCount = 0
    /// How many bookmarks of the list match the filter.
    public private(set) var matchingCount = 0
    /// Whether the feed has read its first page.
    public private(set) var isLoaded = false
    /// The index's revision the rows come from.
    public private(set) var revision: UInt64 = 0

    /// The most ``newerCount`` counts: at this many, there may be more ("99+").
    public static let maximumNewerCount = 100

    @ObservationIgnored private let store: BookmarksIndexStore
    @ObservationIgnored private var window = FeedWindow()
    @ObservationIgnored private let follower = IndexFollower()

    /// A feed of `list`'s bookmarks matching `filter`; it reads nothing until ``observe()``,
    /// ``reload()`` or ``loadMore()``.
    public init(store: BookmarksIndexStore, list: Restrict, filter: BookmarkFilter = .all, pageSize: Int = 60) {
        precondition(pageSize > 0, "pageSize must be positive")
        self.store = store
        self.list = list
        self.filter = filter
        self.pageSize = pageSize
    }

    /// Reads the first page, then reads the window again after every write that changes the
    /// list and every change of ``filter``, until the calling task is cancelled (in SwiftUI,
    /// `.task { await feed.observe() }`) or the store closes.
    ///
    /// It subscribes to the store's changes before it reads, so no write between the two is
    /// missed; writes that land while a read is on its way are folded into one more read; after a
    /// reset of the store, the window starts again at the top. One `observe()` at a time: a
    /// second one takes the filter's wake-ups from the first.
    public func observe() async {
        await follower.follow(store, list: list, onReset: { [weak self] in self?.window = FeedWindow() }) {
            await reload()
        }
    }

    /// Reads the window again from the index: the first page when nothing is shown yet.
    public func reload() async {
        let state = await store.state
        apply(state) { window, state in window.reread(in: state) }
    }

    /// Reads the next page below the last row shown (the window grows a page when it is full),
    /// and the rest of the window again.
    public func loadMore() async {
        let state = await store.state
        apply(state) { window, state in window.extend(in: state) }
    }

    /// Shows the bookmarks counted in ``newerCount``: the window's top becomes the top of the
    /// list, and it grows by as many rows, so the rows already loaded stay.
    public func showNewer() async {
        window.length += newerCount
        window.top = nil
        await reload()
    }

    /// Runs `read` on the window with `state` and publishes what it found, unless a later read
    /// finished while this state was on its way.
    private func apply(_ state: BookmarkIndexState, _ read: (inout FeedWindow, FeedWindow.Query) -> Void) {
        // Two reads can resume out of order: an older state never replaces a newer one.
        guard state.revision >= revision else { return }
        let query = FeedWindow.Query(state: state, list: list, filter: filter, pageSize: pageSize)
        read(&window, query)
        let counts = window.counts(in: query, newerLimit: Self.maximumNewerCount)
        bookmarks = window.rows
        hasMore = window.hasMore
        newerCount = counts.newer
        matchingCount = counts.matching
        revision = state.revision
        isLoaded = true
    }
}
