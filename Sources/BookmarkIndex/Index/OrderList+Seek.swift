extension OrderList {
    /// Every entry from the first (newest first) whose order is at most `order`, newest first,
    /// live or stale, until `body` returns `false`. Only meaningful when sorted.
    ///
    /// O(log n) to find where to begin: the entries' orders never increase along the list,
    /// stale ones included (an entry keeps the order it was placed at, and a list is only read
    /// sorted).
    func forEachNewestFirst(fromOrderAtMost order: Int64, _ body: (Entry) -> Bool) {
        precondition(isSortedForReading, "OrderList read while unsorted")
        var index = firstNewestFirstIndex { $0 <= order }
        while index < entryCount {
            if !body(entry(newestFirst: index)) { return }
            index += 1
        }
    }

    /// Every entry from the last (newest first) whose order is at least `order`, oldest first,
    /// live or stale, until `body` returns `false`. O(log n) to find where to begin.
    func forEachOldestFirst(fromOrderAtLeast order: Int64, _ body: (Entry) -> Bool) {
        precondition(isSortedForReading, "OrderList read while unsorted")
        var index = firstNewestFirstIndex { $0 < order } - 1
        while index >= 0 {
            if !body(entry(newestFirst: index)) { return }
            index -= 1
        }
    }

    /// The first position, newest first, whose entry's order satisfies `isBelowOrAt` (which
    /// holds from some position to the end), or ``entryCount``.
    private func firstNewestFirstIndex(where isBelowOrAt: (Int64) -> Bool) -> Int {
        var low = 0, high = entryCount
        while low < high {
            let mid = (low + high) / 2
            if isBelowOrAt(entry(newestFirst: mid).order) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
