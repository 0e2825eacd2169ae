import Foundation

/// Everything the index keeps for one list: the rows, the tag histogram, the inverted
/// tag → rows index and the server order, all maintained on every write.
///
/// Works that vanished from Pixiv keep their rows and, when the index had seen them with their
/// content, that content: their last-known tags stay counted and indexed like any row's. Their
/// slots and their share of each tag's count are kept apart too (``vanishedSlots``,
/// ``vanishedTagCounts``), so that a query for visible or vanished works only, a histogram of
/// either, and their counts, cost no more than one over every row.
///
/// Rows are fixed-size records with no references: their strings live in one byte arena
/// (``text``) and their tags in one array of interned IDs (``tagRefs``), so a list of n rows is a
/// handful of flat arrays rather than n objects, and a checkpoint can write and read those
/// arrays whole. A replaced or removed row leaves garbage in the arenas; ``finishBatch()`` packs
/// them once the garbage outweighs what is live.
struct ListIndex: Sendable {
    /// Row storage by slot; a removed row's slot is reused by the next insert.
    private(set) var slots: [Row] = []
    private(set) var freeSlots: [Int32] = []
    private(set) var slotByIllust = SlotTable()
    /// The rows' strings, as UTF-8.
    private(set) var text: [UInt8] = []
    /// The rows' tags, interned.
    private(set) var tagRefs: [TagRefID] = []
    /// Bytes of ``text`` and entries of ``tagRefs`` no live row uses.
    private(set) var garbageText = 0
    private(set) var garbageTags = 0
    /// Bookmarks carrying each tag, by ``TagID``.
    private(set) var tagCounts: [Int32] = []
    /// Vanished bookmarks carrying each tag (by their last-known tags), by ``TagID``; at most
    /// ``tagCounts`` long. Derived from the rows, not stored in a checkpoint.
    private(set) var vanishedTagCounts: [Int32] = []
    /// The slots of the vanished rows, ascending. Derived from the rows, not stored in a checkpoint.
    private(set) var vanishedSlots = Postings()
    /// The inverted index: the slots of the rows carrying each tag, by ``TagID``.
    private(set) var postings: [Postings] = []
    /// Rows carrying each (name, translation) pair, by ``TagRefID``: which translation of a
    /// name the list's rows carry most.
    private(set) var refCounts: [Int32] = []
    private(set) var order = OrderList()
    /// The folded titles and artist names, for text queries; replaced by every batch.
    private(set) var textSearch = TextSearchCache()
    /// The rows' attributes and artists in narrow columns, for filters, facets and sorts.
    /// Derived from the rows, not stored in a checkpoint.
    private(set) var columns = FacetColumns()
    /// The rows that lead each sort; see ``SortLeaders``.
    private(set) var leaders = SortLeaders()
    /// Whether writes leave the tag index, the vanished rows' bookkeeping, the columns and the
    /// sort leaders to be derived once at the end (``deriveIndexes(nameOfRef:nameCount:)``):
    /// while a journal is read whole into an empty index.
    var defersIndexes = false

    var count: Int { slotByIllust.count }
    /// The illust IDs of the rows, in no particular order.
    var illustIDs: [Int] { slotByIllust.slots.map { slots[Int($0)].illustID } }
    /// Rows of works that vanished from Pixiv.
    var vanishedCount: Int { vanishedSlots.count }

    func row(illustID: Int) -> Row? {
        slotByIllust.slot(of: illustID, in: slots).map { slots[Int($0)] }
    }

    func row(at slot: Int32) -> Row? {
        #if DEBUG
        QueryReads.current?.readRow()
        #endif
        let row = slots[Int(slot)]
        return row.isLive ? row : nil
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

    func vanishedTagCount(of tag: TagID) -> Int {
        Int(tag) < vanishedTagCounts.count ? Int(vanishedTagCounts[Int(tag)]) : 0
    }

    func refCount(of ref: TagRefID) -> Int {
        Int(ref) < refCounts.count ? Int(refCounts[Int(ref)]) : 0
    }

    // MARK: Writing

    /// Inserts or replaces the row of `new.illustID`: `new` with its texts (`text`, the four end
    /// to end as ``Row/textRange`` reads them) and its tags (`tags`, interned), its kind coded as
    /// `typeCode`; `nameOfRef` maps the tags to the names that are counted and indexed. The
    /// row's ``Row/textStart``, ``Row/tagStart`` and ``Row/orderStamp`` are placed here.
    ///
    /// A placeholder (a row not visible and without ``Row/hasVanishedAt``) for a row with content
    /// keeps that content: only its order, when it was seen, its first-indexed date (the earlier
    /// one) and the reason are taken, and the first such placeholder records when the work
    /// vanished (its vanished date, else when it was seen). Anything else replaces the row; a
    /// visible work clears the vanished mark.
    mutating func upsert(_ new: Row, text strings: UnsafeBufferPointer<UInt8>, tags: ArraySlice<TagRefID>, typeCode: UInt8, nameOfRef: [TagID]) {
        var row = new
        if !row.isVisible, let slot = slotByIllust.slot(of: row.illustID, in: slots), slots[Int(slot)].hasContent {
            keepContent(of: slot, under: row, nameOfRef: nameOfRef)
            return
        }
        row.flags |= Row.isLiveFlag

        if let slot = slotByIllust.slot(of: row.illustID, in: slots) {
            let old = slots[Int(slot)]
            row.firstIndexedAt = min(old.firstIndexedAt, row.firstIndexedAt)
            // A full walk mostly sees a row again unchanged: keep its text, tags and order entry.
            if old.textLength == row.textLength && textEquals(at: old.textStart, strings) {
                row.textStart = old.textStart
            } else {
                garbageText += old.textLength
                row.textStart = appendText(strings)
            }
            row.orderStamp = old.serverOrder == row.serverOrder
                ? old.orderStamp
                : order.insert(order: row.serverOrder, slot: slot)
            let sameTags = tagRefs[old.tagRange].elementsEqual(tags)
            let vanishedAsBefore = !old.isVisible && !row.isVisible && sameTags
            if !old.isVisible && !vanishedAsBefore { noteVanished(tagRefs[old.tagRange], slot: slot, nameOfRef: nameOfRef, by: -1) }
            if sameTags {
                row.tagStart = old.tagStart
            } else {
                unindexTags(tagRefs[old.tagRange], slot: slot, nameOfRef: nameOfRef)
                garbageTags += Int(old.tagCount)
                row.tagStart = tagRefs.count
                tagRefs.append(contentsOf: tags)
                indexTags(tags, slot: slot, nameOfRef: nameOfRef)
            }
            if !row.isVisible && !vanishedAsBefore { noteVanished(tags, slot: slot, nameOfRef: nameOfRef, by: 1) }
            slots[Int(slot)] = row
            if !defersIndexes {
                leaders.replace(old, with: row, at: slot)
                columns.set(row, typeCode: typeCode, at: slot)
            }
            return
        }

        let slot: Int32
        if let reused = freeSlots.popLast() {
            slot = reused
        } else {
            slot = Int32(slots.count)
            slots.append(row)
        }
        row.textStart = appendText(strings)
        row.tagStart = tagRefs.count
        tagRefs.append(contentsOf: tags)
        row.orderStamp = order.insert(order: row.serverOrder, slot: slot)
        slots[Int(slot)] = row
        if !defersIndexes {
            leaders.replace(nil, with: row, at: slot)
            columns.set(row, typeCode: typeCode, at: slot)
        }
        let held = slotByIllust.insert(slot, in: slots)
        assert(held == nil, "the row is new: its illust had no slot")
        indexTags(tags, slot: slot, nameOfRef: nameOfRef)
        if !row.isVisible { noteVanished(tags, slot: slot, nameOfRef: nameOfRef, by: 1) }
    }

    /// A placeholder, `new`, for the row in `slot`, which has content: keeps the content, takes
    /// the rest from `new` (see ``upsert(_:text:tags:typeCode:nameOfRef:)``).
    private mutating func keepContent(of slot: Int32, under new: Row, nameOfRef: [TagID]) {
        let old = slots[Int(slot)]
        var row = old
        row.serverOrder = new.serverOrder
        row.firstIndexedAt = min(old.firstIndexedAt, new.firstIndexedAt)
        row.lastSeenAt = new.lastSeenAt
        row.vanishReason = new.vanishReason
        if !old.hasVanishedAt {
            row.vanishedAt = new.hasVanishedAt ? new.vanishedAt : new.lastSeenAt
            row.flags |= Row.hasVanishedAtFlag
        }
        if old.serverOrder != row.serverOrder { row.orderStamp = order.insert(order: row.serverOrder, slot: slot) }
        if old.isVisible { noteVanished(tagRefs[old.tagRange], slot: slot, nameOfRef: nameOfRef, by: 1) }
        slots[Int(slot)] = row
        if !defersIndexes {
            leaders.replace(old, with: row, at: slot)
            columns.update(row, at: slot)
        }
    }

    mutating func remove(illustID: Int, nameOfRef: [TagID]) {
        guard let slot = slotByIllust.remove(illustID, in: slots) else { return }
        let old = slots[Int(slot)]
        if !old.isVisible { noteVanished(tagRefs[old.tagRange], slot: slot, nameOfRef: nameOfRef, by: -1) }
        unindexTags(tagRefs[old.tagRange], slot: slot, nameOfRef: nameOfRef)
        garbageText += old.textLength
        garbageTags += Int(old.tagCount)
        slots[Int(slot)].flags = 0
        if !defersIndexes {
            leaders.replace(old, with: nil, at: slot)
            columns.clear(slot)
        }
        freeSlots.append(slot)
    }

    mutating func removeAll() {
        let defers = defersIndexes
        self = ListIndex(leaderCapacity: leaders.capacity)
        defersIndexes = defers
    }

    /// An empty list; its sort leader sets are chosen with `leaderCapacity` rows.
    init(leaderCapacity: Int = 256) {
        leaders = SortLeaders(capacity: leaderCapacity)
    }

    /// The list of `parts` and what is derived from them, as they are: what
    /// ``init(parts:rows:tagIndex:leaders:)`` builds once it has checked them.
    /// `typesFilled`: the columns already hold each row's kind.
    init(assembling parts: Parts, rows: IndexedRows, tagIndex: TagIndex, leaders: SortLeaders, typesFilled: Bool = false) {
        self.slots = parts.slots
        self.freeSlots = parts.freeSlots
        self.slotByIllust = rows.slotByIllust
        self.text = parts.text
        self.tagRefs = parts.tagRefs
        self.garbageText = parts.garbageText
        self.garbageTags = parts.garbageTags
        self.tagCounts = parts.tagCounts
        self.vanishedTagCounts = tagIndex.vanishedTagCounts
        self.vanishedSlots = rows.vanishedSlots
        self.postings = tagIndex.postings
        self.refCounts = tagIndex.refCounts
        self.order = OrderList(newestFirst: parts.order, nextStamp: parts.nextStamp)
        self.columns = rows.columns
        self.leaders = leaders
        if !typesFilled { columns.fillTypes(of: self) }
    }

    /// Restores the order list's invariants after a batch of writes, and packs the arenas once
    /// they are mostly garbage.
    mutating func finishBatch() {
        textSearch = TextSearchCache()
        let slots = self.slots
        order.normalize(liveCount: count) { entry in
            let row = slots[Int(entry.slot)]
            return row.isLive && row.orderStamp == entry.stamp
        } tieBreak: { entry in
            slots[Int(entry.slot)].illustID
        }
        if !defersIndexes { leaders.refresh(rows: slots) }
        if garbageText > 4096 && garbageText > text.count / 2 { packText() }
        if garbageTags > 1024 && garbageTags > tagRefs.count / 2 { packTags() }
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
            let row = slots[Int(entry.slot)]
            guard row.isLive, row.orderStamp == entry.stamp else { return true }
            return body(row, entry.slot)
        }
    }

    /// The newest and oldest ``IndexedBookmark/serverOrder`` in the list.
    var orderBounds: (newest: Int64, oldest: Int64)? {
        var newest: Int64?
        forEachNewestFirst { row, _ in newest = row.serverOrder; return false }
        guard let newest else { return nil }
        var oldest = newest
        order.forEachOldestFirst { entry in
            let row = slots[Int(entry.slot)]
            guard row.isLive, row.orderStamp == entry.stamp else { return true }
            oldest = row.serverOrder
            return false
        }
        return (newest, oldest)
    }

    /// Calls `body` with each distinct name among `tags`.
    static func forEachName(_ tags: ArraySlice<TagRefID>, nameOfRef: [TagID], _ body: (TagID) -> Void) {
        for index in tags.indices {
            let name = nameOfRef[Int(tags[index])]
            // Rows have a handful of tags: a linear check beats building a set.
            if tags[..<index].contains(where: { nameOfRef[Int($0)] == name }) { continue }
            body(name)
        }
    }

    // MARK: Private

    private mutating func indexTags(_ tags: ArraySlice<TagRefID>, slot: Int32, nameOfRef: [TagID]) {
        if defersIndexes { return }
        for ref in tags {
            if Int(ref) >= refCounts.count {
                refCounts.append(contentsOf: repeatElement(0, count: Int(ref) + 1 - refCounts.count))
            }
            refCounts[Int(ref)] += 1
        }
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

    /// Counts the vanished row in `slot`, carrying `tags`, in (`by` 1) or out (`by` -1) of the
    /// vanished rows' bookkeeping.
    private mutating func noteVanished(_ tags: ArraySlice<TagRefID>, slot: Int32, nameOfRef: [TagID], by change: Int32) {
        if defersIndexes { return }
        if change > 0 { vanishedSlots.insert(slot) } else { vanishedSlots.remove(slot) }
        Self.forEachName(tags, nameOfRef: nameOfRef) { tag in
            let index = Int(tag)
            if index >= vanishedTagCounts.count {
                vanishedTagCounts.append(contentsOf: repeatElement(0, count: index + 1 - vanishedTagCounts.count))
            }
            vanishedTagCounts[index] += change
        }
    }

    private mutating func unindexTags(_ tags: ArraySlice<TagRefID>, slot: Int32, nameOfRef: [TagID]) {
        if defersIndexes { return }
        for ref in tags { refCounts[Int(ref)] -= 1 }
        Self.forEachName(tags, nameOfRef: nameOfRef) { tag in
            tagCounts[Int(tag)] -= 1
            postings[Int(tag)].remove(slot)
        }
    }

    private mutating func appendText(_ strings: UnsafeBufferPointer<UInt8>) -> Int {
        let start = text.count
        text.append(contentsOf: strings)
        return start
    }

    private func textEquals(at start: Int, _ strings: UnsafeBufferPointer<UInt8>) -> Bool {
        strings.isEmpty || text.withUnsafeBufferPointer { text in
            memcmp(text.baseAddress! + start, strings.baseAddress!, strings.count) == 0
        }
    }

    private mutating func packText() {
        var packed: [UInt8] = []
        packed.reserveCapacity(text.count - garbageText)
        for slot in slots.indices where slots[slot].isLive {
            let start = slots[slot].textStart
            slots[slot].textStart = packed.count
            packed.append(contentsOf: text[start..<start + slots[slot].textLength])
        }
        text = packed
        garbageText = 0
    }

    private mutating func packTags() {
        var packed: [TagRefID] = []
        packed.reserveCapacity(tagRefs.count - garbageTags)
        for slot in slots.indices where slots[slot].isLive {
            let range = slots[slot].tagRange
            slots[slot].tagStart = packed.count
            packed.append(contentsOf: tagRefs[range])
        }
        tagRefs = packed
        garbageTags = 0
    }
}
