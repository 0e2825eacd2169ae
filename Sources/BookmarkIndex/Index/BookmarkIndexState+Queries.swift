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
    /// ``BookmarkFilter/allOf`` tags, the named tags' postings intersected (O(p log(q / p)) for
    /// the rarest's p and another's q, O(p + q) when they are of a size) into c candidates;
    /// with only ``BookmarkFilter/anyOf`` tags, their postings merged. Then either each
    /// candidate's place is compared and the first `offset + limit` kept, O(c log(offset +
    /// limit)), reading only those rows; or, when the candidates are many enough that the
    /// first ones are likely near the top (c² ≥ (offset + limit) · n / 3), the list is walked
    /// in order, a candidate told by one bit (O(n / 64) to set them), until `offset + limit`
    /// match or 6c entries were read, and the candidates are tested if it was not enough. A
    /// filter naming no tag but a ``BookmarkFilter/text`` scans the
    /// list's folded titles and artist names once (kept from the first text query after a write
    /// to the next write, which builds them in O(n)), then orders the m matches; any other
    /// filter naming no tag to select by walks the list in order and stops after
    /// `offset + limit` matches, except that one asking for vanished works only reads just those
    /// (O(v log v) for v of them). A filter naming artists (and no tag) draws its candidates
    /// from one pass over the list's artist column. Only the postings of the tags the filter
    /// names are read; a constraint on AI, age rating or kind is tested on a row's one-byte
    /// attributes before the row is read.
    public func bookmarks(
        in restrict: Restrict,
        matching filter: BookmarkFilter = .all,
        limit: Int? = nil,
        offset: Int = 0
    ) -> [IndexedBookmark] {
        precondition(offset >= 0, "offset must not be negative")
        precondition(limit.map { $0 >= 0 } ?? true, "limit must not be negative")
        let list = lists[restrict.listIndex]
        var plan = queryPlan(in: restrict, matching: filter)
        let wanted = limit.map { offset + $0 }
        if wanted == 0 { return [] }
        if let slots = firstMatches(wanted, of: &plan, after: nil) {
            return slots.dropFirst(offset).map { materialize(list.slots[Int($0)], in: restrict) }
        }
        // Each candidate's place is compared in place, and only one that makes the cut read.
        let (slots, _) = nearest(plan: plan, sortedBy: .bookmarkOrder, beyond: nil, above: false, limit: wanted)
        return slots.dropFirst(offset).map { materialize(list.slots[Int($0)], in: restrict) }
    }

    /// How many bookmarks of `restrict`'s list match `filter`: of the works it asks for by its
    /// ``BookmarkFilter/visibility``, like every query.
    ///
    /// O(1) for a filter with no tags, no text and no constraint on a work's fields (the counts
    /// of every row and of the vanished ones are kept); otherwise as
    /// ``bookmarks(in:matching:limit:offset:)`` without a limit, but nothing is sorted or copied,
    /// and a filter naming no tag, text or artist scans the list's one-byte attribute column
    /// and reads only the rows it admits.
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
        queryPlan(in: restrict, matching: filter).forEachMatchingSlot { _ in count += 1 }
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
        queryPlan(in: restrict, matching: filter).forEachMatch { row, _ in body(row) }
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
