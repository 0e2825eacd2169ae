extension ListIndex.Row {
    /// The row's place in its list.
    var cursor: BookmarkCursor { BookmarkCursor(serverOrder: serverOrder, illustID: illustID) }
}

extension ListIndex {
    /// Calls `body` with each row below `cursor` (every row when it is `nil`) whose slot
    /// `admits` (checked before the row is read), newest first, until it returns `false`, or
    /// until `budget` entries were read; returns `false` in that last case. O(log n) to find the
    /// first one, then one step an entry.
    ///
    /// Inlined, with `admits` and `body`, so that a step of the walk is not three calls.
    @discardableResult @inline(__always)
    func forEachNewestFirst(
        after cursor: BookmarkCursor?, admitting admits: (Int32) -> Bool, budget: Int = .max, _ body: (Row, Int32) -> Bool
    ) -> Bool {
        #if DEBUG
        let reads = QueryReads.current
        #endif
        var entriesLeft = budget
        @inline(__always) func visit(_ entry: OrderList.Entry) -> Bool {
            entriesLeft -= 1
            guard entriesLeft >= 0 else { return false }
            guard admits(entry.slot) else { return true }
            #if DEBUG
            reads?.readRow()
            #endif
            let row = slots[Int(entry.slot)]
            // Rows of the cursor's own order that rank above it are passed over.
            guard row.isLive, row.orderStamp == entry.stamp, cursor.map({ $0.precedes(row.cursor) }) ?? true else { return true }
            return body(row, entry.slot)
        }
        if let cursor {
            order.forEachNewestFirst(fromOrderAtMost: cursor.serverOrder, visit)
        } else {
            order.forEachNewestFirst(visit)
        }
        return entriesLeft >= 0
    }

    /// Calls `body` with each row above `cursor` whose slot `admits`, oldest first (nearest the
    /// cursor first), until it returns `false`. O(log n) to find the first one, then one step an
    /// entry.
    func forEachOldestFirst(before cursor: BookmarkCursor, admitting admits: (Int32) -> Bool, _ body: (Row, Int32) -> Bool) {
        #if DEBUG
        let reads = QueryReads.current
        #endif
        order.forEachOldestFirst(fromOrderAtLeast: cursor.serverOrder) { entry in
            guard admits(entry.slot) else { return true }
            #if DEBUG
            reads?.readRow()
            #endif
            let row = slots[Int(entry.slot)]
            guard row.isLive, row.orderStamp == entry.stamp, row.cursor.precedes(cursor) else { return true }
            return body(row, entry.slot)
        }
    }
}
