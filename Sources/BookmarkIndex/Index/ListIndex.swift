/// Everything the index keeps for one list: the rows, the tag histogram, the inverted
/// tag → rows index and the server order, all maintained on every write.
struct ListIndex: Sendable {
    struct Row: Sendable {
        /// The bookmark without its tags (they are in ``tags``), so rows share tag storage.
        var bookmark: IndexedBookmark
        /// The row's tags in Pixiv's order, interned.
        var tags: [TagRefID]
        /// The stamp of the row's live entry in ``OrderList``.
        var orderStamp: UInt32
    }

    /// Row storage; a removed row leaves a hole that the next insert reuses.
    private(set) var slots: [Row?] = []
    private var freeSlots: [Int32] = []
    private(set) var slotByIllust: [Int: Int32] = [:]
    /// Bookmarks carrying each tag, by ``TagID``.
    private(set) var tagCounts: [Int32] = []
    /// The inverted index: the slots of the rows carrying each tag, by ``TagID``.
    private(set) var postings: [Postings] = []
    private(set) var order = OrderList()

    var count: Int { slotByIllust.count }

    func row(illustID: Int) -> Row? {
        slotByIllust[illustID].flatMap { slots[Int($0)] }
    }

    func row(at slot: Int32) -> Row? {
        #if DEBUG
        QueryReads.current?.readRow()
        #endif
        return slots[Int(slot)]
    }

    func postings(of tag: TagID) -> Postings {
        #if DEBUG
        QueryReads.current?.readPostings(of: tag)
        #endif
        return Int(tag) < postings.count ? postings[Int(tag)] : Postings()
    }

    func tagCount(of tag: TagID) -> Int {
        Int(tag) < tagCounts.count ? Int(tagCounts[Int(tag)]) : 0
    }

    /// Inserts or replaces the row of `bookmark.illust.id`, whose tags are interned as `tags`;
    /// `nameOfRef` maps them to the names that are counted and indexed.
    mutating func upsert(_ bookmark: IndexedBookmark, tags: [TagRefID], nameOfRef: [TagID]) {
        var bookmark = bookmark
        bookmark.illust.tags = []
        let slot: Int32
        var stamp: UInt32?
        if let existing = slotByIllust[bookmark.illust.id], let old = slots[Int(existing)] {
            slot = existing
            bookmark.firstIndexedAt = min(old.bookmark.firstIndexedAt, bookmark.firstIndexedAt)
            if old.bookmark.serverOrder == bookmark.serverOrder { stamp = old.orderStamp }
            if old.tags == tags {
                // The common case of a full walk: the same tags again, nothing to re-index.
                let orderStamp = stamp ?? order.insert(order: bookmark.serverOrder, slot: slot)
                slots[Int(slot)] = Row(bookmark: bookmark, tags: tags, orderStamp: orderStamp)
                return
            }
            unindexTags(old.tags, slot: slot, nameOfRef: nameOfRef)
        } else if let reused = freeSlots.popLast() {
            slot = reused
        } else {
            slot = Int32(slots.count)
            slots.append(nil)
        }
        let orderStamp = stamp ?? order.insert(order: bookmark.serverOrder, slot: slot)
        slots[Int(slot)] = Row(bookmark: bookmark, tags: tags, orderStamp: orderStamp)
        slotByIllust[bookmark.illust.id] = slot
        indexTags(tags, slot: slot, nameOfRef: nameOfRef)
    }

    mutating func remove(illustID: Int, nameOfRef: [TagID]) {
        guard let slot = slotByIllust.removeValue(forKey: illustID), let old = slots[Int(slot)] else { return }
        unindexTags(old.tags, slot: slot, nameOfRef: nameOfRef)
        slots[Int(slot)] = nil
        freeSlots.append(slot)
    }

    mutating func removeAll() {
        self = ListIndex()
    }

    /// Restores the order list's invariants after a batch of writes.
    mutating func finishBatch() {
        let slots = self.slots
        order.normalize(liveCount: count) { entry in
            slots[Int(entry.slot)]?.orderStamp == entry.stamp
        } tieBreak: { entry in
            slots[Int(entry.slot)]?.bookmark.illust.id ?? 0
        }
    }

    /// Calls `body` with each row, newest first, until it returns `false`.
    func forEachNewestFirst(_ body: (Row, Int32) -> Bool) {
        #if DEBUG
        let reads = QueryReads.current
        #endif
        order.forEachNewestFirst { entry in
            #if DEBUG
            reads?.readRow()
            #endif
            guard let row = slots[Int(entry.slot)], row.orderStamp == entry.stamp else { return true }
            return body(row, entry.slot)
        }
    }

    /// The newest and oldest ``IndexedBookmark/serverOrder`` in the list.
    var orderBounds: (newest: Int64, oldest: Int64)? {
        var newest: Int64?
        forEachNewestFirst { row, _ in newest = row.bookmark.serverOrder; return false }
        guard let newest else { return nil }
        var oldest = newest
        order.forEachOldestFirst { entry in
            guard let row = slots[Int(entry.slot)], row.orderStamp == entry.stamp else { return true }
            oldest = row.bookmark.serverOrder
            return false
        }
        return (newest, oldest)
    }

    /// Calls `body` with each distinct name among `tags`.
    static func forEachName(_ tags: [TagRefID], nameOfRef: [TagID], _ body: (TagID) -> Void) {
        for (index, ref) in tags.enumerated() {
            let name = nameOfRef[Int(ref)]
            // Rows have a handful of tags: a linear check beats building a set.
            if tags[..<index].contains(where: { nameOfRef[Int($0)] == name }) { continue }
            body(name)
        }
    }

    private mutating func indexTags(_ tags: [TagRefID], slot: Int32, nameOfRef: [TagID]) {
        Self.forEachName(tags, nameOfRef: nameOfRef) { tag in
            let index = Int(tag)
            if index >= tagCounts.count {
                tagCounts.append(contentsOf: repeatElement(0, count: index + 1 - tagCounts.count))
                postings.append(contentsOf: repeatElement(Postings(), count: index + 1 - postings.count))
            }
            tagCounts[index] += 1
            postings[index].insert(slot)
        }
    }

    private mutating func unindexTags(_ tags: [TagRefID], slot: Int32, nameOfRef: [TagID]) {
        Self.forEachName(tags, nameOfRef: nameOfRef) { tag in
            tagCounts[Int(tag)] -= 1
            postings[Int(tag)].remove(slot)
        }
    }
}
