import Foundation

extension ListIndex {
    /// What a checkpoint stores of a list; everything else is derived from these.
    struct Parts {
        var slots: [Row] = []
        var freeSlots: [Int32] = []
        var text: [UInt8] = []
        var tagRefs: [TagRefID] = []
        var garbageText = 0
        var garbageTags = 0
        var tagCounts: [Int32] = []
        /// How many slots each tag's postings hold, by ``TagID``; the slots are in ``postingSlots``.
        var postingCounts: [Int32] = []
        var postingSlots: [Int32] = []
        /// The order list's live entries, newest first.
        var order: [OrderList.Entry] = []
        var nextStamp: UInt32 = 0
    }

    /// What ``indexRows(_:textCount:tagRefCount:)`` derives from a list's rows.
    struct IndexedRows {
        var slotByIllust: SlotTable
        /// The slots of the vanished rows, ascending.
        var vanishedSlots: Postings
        /// The rows' columns, every kind but illust still to be filled in from the text arena
        /// (``FacetColumns/fillTypes(of:)``).
        var columns: FacetColumns
    }

    /// What ``checkedTagIndex(_:tags:)`` derives from a list's rows and checks its tag index
    /// against.
    struct TagIndex {
        var postings: [Postings]
        var refCounts: [Int32]
        /// Vanished rows carrying each tag, by ``TagID``, as long as the tag counts.
        var vanishedTagCounts: [Int32]
    }

    /// A list's parts that are inconsistent: a checkpoint written by a different build, or
    /// damaged in a way its checksums did not catch.
    struct InconsistentParts: Error {
        var reason: String
    }

    var parts: Parts {
        var parts = Parts(
            slots: slots, freeSlots: freeSlots, text: text, tagRefs: tagRefs,
            garbageText: garbageText, garbageTags: garbageTags, tagCounts: tagCounts,
            nextStamp: order.stampCounter
        )
        parts.postingCounts = postings.map { Int32($0.count) }
        parts.postingSlots.reserveCapacity(postings.reduce(0) { $0 + $1.count })
        for list in postings { parts.postingSlots.append(contentsOf: list.slots) }
        parts.order.reserveCapacity(count)
        let slots = self.slots
        order.forEachNewestFirst { entry in
            let row = slots[Int(entry.slot)]
            if row.isLive && row.orderStamp == entry.stamp { parts.order.append(entry) }
            return true
        }
        return parts
    }

    /// Checks that every live row's text and tags lie inside arenas of `textCount` bytes and
    /// `tagRefCount` entries and that its vanished mark is one the index writes, and indexes the
    /// rows by illust ID; the first half of reading a list's parts, which can run while the rest
    /// is still being read.
    static func indexRows(_ slots: [Row], textCount: Int, tagRefCount: Int) throws(InconsistentParts) -> IndexedRows {
        guard slots.count <= SlotTable.maximumCount else { throw InconsistentParts(reason: "the list has more rows than a list holds") }
        var slotByIllust = SlotTable(capacity: slots.count)
        var vanished: [Int32] = []
        for (slot, row) in slots.enumerated() where row.isLive {
            guard row.textStart >= 0 && row.textStart <= textCount - row.textLength else {
                throw InconsistentParts(reason: "row \(slot)'s text is out of bounds")
            }
            guard row.tagStart >= 0 && row.tagStart <= tagRefCount - Int(row.tagCount) else {
                throw InconsistentParts(reason: "row \(slot)'s tags are out of bounds")
            }
            guard Int(row.vanishReason) <= VanishReason.allCases.count, !row.isVisible || !row.hasVanishedAt else {
                throw InconsistentParts(reason: "row \(slot)'s vanished mark is not one the index writes")
            }
            guard slotByIllust.insert(Int32(slot), in: slots) == nil else {
                throw InconsistentParts(reason: "illust \(row.illustID) has two rows")
            }
            if !row.isVisible { vanished.append(Int32(slot)) }
        }
        return IndexedRows(slotByIllust: slotByIllust, vanishedSlots: Postings(slots: vanished), columns: FacetColumns(rows: slots))
    }

    /// Checks the list's tag index against its rows and `tags`: every tag a row names is
    /// interned; each name's count is the number of live rows carrying it; each name's postings
    /// are that many distinct live rows in ascending order, and the same rows as those carrying
    /// it. Returns the postings, the rows carrying each (name, translation) pair, and the
    /// vanished rows carrying each name.
    ///
    /// Two sequential passes, cheap enough for every checkpoint open: over the rows, adding up per
    /// name a keyed 64-bit hash of each slot carrying it (the key is random, so no file can be
    /// made to collide), then over the postings, doing the same; the sums must be equal. Row
    /// ranges are checked again here (``indexRows(_:textCount:tagRefCount:)`` runs alongside),
    /// so nothing traps whatever the parts hold.
    static func checkedTagIndex(_ parts: Parts, tags: TagTable) throws(InconsistentParts) -> TagIndex {
        let nameOfRef = tags.nameOfRef
        guard parts.tagRefs.allSatisfy({ Int($0) < nameOfRef.count }) else { throw InconsistentParts(reason: "a row names an unknown tag") }
        let tagCount = parts.tagCounts.count
        guard parts.postingCounts.count == tagCount, tagCount <= tags.count,
              zip(parts.tagCounts, parts.postingCounts).allSatisfy({ $0 == $1 && $0 >= 0 }) else {
            throw InconsistentParts(reason: "the tag counts and postings do not agree, or do not fit the tag table")
        }
        guard parts.postingCounts.reduce(0, { $0 + Int($1) }) == parts.postingSlots.count else {
            throw InconsistentParts(reason: "the postings do not add up to their counts")
        }

        let key = UInt64.random(in: .min ... .max)
        @inline(__always) func mix(_ slot: Int) -> UInt64 {
            var value = (UInt64(slot) ^ key) &* 0x9E37_79B9_7F4A_7C15
            value ^= value >> 30
            value &*= 0xBF58_476D_1CE4_E5B9
            value ^= value >> 27
            value &*= 0x94D0_49BB_1331_11EB
            return value ^ (value >> 31)
        }
        var live = [Bool](repeating: false, count: parts.slots.count)
        var refCounts = [Int32](repeating: 0, count: nameOfRef.count)
        var rowCounts = [Int32](repeating: 0, count: tags.count)
        var rowSums = [UInt64](repeating: 0, count: tags.count)
        var vanishedCounts = [Int32](repeating: 0, count: tagCount)
        for (slot, row) in parts.slots.enumerated() where row.isLive {
            guard row.tagStart >= 0 && row.tagStart <= parts.tagRefs.count - Int(row.tagCount) else {
                throw InconsistentParts(reason: "row \(slot)'s tags are out of bounds")
            }
            live[slot] = true
            let hash = mix(slot)
            let rowTags = parts.tagRefs[row.tagRange]
            for ref in rowTags { refCounts[Int(ref)] += 1 }
            let isVanished = !row.isVisible
            forEachName(rowTags, nameOfRef: nameOfRef) { name in
                rowCounts[Int(name)] += 1
                rowSums[Int(name)] &+= hash
                // A name past the counts is refused just below.
                if isVanished && Int(name) < tagCount { vanishedCounts[Int(name)] += 1 }
            }
        }
        for name in tagCount..<rowCounts.count where rowCounts[name] != 0 {
            throw InconsistentParts(reason: "rows carry tag \(name), which has no postings")
        }

        var postings: [Postings] = []
        postings.reserveCapacity(tagCount)
        var start = 0
        for tag in 0..<tagCount {
            let end = start + Int(parts.postingCounts[tag])
            let list = Array(parts.postingSlots[start..<end])
            var previous: Int32 = -1
            var sum: UInt64 = 0
            for slot in list {
                guard slot > previous, Int(slot) < live.count, live[Int(slot)] else {
                    throw InconsistentParts(reason: "tag \(tag)'s postings are not live rows in order")
                }
                previous = slot
                sum &+= mix(Int(slot))
            }
            guard Int32(list.count) == rowCounts[tag], sum == rowSums[tag] else {
                throw InconsistentParts(reason: "tag \(tag)'s postings are not the rows carrying it")
            }
            postings.append(Postings(slots: list))
            start = end
        }
        return TagIndex(postings: postings, refCounts: refCounts, vanishedTagCounts: vanishedCounts)
    }

    /// Checks that the free slots are empty rows, each listed once, and that the order stamps
    /// of the live rows are below the next one to be handed out.
    static func checkSlots(_ parts: Parts) throws(InconsistentParts) {
        var listed = [Bool](repeating: false, count: parts.slots.count)
        for slot in parts.freeSlots {
            guard slot >= 0, Int(slot) < parts.slots.count, !parts.slots[Int(slot)].isLive, !listed[Int(slot)] else {
                throw InconsistentParts(reason: "free slot \(slot) is not an empty row listed once")
            }
            listed[Int(slot)] = true
        }
        for row in parts.slots where row.isLive && row.orderStamp >= parts.nextStamp {
            throw InconsistentParts(reason: "a row's order stamp is not below the next one")
        }
    }

    /// Checks that the order names live rows, each at most once, newest first; with the
    /// order's length equal to the number of live rows, each exactly once.
    static func checkOrder(_ order: [OrderList.Entry], slots: [Row]) throws(InconsistentParts) {
        var listed = [Bool](repeating: false, count: slots.count)
        var previous: OrderList.Entry?
        for entry in order {
            guard entry.slot >= 0 && Int(entry.slot) < slots.count && !listed[Int(entry.slot)] else {
                throw InconsistentParts(reason: "the order does not hold every row once")
            }
            listed[Int(entry.slot)] = true
            let row = slots[Int(entry.slot)]
            guard row.isLive && row.orderStamp == entry.stamp && row.serverOrder == entry.order else {
                throw InconsistentParts(reason: "the order's entry for row \(entry.slot) is stale")
            }
            if let previous, previous.order < entry.order {
                throw InconsistentParts(reason: "the order is not newest first")
            }
            previous = entry
        }
    }

    /// The list `parts` describe, from the results of the checks above run on them:
    /// ``indexRows(_:textCount:tagRefCount:)`` gave `rows`, ``checkedTagIndex(_:tags:)`` gave
    /// `tagIndex`, and ``checkOrder(_:slots:)`` and ``checkSlots(_:)`` passed. What is left to
    /// check here is what ties them together. `leaders`, when given, are the sort leaders of
    /// `parts.slots` (``SortLeaders/init(rows:capacity:)``), chosen while the rest was checked.
    init(parts: Parts, rows: IndexedRows, tagIndex: TagIndex, leaders: SortLeaders? = nil) throws(InconsistentParts) {
        let slotCount = parts.slots.count
        guard rows.slotByIllust.count + parts.freeSlots.count == slotCount else {
            throw InconsistentParts(reason: "the free slots do not account for the empty rows")
        }
        guard parts.order.count == rows.slotByIllust.count else { throw InconsistentParts(reason: "the order does not hold every row once") }
        self.init(assembling: parts, rows: rows, tagIndex: tagIndex, leaders: leaders ?? SortLeaders(rows: parts.slots))
    }
}
