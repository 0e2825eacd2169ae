/// The rows of one list in server order, newest first, maintained incrementally.
///
/// Writers mostly add rows at the two ends: a delta sync or an in-app bookmark above the newest
/// row, a full walk below the oldest. Both are O(1) amortized here (two arrays growing away from
/// each other). A row added anywhere else marks the list unsorted, and the next read sorts it
/// once. Removed and moved rows leave stale entries behind, recognised by their stamp and swept
/// out when they outnumber the live ones. Rows with equal orders are ranked by illust ID.
struct OrderList: Sendable {
    struct Entry: Sendable, BitwiseCopyable {
        var order: Int64
        var slot: Int32
        var stamp: UInt32
    }

    /// Entries above the original ones, oldest to newest: `newer.last` is the newest row.
    private var newer: [Entry] = []
    /// Entries at and below the original ones, newest to oldest: `older.last` is the oldest row.
    private var older: [Entry] = []
    private var highest: Int64?
    private var lowest: Int64?
    private var isSorted = true
    private var nextStamp: UInt32 = 0

    var entryCount: Int { newer.count + older.count }

    /// The heap bytes of the entries' buffers, room to grow included. O(1).
    var residentBytes: Int { ResidentBytes.of(newer) + ResidentBytes.of(older) }

    /// Records a row placed at `order`; returns the stamp the row must keep to stay listed.
    mutating func insert(order: Int64, slot: Int32) -> UInt32 {
        let stamp = nextStamp
        nextStamp &+= 1
        let entry = Entry(order: order, slot: slot, stamp: stamp)
        if let highest, order <= highest {
            if let lowest, order < lowest {
                older.append(entry)
                self.lowest = order
            } else {
                newer.append(entry)
                isSorted = false
            }
        } else {
            newer.append(entry)
            highest = order
            if lowest == nil { lowest = order }
        }
        return stamp
    }

    /// Puts the entries back in order and drops the stale ones, if needed.
    ///
    /// `isLive` says whether an entry still stands for its row. Call before reading once writes
    /// may have unsorted the list, or when stale entries dominate (`liveCount` is the row count).
    /// Rows with equal orders are ranked by `tieBreak` (larger first), so the order of a list
    /// never depends on the history of writes that built it.
    mutating func normalize(liveCount: Int, isLive: (Entry) -> Bool, tieBreak: (Entry) -> Int) {
        let tooManyStale = entryCount > 2 * liveCount + 1024
        guard !isSorted || tooManyStale else { return }
        var all: [Entry] = []
        all.reserveCapacity(liveCount)
        for entry in newer.reversed() where isLive(entry) { all.append(entry) }
        for entry in older where isLive(entry) { all.append(entry) }
        if !isSorted {
            all.sort { $0.order != $1.order ? $0.order > $1.order : tieBreak($0) > tieBreak($1) }
        }
        older = all
        newer = []
        highest = all.first?.order
        lowest = all.last?.order
        isSorted = true
    }

    /// Whether the entries are in order, as every read requires.
    var isSortedForReading: Bool { isSorted }

    /// The entry at `index` of the list read newest first. O(1).
    func entry(newestFirst index: Int) -> Entry {
        index < newer.count ? newer[newer.count - 1 - index] : older[index - newer.count]
    }

    /// Every entry, newest first, live or stale. Only meaningful when sorted.
    @inline(__always)
    func forEachNewestFirst(_ body: (Entry) -> Bool) {
        precondition(isSorted, "OrderList read while unsorted")
        newer.withUnsafeBufferPointer { newer in
            older.withUnsafeBufferPointer { older in
                for entry in newer.reversed() { if !body(entry) { return } }
                for entry in older { if !body(entry) { return } }
            }
        }
    }

    /// Every entry, oldest first, live or stale. Only meaningful when sorted.
    func forEachOldestFirst(_ body: (Entry) -> Bool) {
        precondition(isSorted, "OrderList read while unsorted")
        for entry in older.reversed() { if !body(entry) { return } }
        for entry in newer { if !body(entry) { return } }
    }
}

extension OrderList {
    /// The stamp the next insert hands out.
    var stampCounter: UInt32 { nextStamp }

    /// An order list holding `entries`, which are sorted newest first (as
    /// ``forEachNewestFirst(_:)`` gives them); what a checkpoint restores.
    init(newestFirst entries: [Entry], nextStamp: UInt32) {
        self.init()
        older = entries
        highest = entries.first?.order
        lowest = entries.last?.order
        self.nextStamp = nextStamp
    }
}
