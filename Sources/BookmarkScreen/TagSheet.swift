import BookmarkIndex
import Foundation
import Observation

/// The tag sheet of a Bookmarks screen: the artwork tags of one list with their counts, narrowed
/// as the user picks tags, and found by name or translation as the user types.
///
/// Bind a view to ``tags`` and ``filter`` and run ``observe()`` while the sheet is shown; pick
/// and unpick with ``toggle(_:)``. The sheet's ``filter`` is what a ``BookmarkFeed`` shows:
/// hand it over when the user applies the sheet (or on every change, for a live feed).
///
/// ```swift
/// let sheet = TagSheet(store: store, list: .public)
/// Task { await sheet.observe() }
/// sheet.toggle("オリジナル")       // tags now lists those carried beside it, with counts
/// sheet.searchText = "sky"        // tags now lists the matches of "sky", under the same filter
/// feed.filter = sheet.filter
/// ```
///
/// What ``tags`` lists:
/// - with no search text and nothing to narrow by, the list's histogram: every tag with how
///   many bookmarks carry it (of the works Pixiv shows, or as `BookmarkFilter.visibility` says);
/// - with tags picked (or any other constraint in ``filter``), the tags carried by the bookmarks
///   that match, with how many of those carry each; the picked tags themselves are left out;
/// - with search text, the tags whose name or translation contains it (case folded, those that
///   begin with it first), counted among the bookmarks that match ``filter``.
///
/// Like the feed, the sheet is main-actor isolated and reads the index's state in one hop.
@MainActor
@Observable
public final class TagSheet {
    /// The list whose tags are shown.
    public let list: Restrict
    /// The most tags ``tags`` lists.
    public let limit: Int
    /// The bookmarks the sheet narrows to: the picked tags are its `BookmarkFilter.allOf`.
    /// Setting it (or picking a tag) lists the tags again while ``observe()`` runs.
    public var filter: BookmarkFilter {
        didSet { if filter != oldValue { follower.poke() } }
    }
    /// What the user typed to find a tag; empty lists the tags without searching.
    public var searchText = "" {
        didSet { if searchText != oldValue { follower.poke() } }
    }

    /// The tags to list, by count descending (search matches: those beginning with the text first).
    public private(set) var tags: [ArtworkTagCount] = []
    /// How many bookmarks of the list match ``filter``: the sheet's "Show 240 bookmarks" button.
    public private(set) var matchingCount = 0
    /// Whether the sheet has listed its tags once.
    public private(set) var isLoaded = false

    /// The tags picked, in the order they were picked.
    public var pickedTags: [String] { filter.allOf }

    @ObservationIgnored private let store: BookmarksIndexStore
    @ObservationIgnored private let follower = IndexFollower()
    @ObservationIgnored private var revision: UInt64 = 0

    /// A sheet of `list`'s tags under `filter`, listing at most `limit`; it reads nothing until
    /// ``observe()`` or ``reload()``.
    public init(store: BookmarksIndexStore, list: Restrict, filter: BookmarkFilter = .all, limit: Int = 200) {
        precondition(limit > 0, "limit must be positive")
        self.store = store
        self.list = list
        self.filter = filter
        self.limit = limit
    }

    /// Picks `tag` (it joins ``filter``'s required tags), or unpicks it when it was picked.
    public func toggle(_ tag: String) {
        if let index = filter.allOf.firstIndex(of: tag) {
            filter.allOf.remove(at: index)
        } else {
            filter.allOf.append(tag)
        }
    }

    /// Lists the tags, then lists them again after every write that changes the list and every
    /// change of ``filter`` or ``searchText``, until the calling task is cancelled or the store
    /// closes.
    public func observe() async {
        await follower.follow(store, list: list) { await reload() }
    }

    /// Lists the tags again from the index.
    public func reload() async {
        let state = await store.state
        guard state.revision >= revision || !isLoaded else { return }
        tags = Self.tags(in: state, list: list, filter: filter, searchText: searchText, limit: limit)
        matchingCount = state.count(in: list, matching: filter)
        revision = state.revision
        isLoaded = true
    }

    /// What ``tags`` lists for these inputs (see the type's discussion).
    static func tags(in state: BookmarkIndexState, list: Restrict, filter: BookmarkFilter, searchText: String, limit: Int) -> [ArtworkTagCount] {
        let text = searchText.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty {
            return state.searchTags(text, in: list, matching: filter, limit: limit)
        }
        if filter == BookmarkFilter(visibility: filter.visibility) {
            // Nothing narrows: the maintained counts, without looking at a bookmark.
            return state.tagHistogram(in: list, visibility: filter.visibility, limit: limit)
        }
        return state.coOccurringTags(in: list, matching: filter, limit: limit)
    }
}
