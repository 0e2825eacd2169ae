import BookmarkIndex
import Foundation

/// Issue 24's items: the field filters, the sorts, the artist facet and tag search, each beside
/// SQLite doing the same work with an index on each column it filters or sorts by. Each checks
/// that both answer the same before it times them.
struct FacetItems {
    static let names = ["filter_ai_excluded", "filter_combined", "sort_popular_first_page", "sort_popular_filtered", "artist_facet", "tag_search"]

    let sampling: Sampling

    /// One item: the index's work and SQLite's, each returning what is compared.
    private struct Query {
        var name: String
        var note: String
        var ours: () async -> Answer
        var sqlite: () throws -> Answer
    }

    /// What an item returns: the rows' illust IDs (or the counts of its artists), or its tags
    /// as text. Both sides return the numbers they read, so that neither pays for formatting.
    private enum Answer: Equatable {
        case numbers([Int])
        case texts([String])

        var count: Int {
            switch self {
            case .numbers(let numbers): numbers.count
            case .texts(let texts): texts.count
            }
        }

        var start: String {
            switch self {
            case .numbers(let numbers): "\(numbers.prefix(5))"
            case .texts(let texts): "\(texts.prefix(5))"
            }
        }
    }

    func run(store: BookmarksIndexStore, peer: SQLitePeer, wants: (String) -> Bool) async throws -> [ItemResult] {
        try peer.createFacetIndexes()
        let histogram = await store.tagHistogram(in: .public)
        let tags = FilterTags(histogram: histogram)
        // Two common tags (ranks 2 and 5), so that the combined filter still has rows to return.
        let common = (histogram[2].name, histogram[5].name)
        let prefix = String(histogram[0].name.prefix(2))
        let combined = BookmarkFilter(
            allOf: [common.0, common.1], ai: .excludingAI, ageRatings: [.allAges, .r18g], types: [.illust]
        )
        let queries = [
            Query(
                name: "filter_ai_excluded", note: "first 100 not AI-generated",
                ours: { .numbers(await store.bookmarks(in: .public, matching: BookmarkFilter(ai: .excludingAI), after: nil, limit: 100).bookmarks.ids) },
                sqlite: { .numbers(try peer.bookmarksExcludingAI(restrict: .public, limit: 100)) }
            ),
            Query(
                name: "filter_combined", note: "first 100 with tags #2 and #5, AI and R-18 excluded, illusts only",
                ours: { .numbers(await store.bookmarks(in: .public, matching: combined, after: nil, limit: 100).bookmarks.ids) },
                sqlite: { .numbers(try peer.bookmarksCombined(restrict: .public, allOf: common.0, common.1, limit: 100)) }
            ),
            Query(
                name: "sort_popular_first_page", note: "first 30 of the list by total bookmarks",
                ours: { .numbers(await store.bookmarks(in: .public, sortedBy: .popularity, after: nil, limit: 30).bookmarks.ids) },
                sqlite: { .numbers(try peer.popular(restrict: .public, limit: 30)) }
            ),
            Query(
                name: "sort_popular_filtered", note: "first 30 with tags #50 and #60 by total bookmarks",
                ours: {
                    .numbers(await store.bookmarks(in: .public, matching: BookmarkFilter(allOf: [tags.middle.0, tags.middle.1]), sortedBy: .popularity, after: nil, limit: 30).bookmarks.ids)
                },
                sqlite: { .numbers(try peer.popular(restrict: .public, allOf: tags.middle.0, tags.middle.1, limit: 30)) }
            ),
            Query(
                // Artists tied in count may come in another order: the counts are compared.
                name: "artist_facet", note: "top 50 artists of the list",
                ours: { .numbers(await store.topArtists(in: .public, limit: 50).map(\.count)) },
                sqlite: { .numbers(try peer.topArtistCounts(restrict: .public, limit: 50)) }
            ),
            Query(
                name: "tag_search", note: "tags containing \"\(prefix)\", those beginning with it first, top 10",
                ours: { .texts(await store.searchTags(prefix, in: .public, limit: 10).map { "\($0.name) \($0.count)" }) },
                sqlite: { .texts(try peer.searchTags(restrict: .public, text: prefix, limit: 10)) }
            ),
        ]
        // A smoke run's few bookmarks may leave a query nothing to return; a real run's may not.
        let needsRows = await store.count(in: .public) >= 10_000
        var results: [ItemResult] = []
        for query in queries where wants(query.name) {
            let answer = await query.ours()
            let sqliteAnswer = try query.sqlite()
            guard answer == sqliteAnswer, answer.count > 0 || !needsRows else {
                throw HarnessError("\(query.name): the index answered \(answer.start)… (\(answer.count)), SQLite \(sqliteAnswer.start)… (\(sqliteAnswer.count))")
            }
            let figure = await sampling.measure { await elapsedMilliseconds { blackHole(await query.ours()) } }
            let sqliteFigure = try sampling.measure { try elapsedMilliseconds { blackHole(try query.sqlite()) } }
            var item = ItemResult(name: query.name, ours: figure, sqlite: sqliteFigure)
            item.fields = [("rows", .integer(answer.count))]
            item.note = "\(query.note) (\(answer.count) rows)"
            item.target = Target(text: "≤ 1 ms, ratio ≤ 0.1", isMet: figure.median <= 1 && item.ratio.map { $0 <= 0.1 } ?? false)
            results.append(item)
        }
        return results
    }
}

extension BookmarkRows {
    /// The illust IDs: what the items compare. Read from the page's rows without building its
    /// bookmarks, as a screen takes its rows' identities; SQLite's side reads each row's
    /// columns without making strings of them.
    var ids: [Int] { keys.map(\.illustID) }
}
