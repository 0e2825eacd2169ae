extension ListIndex {
    /// The list with what its writes left out while ``defersIndexes`` was set derived from its
    /// rows, all at once: the tag counts and postings, the rows carrying each pair, the vanished
    /// rows' bookkeeping, the columns and the sort leaders. `nameOfRef` is the tag table's, which
    /// has `nameCount` names. Call after ``finishBatch()``, which puts the order in order.
    ///
    /// O(n + t) for n rows carrying t tags, in sequential passes: what building them one write
    /// at a time costs several times over while a journal is read whole. With a `pool`, the
    /// columns and the sort leaders are chosen on its threads meanwhile (the calling thread
    /// must be one that may block).
    func derivingIndexes(nameOfRef: [TagID], nameCount: Int, pool: IOThreadPool? = nil) -> ListIndex {
        let list = self
        let columnsWork = pool?.start { Self.columns(of: list) }
        let leadersWork = pool?.start { SortLeaders(rows: list.slots, capacity: list.leaders.capacity) }
        var parts = self.parts
        var tagCounts = [Int32](repeating: 0, count: nameCount)
        var vanishedTagCounts = [Int32](repeating: 0, count: nameCount)
        var refCounts = [Int32](repeating: 0, count: nameOfRef.count)
        var vanished: [Int32] = []
        for (slot, row) in slots.enumerated() where row.isLive {
            let rowTags = tagRefs[row.tagRange]
            for ref in rowTags { refCounts[Int(ref)] += 1 }
            let isVanished = !row.isVisible
            if isVanished { vanished.append(Int32(slot)) }
            Self.forEachName(rowTags, nameOfRef: nameOfRef) { name in
                tagCounts[Int(name)] += 1
                if isVanished { vanishedTagCounts[Int(name)] += 1 }
            }
        }
        // Slots visited in ascending order: each name's postings come out sorted.
        var postingSlots = tagCounts.map { count -> [Int32] in
            var slots: [Int32] = []
            slots.reserveCapacity(Int(count))
            return slots
        }
        for (slot, row) in slots.enumerated() where row.isLive {
            Self.forEachName(tagRefs[row.tagRange], nameOfRef: nameOfRef) { name in
                postingSlots[Int(name)].append(Int32(slot))
            }
        }
        parts.tagCounts = tagCounts
        parts.postingCounts = tagCounts
        parts.postingSlots = []
        let tagIndex = TagIndex(postings: postingSlots.map(Postings.init(slots:)), refCounts: refCounts, vanishedTagCounts: vanishedTagCounts)
        // Work no pool thread has started runs here (the pool's threads may all be this scan's).
        let columns = (try? columnsWork?.wait()) ?? Self.columns(of: list)
        let leaders = (try? leadersWork?.wait()) ?? SortLeaders(rows: slots, capacity: leaders.capacity)
        let rows = IndexedRows(slotByIllust: slotByIllust, vanishedSlots: Postings(slots: vanished), columns: columns)
        return ListIndex(assembling: parts, rows: rows, tagIndex: tagIndex, leaders: leaders, typesFilled: true)
    }

    /// The columns of `list`'s rows, their kinds read from its text arena.
    private static func columns(of list: ListIndex) -> FacetColumns {
        var columns = FacetColumns(rows: list.slots)
        columns.fillTypes(of: list)
        return columns
    }
}
