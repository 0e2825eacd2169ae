import Foundation

/// Everything the index keeps for one list: the rows, the tag histogram, the inverted
/// tag → rows index and the server order, all maintained on every write.
///
/// Rows are fixed-size records with no references: their strings live in one byte arena
/// (``text``) and their tags in one array of interned IDs (``tagRefs``), so a list of n rows is a
/// handful of flat arrays rather than n objects, and an index snapshot can write and read those
/// arrays whole. A replaced or removed row leaves garbage in the arenas; ``finishBatch()`` packs
/// them once the garbage outweighs what is live.
struct ListIndex: Sendable {
    /// One bookmark's fields, with its strings and tags as ranges of the list's arenas.
    ///
    /// An index snapshot writes rows as raw memory: the fields are laid out with no implicit
    /// padding (so no stray bytes reach the disk), and every field must be listed in
    /// ``layoutFingerprint``, which a snapshot records so a build with another layout ignores it.
    struct Row: Sendable, BitwiseCopyable {
        var illustID: Int
        var serverOrder: Int64
        var firstIndexedAt: Double
        var lastSeenAt: Double
        var createDate: Double
        var artistID: Int
        var totalBookmarks: Int
        var pageCount: Int
        var width: Int
        var height: Int
        var xRestrict: Int
        var aiType: Int
        /// Where the title, artist name, thumbnail URL and type are, in that order, in ``text``.
        var textStart: Int
        /// Where the row's tags are in ``tagRefs``, in Pixiv's order.
        var tagStart: Int
        var titleLength: UInt32
        var artistNameLength: UInt32
        var thumbnailLength: UInt32
        var typeLength: UInt32
        var tagCount: UInt32
        /// The stamp of the row's live entry in ``OrderList``.
        var orderStamp: UInt32
        var flags: UInt8
        var padding8: UInt8 = 0
        var padding16: UInt16 = 0
        var padding32: UInt32 = 0

        static let isLiveFlag: UInt8 = 1
        static let isVisibleFlag: UInt8 = 2
        static let hasThumbnailFlag: UInt8 = 4

        var isLive: Bool { flags & Self.isLiveFlag != 0 }
        var isVisible: Bool { flags & Self.isVisibleFlag != 0 }
        var hasThumbnail: Bool { flags & Self.hasThumbnailFlag != 0 }
        var textLength: Int { Int(titleLength) + Int(artistNameLength) + Int(thumbnailLength) + Int(typeLength) }
        var tagRange: Range<Int> { tagStart..<tagStart + Int(tagCount) }

        /// Each field's offset and size, and the row's size and stride, hashed: equal only for
        /// builds that lay rows out alike.
        static let layoutFingerprint: UInt64 = {
            func field<Value>(_ path: KeyPath<Row, Value>) -> [Int] {
                [MemoryLayout<Row>.offset(of: path) ?? -1, MemoryLayout<Value>.size]
            }
            let fields: [[Int]] = [
                field(\.illustID), field(\.serverOrder), field(\.firstIndexedAt), field(\.lastSeenAt),
                field(\.createDate), field(\.artistID), field(\.totalBookmarks), field(\.pageCount),
                field(\.width), field(\.height), field(\.xRestrict), field(\.aiType), field(\.textStart),
                field(\.tagStart), field(\.titleLength), field(\.artistNameLength), field(\.thumbnailLength),
                field(\.typeLength), field(\.tagCount), field(\.orderStamp), field(\.flags),
                [MemoryLayout<Row>.size, MemoryLayout<Row>.stride],
                [MemoryLayout<OrderList.Entry>.offset(of: \.order) ?? -1, MemoryLayout<OrderList.Entry>.offset(of: \.slot) ?? -1,
                 MemoryLayout<OrderList.Entry>.offset(of: \.stamp) ?? -1, MemoryLayout<OrderList.Entry>.stride],
            ]
            return fields.joined().map(Int64.init).withUnsafeBytes { XXH64.hash($0) }
        }()
    }

    /// Row storage by slot; a removed row's slot is reused by the next insert.
    private(set) var slots: [Row] = []
    private(set) var freeSlots: [Int32] = []
    private(set) var slotByIllust: [Int: Int32] = [:]
    /// The rows' strings, as UTF-8.
    private(set) var text: [UInt8] = []
    /// The rows' tags, interned.
    private(set) var tagRefs: [TagRefID] = []
    /// Bytes of ``text`` and entries of ``tagRefs`` no live row uses.
    private(set) var garbageText = 0
    private(set) var garbageTags = 0
    /// Bookmarks carrying each tag, by ``TagID``.
    private(set) var tagCounts: [Int32] = []
    /// The inverted index: the slots of the rows carrying each tag, by ``TagID``.
    private(set) var postings: [Postings] = []
    /// Rows carrying each (name, translation) pair, by ``TagRefID``: which translation of a
    /// name the list's rows carry most.
    private(set) var refCounts: [Int32] = []
    private(set) var order = OrderList()

    var count: Int { slotByIllust.count }

    func row(illustID: Int) -> Row? {
        slotByIllust[illustID].map { slots[Int($0)] }
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

    func refCount(of ref: TagRefID) -> Int {
        Int(ref) < refCounts.count ? Int(refCounts[Int(ref)]) : 0
    }

    // MARK: Reading a row's fields

    func tags(of row: Row) -> ArraySlice<TagRefID> {
        tagRefs[row.tagRange]
    }

    func title(of row: Row) -> String {
        string(at: row.textStart, length: row.titleLength)
    }

    func artistName(of row: Row) -> String {
        string(at: row.textStart + Int(row.titleLength), length: row.artistNameLength)
    }

    /// The row as a caller sees it, with `tags` (the table's refs) put back.
    func bookmark(_ row: Row, restrict: Restrict, tags refs: [TagRef]) -> IndexedBookmark {
        var offset = row.textStart + Int(row.titleLength) + Int(row.artistNameLength)
        let thumbnail = row.hasThumbnail ? string(at: offset, length: row.thumbnailLength) : nil
        offset += Int(row.thumbnailLength)
        let illust = BookmarkedIllustSnapshot(
            id: row.illustID,
            title: title(of: row),
            type: IllustType(rawValue: string(at: offset, length: row.typeLength)),
            artistID: row.artistID,
            artistName: artistName(of: row),
            tags: tagRefs[row.tagRange].map { refs[Int($0)] },
            thumbnailURL: thumbnail,
            pageCount: row.pageCount,
            width: row.width,
            height: row.height,
            xRestrict: row.xRestrict,
            aiType: row.aiType,
            createDate: Date(timeIntervalSinceReferenceDate: row.createDate),
            isVisible: row.isVisible,
            totalBookmarks: row.totalBookmarks
        )
        return IndexedBookmark(
            illust: illust,
            restrict: restrict,
            serverOrder: row.serverOrder,
            firstIndexedAt: Date(timeIntervalSinceReferenceDate: row.firstIndexedAt),
            lastSeenAt: Date(timeIntervalSinceReferenceDate: row.lastSeenAt)
        )
    }

    private func string(at offset: Int, length: UInt32) -> String {
        text.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[offset..<offset + Int(length)]), as: UTF8.self) }
    }

    // MARK: Writing

    /// Inserts or replaces the row of `bookmark.illust.id`, whose tags are interned as `tags`;
    /// `nameOfRef` maps them to the names that are counted and indexed.
    mutating func upsert(_ bookmark: IndexedBookmark, tags: [TagRefID], nameOfRef: [TagID]) {
        let illust = bookmark.illust
        var row = Row(
            illustID: illust.id, serverOrder: bookmark.serverOrder,
            firstIndexedAt: bookmark.firstIndexedAt.timeIntervalSinceReferenceDate,
            lastSeenAt: bookmark.lastSeenAt.timeIntervalSinceReferenceDate,
            createDate: illust.createDate.timeIntervalSinceReferenceDate,
            artistID: illust.artistID, totalBookmarks: illust.totalBookmarks, pageCount: illust.pageCount,
            width: illust.width, height: illust.height, xRestrict: illust.xRestrict, aiType: illust.aiType,
            textStart: 0, tagStart: 0,
            titleLength: UInt32(illust.title.utf8.count),
            artistNameLength: UInt32(illust.artistName.utf8.count),
            thumbnailLength: UInt32(illust.thumbnailURL?.utf8.count ?? 0),
            typeLength: UInt32(illust.type.rawValue.utf8.count),
            tagCount: UInt32(tags.count), orderStamp: 0,
            flags: Row.isLiveFlag | (illust.isVisible ? Row.isVisibleFlag : 0) | (illust.thumbnailURL != nil ? Row.hasThumbnailFlag : 0)
        )
        let strings = [illust.title, illust.artistName, illust.thumbnailURL ?? "", illust.type.rawValue]

        if let slot = slotByIllust[illust.id] {
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
            if tagRefs[old.tagRange].elementsEqual(tags) {
                row.tagStart = old.tagStart
            } else {
                unindexTags(tagRefs[old.tagRange], slot: slot, nameOfRef: nameOfRef)
                garbageTags += Int(old.tagCount)
                row.tagStart = tagRefs.count
                tagRefs.append(contentsOf: tags)
                indexTags(tags[...], slot: slot, nameOfRef: nameOfRef)
            }
            slots[Int(slot)] = row
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
        slotByIllust[illust.id] = slot
        indexTags(tags[...], slot: slot, nameOfRef: nameOfRef)
    }

    mutating func remove(illustID: Int, nameOfRef: [TagID]) {
        guard let slot = slotByIllust.removeValue(forKey: illustID) else { return }
        let old = slots[Int(slot)]
        unindexTags(tagRefs[old.tagRange], slot: slot, nameOfRef: nameOfRef)
        garbageText += old.textLength
        garbageTags += Int(old.tagCount)
        slots[Int(slot)].flags = 0
        freeSlots.append(slot)
    }

    mutating func removeAll() {
        self = ListIndex()
    }

    /// An empty list.
    init() {}

    /// The list of `parts` and what is derived from them, as they are: what
    /// ``init(parts:slotByIllust:postings:refCounts:)`` builds once it has checked them.
    init(assembling parts: Parts, slotByIllust: [Int: Int32], postings: [Postings], refCounts: [Int32]) {
        self.slots = parts.slots
        self.freeSlots = parts.freeSlots
        self.slotByIllust = slotByIllust
        self.text = parts.text
        self.tagRefs = parts.tagRefs
        self.garbageText = parts.garbageText
        self.garbageTags = parts.garbageTags
        self.tagCounts = parts.tagCounts
        self.postings = postings
        self.refCounts = refCounts
        self.order = OrderList(newestFirst: parts.order, nextStamp: parts.nextStamp)
    }

    /// Restores the order list's invariants after a batch of writes, and packs the arenas once
    /// they are mostly garbage.
    mutating func finishBatch() {
        let slots = self.slots
        order.normalize(liveCount: count) { entry in
            let row = slots[Int(entry.slot)]
            return row.isLive && row.orderStamp == entry.stamp
        } tieBreak: { entry in
            slots[Int(entry.slot)].illustID
        }
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

    private mutating func unindexTags(_ tags: ArraySlice<TagRefID>, slot: Int32, nameOfRef: [TagID]) {
        for ref in tags { refCounts[Int(ref)] -= 1 }
        Self.forEachName(tags, nameOfRef: nameOfRef) { tag in
            tagCounts[Int(tag)] -= 1
            postings[Int(tag)].remove(slot)
        }
    }

    private mutating func appendText(_ strings: [String]) -> Int {
        let start = text.count
        for var string in strings {
            string.withUTF8 { text.append(contentsOf: $0) }
        }
        return start
    }

    private func textEquals(at start: Int, _ strings: [String]) -> Bool {
        text.withUnsafeBufferPointer { text in
            var offset = start
            for var string in strings {
                let equal = string.withUTF8 { bytes in
                    bytes.isEmpty || memcmp(text.baseAddress! + offset, bytes.baseAddress!, bytes.count) == 0
                }
                if !equal { return false }
                offset += string.utf8.count
            }
            return true
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
