extension BookmarkIndexState {
    /// The bookmarks of `restrict`'s list that match `filter` and come after `cursor` (below
    /// it, newest first), at most `limit`; from the top of the list when `cursor` is `nil`.
    ///
    /// What a feed pages with: pass the page's ``BookmarkFeedPage/lastCursor`` for the next one.
    /// Unlike an offset, a cursor is a place in the list: rows added above it (a sync putting
    /// newer bookmarks on top) never shift the pages below it, a row removed below it is simply
    /// not returned, and the next page begins exactly after the last row of this one, whether
    /// that row is still there or not. Works that vanished follow the filter's
    /// ``BookmarkFilter/visibility``, as in every query.
    ///
    /// Complexity: as ``bookmarks(in:matching:limit:offset:)`` with no offset. A filter that
    /// walks the list in order finds the cursor's place in O(log n), then reads rows until
    /// `limit` match; one that selects candidates (tags, artists, vanished works only) walks
    /// the same way when they are many (testing each one's bit before it reads a row), or tests
    /// each candidate against the cursor too, in O(1), and keeps the first `limit` in
    /// O(m log limit) for m matches below the cursor, as it always does for a text's matches.
    public func bookmarks(
        in restrict: Restrict,
        matching filter: BookmarkFilter = .all,
        after cursor: BookmarkCursor?,
        limit: Int
    ) -> BookmarkFeedPage {
        precondition(limit >= 0, "limit must not be negative")
        precondition(cursor.map { $0.sort == .bookmarkOrder } ?? true, "a cursor of a sorted feed was passed for bookmark order")
        var plan = queryPlan(in: restrict, matching: filter)
        // One row more than asked says whether there are more.
        guard let slots = firstMatches(limit + 1, of: &plan, after: cursor) else {
            // Candidates are tested one by one and the newest kept, as a sorted feed's rows are.
            return page(in: restrict, plan: plan, sortedBy: .bookmarkOrder, after: cursor, limit: limit)
        }
        return BookmarkFeedPage(bookmarks: rows(atSlots: Array(slots.prefix(limit)), in: restrict), hasMore: slots.count > limit)
    }

    /// The slots of the first `wanted` rows `plan` matches below `cursor` (all of them for
    /// `nil`), newest first, by walking the list in order; `nil` when the plan's candidates are
    /// better tested one by one (see ``QueryPlan/walkBudget(forFirst:)``), or the walk used its
    /// budget up.
    func firstMatches(_ wanted: Int?, of plan: inout QueryPlan, after cursor: BookmarkCursor?) -> [Int32]? {
        var budget = Int.max
        if plan.candidates != nil {
            guard let bound = plan.walkBudget(forFirst: wanted) else { return nil }
            budget = bound
            plan.prepareWalk()
        }
        var slots: [Int32] = []
        slots.reserveCapacity(min(wanted ?? 0, 1_024))
        let tested = plan
        let finished = lists[plan.restrict.listIndex].forEachNewestFirst(after: cursor, admitting: { tested.admits($0) }, budget: budget) { row, slot in
            // The walk asked `admits` before it read the row.
            guard tested.matchesRow(row, slot: slot) else { return true }
            slots.append(slot)
            return wanted.map { slots.count < $0 } ?? true
        }
        return finished ? slots : nil
    }

    /// The bookmarks of `restrict`'s list that match `filter` and come before `cursor` (above
    /// it): the `limit` nearest it (all of them when `limit` is `nil`), newest first.
    ///
    /// What a feed reads when rows appeared above its first row (a sync added newer
    /// bookmarks): pass its first row's cursor (``BookmarkFeedPage/firstCursor``) to count them
    /// ("12 new bookmarks") and prepend them, and the returned page's ``BookmarkFeedPage/firstCursor``
    /// to read further up; ``BookmarkFeedPage/hasMore`` says whether there are more above.
    ///
    /// Complexity: a filter that walks the list in order finds the cursor's place in O(log n),
    /// then reads rows upwards until `limit` match (every row above the cursor without a
    /// limit); one that selects candidates tests each against the cursor and keeps the
    /// nearest `limit` in O(m log limit) for m matches above it.
    public func bookmarks(
        in restrict: Restrict,
        matching filter: BookmarkFilter = .all,
        before cursor: BookmarkCursor,
        limit: Int? = nil
    ) -> BookmarkFeedPage {
        precondition(limit.map { $0 >= 0 } ?? true, "limit must not be negative")
        precondition(cursor.sort == .bookmarkOrder, "a cursor of a sorted feed was passed for bookmark order")
        let list = lists[restrict.listIndex]
        let plan = queryPlan(in: restrict, matching: filter)
        let wanted = limit.map { $0 + 1 }
        // Nearest the cursor first, that is oldest first.
        var rows: [ListIndex.Row] = []
        if let candidates = plan.candidates {
            var selection = BoundedSelection<ListIndex.Row>(limit: wanted) { $1.cursor.precedes($0.cursor) }
            for slot in candidates where plan.admits(slot) {
                guard let row = list.row(at: slot), row.cursor.precedes(cursor), plan.matchesRow(row, slot: slot) else { continue }
                selection.offer(row)
            }
            rows = selection.sorted()
        } else {
            list.forEachOldestFirst(before: cursor, admitting: plan.admits) { row, slot in
                guard plan.matchesRow(row, slot: slot) else { return true }
                rows.append(row)
                return wanted.map { rows.count < $0 } ?? true
            }
        }
        let kept = limit.map { rows.prefix($0) } ?? rows[...]
        return BookmarkFeedPage(bookmarks: self.rows(kept.reversed(), in: restrict), hasMore: rows.count > kept.count)
    }
}
