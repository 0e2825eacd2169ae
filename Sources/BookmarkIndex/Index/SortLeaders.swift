/// The rows that lead each sort other than bookmark order, kept so that the first pages of a
/// sorted feed read a few dozen rows rather than the whole list.
///
/// For each sort (four keys, both directions) a set holds exactly the live rows whose rank is
/// at or above its floor, highest first: the ``capacity`` highest when the set was last chosen
/// from the whole list, and since then each row a write brought above the floor, less each a
/// write took below it. A query walks a set from the top (or from its cursor); when it finds
/// there all the rows it wants, they are the answer, since every row outside ranks below the
/// floor. Otherwise (a filter few leaders pass, a page deep in the list) it scans the list.
///
/// Writes keep the sets exact at O(log c) a sort, and O(c) when a row enters or leaves one, for
/// c the capacity. A set writes grow to four times the capacity keeps its top ``capacity`` and
/// raises its floor; one they shrink below a quarter of it is chosen again from the whole list
/// at the end of the batch (``refresh(rows:)``), and read by no query until then. Derived from
/// the rows, never stored: a checkpoint's list chooses its sets as it is read, O(n) a sort.
struct SortLeaders: Sendable {
    struct Entry: Sendable {
        var rank: SortRank
        var slot: Int32
    }

    /// One sort's leaders.
    struct Leaders: Sendable {
        /// The lowest rank the set holds every row at or above; `nil` when it holds every row.
        fileprivate(set) var floor: SortRank?
        /// The rows at or above ``floor``, highest rank first.
        fileprivate(set) var entries: [Entry] = []
        /// Writes shrank the set below a quarter of the capacity: it is chosen again at the end
        /// of the batch, and no query reads it until then.
        fileprivate(set) var isStale = false

        /// The index of the first entry ranked below `bound`, or 0 for no bound. O(log c).
        func start(below bound: SortRank?) -> Int {
            guard let bound else { return 0 }
            var low = 0, high = entries.count
            while low < high {
                let mid = (low + high) / 2
                if bound < entries[mid].rank || bound == entries[mid].rank { low = mid + 1 } else { high = mid }
            }
            return low
        }
    }

    /// The sorts with leaders, in the order of ``sets``.
    static let sorts: [BookmarkSort] = BookmarkSort.Key.allCases.filter { $0 != .bookmarkOrder }.flatMap { key in
        BookmarkSort.Direction.allCases.map { BookmarkSort(key, $0) }
    }

    /// How many rows a set is chosen with.
    let capacity: Int
    private var sets: [Leaders]

    /// The leaders of an empty list: every set holds every row (none).
    init(capacity: Int = 256) {
        precondition(capacity >= 4, "a leader set needs room for a few rows")
        self.capacity = capacity
        sets = Array(repeating: Leaders(), count: Self.sorts.count)
    }

    /// The leaders of `rows` (a list's slots; rows not live are skipped), each set chosen.
    /// O(n) a sort, most rows turned down by one comparison.
    init(rows: [ListIndex.Row], capacity: Int = 256) {
        self.init(capacity: capacity)
        for index in sets.indices { sets[index] = choose(Self.sorts[index], from: rows) }
    }

    /// The leaders of `sort`, or `nil` for bookmark order and for a set being chosen again.
    func leaders(of sort: BookmarkSort) -> Leaders? {
        guard let index = Self.sorts.firstIndex(of: sort), !sets[index].isStale else { return nil }
        return sets[index]
    }

    /// Records that the row in `slot` went from `old` to `new` (`nil`: no live row).
    mutating func replace(_ old: ListIndex.Row?, with new: ListIndex.Row?, at slot: Int32) {
        for index in sets.indices where !sets[index].isStale {
            let sort = Self.sorts[index]
            let oldRank = old.map { Self.rank(of: $0, in: sort) }
            let newRank = new.map { Self.rank(of: $0, in: sort) }
            if oldRank == newRank { continue }
            if let oldRank, sets[index].holds(oldRank) { sets[index].remove(oldRank) }
            if let newRank, sets[index].holds(newRank) { sets[index].insert(Entry(rank: newRank, slot: slot)) }
            let count = sets[index].entries.count
            if count > capacity * 4 {
                sets[index].floor = sets[index].entries[capacity - 1].rank
                sets[index].entries.removeSubrange(capacity...)
            } else if count < capacity / 4, sets[index].floor != nil {
                sets[index].isStale = true
                sets[index].entries = []
            }
        }
    }

    /// Chooses again, from `rows`, each set writes shrank: what a batch ends with.
    mutating func refresh(rows: [ListIndex.Row]) {
        for index in sets.indices where sets[index].isStale {
            sets[index] = choose(Self.sorts[index], from: rows)
        }
    }

    /// The ``capacity`` highest live rows of `rows` in `sort`, or all of them when they are no
    /// more than that. O(n log c) at worst; most rows are turned down by one comparison.
    private func choose(_ sort: BookmarkSort, from rows: [ListIndex.Row]) -> Leaders {
        var kept = BoundedSelection<Entry>(limit: capacity) { $1.rank < $0.rank }
        var live = 0
        for (slot, row) in rows.enumerated() where row.isLive {
            live += 1
            let entry = Entry(rank: Self.rank(of: row, in: sort), slot: Int32(slot))
            kept.offer(entry)
        }
        let entries = kept.sorted()
        return Leaders(floor: live > capacity ? entries.last?.rank : nil, entries: entries)
    }

    /// `row`'s rank in `sort`.
    static func rank(of row: ListIndex.Row, in sort: BookmarkSort) -> SortRank {
        withUnsafePointer(to: row) { sort.rank(key: sort.key(of: $0), serverOrder: $0.pointee.serverOrder, illustID: $0.pointee.illustID) }
    }

    /// The heap bytes of the sets, room to grow included. O(1) a sort.
    var residentBytes: Int {
        ResidentBytes.of(sets) + sets.reduce(0) { $0 + ResidentBytes.of($1.entries) }
    }
}

extension SortLeaders.Leaders {
    /// Whether a row of `rank` belongs in the set.
    fileprivate func holds(_ rank: SortRank) -> Bool {
        floor.map { !(rank < $0) } ?? true
    }

    fileprivate mutating func insert(_ entry: SortLeaders.Entry) {
        entries.insert(entry, at: start(below: entry.rank))
    }

    fileprivate mutating func remove(_ rank: SortRank) {
        // The entries before `start(below:)` rank at or above it; the last of them is its own.
        let index = start(below: rank) - 1
        precondition(index >= 0 && entries[index].rank == rank, "a leader set lost a row it holds")
        entries.remove(at: index)
    }
}
