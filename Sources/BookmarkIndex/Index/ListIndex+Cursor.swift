extension ListIndex.Row {
    /// The row's place in its list.
    var cursor: BookmarkCursor { BookmarkCursor(serverOrder: serverOrder, illustID: illustID) }
}

extension ListIndex {
    /// Calls `body` with each row below `cursor` (every row when it is `nil`), newest first,
    /// until it returns `false`. O(log n) to find the first one, then as
    /// ``forEachNewestFirst(_:)``.
    func forEachNewestFirst(after cursor: BookmarkCursor?, _ body: (Row, Int32) -> Bool) {
        guard let cursor else { return forEachNewestFirst(body) }
        #if DEBUG
        let reads = QueryReads.current
        #endif
        order.forEachNewestFirst(fromOrderAtMost: cursor.serverOrder) { entry in
            #if DEBUG
            reads?.readRow()
            #endif
            let row = slots[Int(entry.slot)]
            // Rows of the cursor's own order that rank above it are passed over.
            guard row.isLive, row.orderStamp == entry.stamp, cursor.precedes(row.cursor) else { return true }
            return body(row, entry.slot)
        }
    }

    /// Calls `body` with each row above `cursor`, oldest first (nearest the cursor first),
    /// until it returns `false`. O(log n) to find the first one, then one step a row.
    func forEachOldestFirst(before cursor: BookmarkCursor, _ body: (Row, Int32) -> Bool) {
        #if DEBUG
        let reads = QueryReads.current
        #endif
        order.forEachOldestFirst(fromOrderAtLeast: cursor.serverOrder) { entry in
            #if DEBUG
            reads?.readRow()
            #endif
            let row = slots[Int(entry.slot)]
            guard row.isLive, row.orderStamp == entry.stamp, row.cursor.precedes(cursor) else { return true }
            return body(row, entry.slot)
        }
    }
}
