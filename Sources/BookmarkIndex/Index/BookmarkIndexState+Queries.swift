import Foundation

extension BookmarkIndexState {
    /// The tags of `restrict`'s list with how many bookmarks carry each, by count descending,
    /// then name ascending: of the works Pixiv shows, by default; `visibility` counts the works
    /// that vanished from it (by their last-known tags) instead, or both.
    ///
    /// Reads the maintained counts (of every row, and of the vanished ones); it never looks at a
    /// bookmark. Complexity: O(T log k) for T distinct tags and `limit` k (a bounded selection,
    /// not a sort of every tag); O(T log T) without a limit.
    public func tagHistogram(
        in restrict: Restrict,
        visibility: BookmarkFilter.Visibility = .visible,
        limit: Int? = nil
    ) -> [ArtworkTagCount] {
        let list = lists[restrict.listIndex]
        var selection = BoundedSelection<(TagID, Int)>(limit: limit, isOrderedBefore: tagOrder)
        for (index, total) in list.tagCounts.enumerated() where total > 0 {
            let count = switch visibility {
            case .all: Int(total)
            case .vanished: list.vanishedTagCount(of: TagID(index))
            case .visible: Int(total) - list.vanishedTagCount(of: TagID(index))
            }
            if count > 0 { selection.offer((TagID(index), count)) }
        }
        return selection.sorted().map { tagCount($0, in: list) }
    }

    /// The bookmarks of `restrict`'s list that match `filter`, newest first, skipping `offset`
    /// and returning at most `limit`.
    ///
    /// Served entirely from memory, so a filtered feed is never sparse. Complexity: with
    /// ``BookmarkFilter/allOf`` tags, O(p) for p the postings of the rarest named tag, plus
    /// O(m log(offset + limit)) to order the m matches; with only ``BookmarkFilter/anyOf`` tags,
    /// O(postings of those tags); a filter naming no tag but a ``BookmarkFilter/text`` scans the
    /// list's folded titles and artist names once (kept from the first text query after a write
    /// to the next write, which builds them in O(n)), then orders the m matches; any other
    /// filter naming no tag to select by walks the list in order and stops after
    /// `offset + limit` matches, except that one asking for vanished works only reads just those
    /// (O(v log v) for v of them). Only the postings of the tags the filter names are read.
    public func bookmarks(
        in restrict: Restrict,
        matching filter: BookmarkFilter = .all,
        limit: Int? = nil,
        offset: Int = 0
    ) -> [IndexedBookmark] {
        precondition(offset >= 0, "offset must not be negative")
        precondition(limit.map { $0 >= 0 } ?? true, "limit must not be negative")
        let list = lists[restrict.listIndex]
        let plan = queryPlan(in: restrict, matching: filter)
        let wanted = limit.map { offset + $0 }
        if wanted == 0 { return [] }

        if let candidates = plan.candidates {
            var selection = BoundedSelection<ListIndex.Row>(limit: wanted, isOrderedBefore: isNewer)
            for slot in candidates {
                guard let row = list.row(at: slot), plan.matches(row, slot: slot) else { continue }
                selection.offer(row)
            }
            return selection.sorted().dropFirst(offset).map { materialize($0, in: restrict) }
        }
        var result: [IndexedBookmark] = []
        var skipped = 0
        list.forEachNewestFirst { row, slot in
            guard plan.matches(row, slot: slot) else { return true }
            if skipped < offset {
                skipped += 1
            } else {
                result.append(materialize(row, in: restrict))
            }
            return wanted.map { result.count + skipped < $0 } ?? true
        }
        return result
    }

    /// How many bookmarks of `restrict`'s list match `filter`: of the works it asks for by its
    /// ``BookmarkFilter/visibility``, like every query.
    ///
    /// O(1) for a filter with no tags and no text (the counts of every row and of the vanished
    /// ones are kept); otherwise as ``bookmarks(in:matching:limit:offset:)`` without a limit,
    /// but nothing is sorted or copied.
    public func count(in restrict: Restrict, matching filter: BookmarkFilter) -> Int {
        if filter.selectsByVisibilityOnly {
            let list = lists[restrict.listIndex]
            switch filter.visibility {
            case .all: return list.count
            case .vanished: return list.vanishedCount
            case .visible: return list.count - list.vanishedCount
            }
        }
        var count = 0
        forEachMatch(in: restrict, matching: filter) { _ in count += 1 }
        return count
    }

    /// The tags carried by the bookmarks that match `filter`, with how many of them carry each,
    /// by count descending then name; what a tag-filter sheet shows as tags are picked.
    ///
    /// The tags the filter requires (``BookmarkFilter/allOf``) are left out, since every match
    /// carries them. Complexity: O(m · t) for m matches of t tags each, plus the selection.
    public func coOccurringTags(
        in restrict: Restrict,
        matching filter: BookmarkFilter,
        limit: Int? = nil
    ) -> [ArtworkTagCount] {
        let list = lists[restrict.listIndex]
        let required = Set(filter.allOf.flatMap { word in tags.ids(matching: word) { list.refCount(of: $0) > 0 } })
        var counts: [TagID: Int] = [:]
        forEachMatch(in: restrict, matching: filter) { row in
            ListIndex.forEachName(list.tags(of: row), nameOfRef: tags.nameOfRef) { tag in
                if !required.contains(tag) { counts[tag, default: 0] += 1 }
            }
        }
        var selection = BoundedSelection<(TagID, Int)>(limit: limit, isOrderedBefore: tagOrder)
        for entry in counts { selection.offer(entry) }
        return selection.sorted().map { tagCount($0, in: list) }
    }

    /// Calls `body` with each row of `restrict`'s list that matches `filter`, in no given order.
    func forEachMatch(in restrict: Restrict, matching filter: BookmarkFilter, _ body: (ListIndex.Row) -> Void) {
        let list = lists[restrict.listIndex]
        let plan = queryPlan(in: restrict, matching: filter)
        if let candidates = plan.candidates {
            for slot in candidates {
                guard let row = list.row(at: slot), plan.matches(row, slot: slot) else { continue }
                body(row)
            }
        } else {
            list.forEachNewestFirst { row, slot in
                if plan.matches(row, slot: slot) { body(row) }
                return true
            }
        }
    }

    /// Server order: a larger order first, then a larger illust ID (as ``OrderList`` ranks ties).
    private func isNewer(_ a: ListIndex.Row, _ b: ListIndex.Row) -> Bool {
        a.serverOrder != b.serverOrder ? a.serverOrder > b.serverOrder : a.illustID > b.illustID
    }

    private func tagOrder(_ a: (TagID, Int), _ b: (TagID, Int)) -> Bool {
        if a.1 != b.1 { return a.1 > b.1 }
        return tags.names[Int(a.0)] < tags.names[Int(b.0)]
    }

    private func tagCount(_ entry: (TagID, Int), in list: ListIndex) -> ArtworkTagCount {
        ArtworkTagCount(name: tags.names[Int(entry.0)], translatedName: translation(of: entry.0, in: list), count: entry.1)
    }

    /// The translation of `tag` that most of the list's rows carry (the alphabetically first of
    /// equally common ones), or `nil` when none of them carries one: decided by what the list
    /// holds, not by the order it was written in.
    func translation(of tag: TagID, in list: ListIndex) -> String? {
        var best: (count: Int, translation: String)?
        for ref in tags.refsOfName[Int(tag)] {
            let count = list.refCount(of: ref)
            guard count > 0, let translation = tags.refs[Int(ref)].translatedName else { continue }
            if let current = best, current.count > count || (current.count == count && current.translation <= translation) { continue }
            best = (count, translation)
        }
        return best?.translation
    }
}

extension BookmarkIndexState {
    /// How `filter` would be evaluated against `restrict`'s list.
    func queryPlan(in restrict: Restrict, matching filter: BookmarkFilter) -> QueryPlan {
        QueryPlan(filter: filter, tags: tags, list: lists[restrict.listIndex])
    }
}

/// A filter resolved against one list: the posting sets of the tags it names, and where to
/// draw candidates from.
struct QueryPlan {
    /// One entry per required tag word: the postings of every tag the word names.
    var required: [[Postings]] = []
    var anyOf: [Postings] = []
    var excluded: [Postings] = []
    var text: TextMatcher?
    /// The candidates are exactly the rows the text matches: no row need be matched again.
    var candidatesMatchText = false
    var visibility: BookmarkFilter.Visibility
    /// The list, for the text of the rows a text filter reads.
    var list: ListIndex
    /// The slots to test, or `nil` to walk the whole list in order.
    var candidates: [Int32]?

    init(filter: BookmarkFilter, tags: TagTable, list: ListIndex) {
        visibility = filter.visibility
        self.list = list
        text = filter.text.flatMap(TextMatcher.init)
        func postings(_ word: String) -> [Postings] {
            tags.ids(matching: word) { list.refCount(of: $0) > 0 }.map { list.postings(of: $0) }.filter { !$0.isEmpty }
        }
        required = filter.allOf.map(postings)
        anyOf = filter.anyOf.flatMap(postings)
        excluded = filter.noneOf.flatMap(postings)

        if !filter.allOf.isEmpty {
            // The rarest required word bounds the candidates.
            let rarest = required.min { $0.reduce(0) { $0 + $1.count } < $1.reduce(0) { $0 + $1.count } } ?? []
            candidates = Self.union(rarest)
        } else if !filter.anyOf.isEmpty {
            candidates = Self.union(anyOf)
        } else if let text {
            // One scan of the list's folded texts rather than a match per row.
            candidates = list.textSearch.index(of: list).slots(containing: text.needle)
            candidatesMatchText = true
        } else if filter.visibility == .vanished {
            // Vanished works are few: test them rather than walk the list.
            candidates = list.vanishedSlots.slots
        }
    }

    /// The slots in any of `lists`, each once.
    private static func union(_ lists: [Postings]) -> [Int32] {
        if lists.count == 1 { return lists[0].slots }
        var slots = Set<Int32>()
        for list in lists { slots.formUnion(list) }
        return Array(slots)
    }

    func matches(_ row: ListIndex.Row, slot: Int32) -> Bool {
        if !visibility.includes(isVisible: row.isVisible) { return false }
        for word in required where !word.contains(where: { $0.contains(slot) }) { return false }
        if !anyOf.isEmpty && !anyOf.contains(where: { $0.contains(slot) }) { return false }
        if excluded.contains(where: { $0.contains(slot) }) { return false }
        if let text, !candidatesMatchText {
            return list.withTexts(of: row) { title, artistName in text.matches(title) || text.matches(artistName) }
        }
        return true
    }
}
