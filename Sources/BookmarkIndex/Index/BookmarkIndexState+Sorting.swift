extension BookmarkIndexState {
    /// The bookmarks of `restrict`'s list that match `filter`, in `sort`, after `cursor` (from
    /// the start when it is `nil`), at most `limit`: a sorted feed, paged like the default one.
    ///
    /// Pass the page's ``BookmarkFeedPage/lastCursor`` for the next one. Rows with equal keys
    /// come in bookmark order, newest bookmark first (see ``BookmarkSort``), so the order is
    /// total and a cursor is one place in it: a row added or changed since lands before or
    /// after that place by its key, never shifting the pages already read, and a row removed
    /// is simply not returned. A work whose key a sync changed (its popularity, say) may show
    /// again on a later page, at its new place, or not at all. Popularity and rates are as of
    /// the last sync that saw each work.
    ///
    /// In ``BookmarkSort/bookmarkOrder`` this is ``bookmarks(in:matching:after:limit:)``.
    /// Otherwise a filter without tags or text first reads the few hundred rows the index keeps
    /// at the top of each sort, from the cursor down, and stops once it has `limit` matches:
    /// the first pages cost about what they return. When those rows hold too few (a deep page, a
    /// filter most leading rows fail), and for filters with tags or text, every match is tested
    /// against the cursor and the first `limit` kept: O(m log limit) for m matches, found as
    /// ``count(in:matching:)`` finds them; a row's key is read in place, and most rows are
    /// turned down by one comparison with the last kept.
    ///
    /// - Precondition: `cursor` was read in `sort` (its ``BookmarkCursor/sort``); a cursor of
    ///   another order names no place in this one.
    public func bookmarks(
        in restrict: Restrict,
        matching filter: BookmarkFilter = .all,
        sortedBy sort: BookmarkSort,
        after cursor: BookmarkCursor?,
        limit: Int
    ) -> BookmarkFeedPage {
        precondition(limit >= 0, "limit must not be negative")
        precondition(cursor.map { $0.sort == sort } ?? true, "a cursor read in one sort was passed with another: it names no place in it")
        if sort == .bookmarkOrder {
            return bookmarks(in: restrict, matching: filter, after: cursor, limit: limit)
        }
        return page(in: restrict, plan: queryPlan(in: restrict, matching: filter), sortedBy: sort, after: cursor, limit: limit)
    }

    /// The bookmarks of `restrict`'s list that match `filter` and come before `cursor` in
    /// `sort` (above it): the `limit` nearest it (all of them when `limit` is `nil`), in `sort`.
    ///
    /// What a sorted feed reads for the rows that moved or appeared above its first row: pass
    /// its ``BookmarkFeedPage/firstCursor``; ``BookmarkFeedPage/hasMore`` says whether there are
    /// more above. In ``BookmarkSort/bookmarkOrder`` this is
    /// ``bookmarks(in:matching:before:limit:)``. Complexity as
    /// ``bookmarks(in:matching:sortedBy:after:limit:)``.
    ///
    /// - Precondition: `cursor` was read in `sort`.
    public func bookmarks(
        in restrict: Restrict,
        matching filter: BookmarkFilter = .all,
        sortedBy sort: BookmarkSort,
        before cursor: BookmarkCursor,
        limit: Int? = nil
    ) -> BookmarkFeedPage {
        precondition(limit.map { $0 >= 0 } ?? true, "limit must not be negative")
        precondition(cursor.sort == sort, "a cursor read in one sort was passed with another: it names no place in it")
        if sort == .bookmarkOrder {
            return bookmarks(in: restrict, matching: filter, before: cursor, limit: limit)
        }
        return page(in: restrict, plan: queryPlan(in: restrict, matching: filter), sortedBy: sort, above: cursor, limit: limit)
    }

    /// The first `limit` rows `plan` matches after `cursor` in `sort`, testing every row the
    /// plan's columns admit (or its candidates): what sorted feeds, and feeds in bookmark order
    /// with candidates to test, read.
    func page(in restrict: Restrict, plan: QueryPlan, sortedBy sort: BookmarkSort, after cursor: BookmarkCursor?, limit: Int) -> BookmarkFeedPage {
        let (slots, hasMore) = nearest(plan: plan, sortedBy: sort, beyond: cursor?.rank, above: false, limit: limit)
        return BookmarkFeedPage(bookmarks: rows(atSlots: slots, in: restrict), hasMore: hasMore, sort: sort)
    }

    /// The `limit` rows `plan` matches nearest above `cursor` in `sort`, in `sort`.
    func page(in restrict: Restrict, plan: QueryPlan, sortedBy sort: BookmarkSort, above cursor: BookmarkCursor, limit: Int?) -> BookmarkFeedPage {
        let (slots, hasMore) = nearest(plan: plan, sortedBy: sort, beyond: cursor.rank.flipped, above: true, limit: limit)
        return BookmarkFeedPage(bookmarks: rows(atSlots: slots.reversed(), in: restrict), hasMore: hasMore, sort: sort)
    }

    /// The slots of the first `limit` matches past `bound` (all when `limit` is `nil`), nearest
    /// first, and whether there are more: below `bound` in `sort` (largest rank first), or
    /// above it (`above`; then ranks and `bound` are flipped, so that again the largest comes
    /// first). Each row's place is read where it lies, and most rows are turned down by one
    /// comparison with the last kept before the rest of the row is tested.
    func nearest(plan: QueryPlan, sortedBy sort: BookmarkSort, beyond bound: SortRank?, above: Bool, limit: Int?) -> (slots: [Int32], hasMore: Bool) {
        if !above, let limit, plan.candidates == nil, let leaders = lists[plan.restrict.listIndex].leaders.leaders(of: sort),
           let found = first(limit + 1, of: leaders, below: bound, matching: plan) {
            return (Array(found.prefix(limit)), found.count > limit)
        }
        let readsRows = plan.readsRows
        // One row more than asked says whether there are more; kept largest rank first.
        let wanted = limit.map { $0 + 1 }
        var kept = BoundedSelection<(rank: SortRank, slot: Int32)>(limit: wanted) { $1.rank < $0.rank }
        plan.rows.withUnsafeBufferPointer { rows in
            plan.forEachAdmittedSlot { slot in
                // The row is read for its place, and for the rest of the filter only if it makes the cut.
                #if DEBUG
                QueryReads.current?.readRow()
                #endif
                let row = rows.baseAddress! + Int(slot)
                var rank = sort.rank(key: sort.key(of: row), serverOrder: row.pointee.serverOrder, illustID: row.pointee.illustID)
                if above { rank = rank.flipped }
                if let bound, !(rank < bound) { return }
                guard kept.wouldKeep((rank, slot)) else { return }
                if readsRows {
                    guard plan.matchesRow(row.pointee, slot: slot) else { return }
                }
                kept.offer((rank, slot))
            }
        }
        let sorted = kept.sorted()
        let count = limit.map { min($0, sorted.count) } ?? sorted.count
        return (sorted.prefix(count).map(\.slot), sorted.count > count)
    }

    /// The slots of the first `wanted` matches of `plan` below `bound`, from `leaders`: `nil`
    /// when the set holds fewer and rows outside it could be next. Reads the set from the
    /// bound down and stops once it has them.
    private func first(_ wanted: Int, of leaders: SortLeaders.Leaders, below bound: SortRank?, matching plan: QueryPlan) -> [Int32]? {
        var found: [Int32] = []
        let readsRows = plan.readsRows
        plan.rows.withUnsafeBufferPointer { rows in
            for entry in leaders.entries[leaders.start(below: bound)...] where plan.admits(entry.slot) {
                if readsRows {
                    #if DEBUG
                    QueryReads.current?.readRow()
                    #endif
                    guard plan.matchesRow(rows[Int(entry.slot)], slot: entry.slot) else { continue }
                }
                found.append(entry.slot)
                if found.count == wanted { return }
            }
        }
        return found.count == wanted || leaders.floor == nil ? found : nil
    }
}
