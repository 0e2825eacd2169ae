@testable import BookmarkIndex
import Testing

/// `SlotTable`, the list's illust ID → slot table, against a `Dictionary`.
@Suite struct SlotTableTests {
    static func row(_ illustID: Int) -> ListIndex.Row {
        ListIndex.Row(
            illustID: illustID, serverOrder: 0, firstIndexedAt: 0, lastSeenAt: 0, createDate: 0, vanishedAt: 0,
            artistID: 0, totalBookmarks: 0, pageCount: 0, width: 0, height: 0, xRestrict: 0, aiType: 0,
            textStart: 0, tagStart: 0, titleLength: 0, artistNameLength: 0, thumbnailLength: 0, typeLength: 0,
            tagCount: 0, orderStamp: 0, flags: ListIndex.Row.isLiveFlag, vanishReason: 0, totalView: 0
        )
    }

    /// Random inserts and removals, slots reused as the list reuses them, over IDs drawn from
    /// a narrow range, a sequential one and the whole of `Int` (negative ones too): every
    /// lookup agrees with the dictionary after every step, and growing keeps every entry.
    @Test(arguments: [0, 1, 2] as [Int])
    func agreesWithADictionary(idShape: Int) {
        var random = SplitMix64(seed: UInt64(40 + idShape))
        func drawID() -> Int {
            switch idShape {
            case 0: Int(random.next() % 600)
            case 1: 100_000_000 + Int(random.next() % 3_000)
            default: Int(truncatingIfNeeded: random.next())
            }
        }
        var rows: [ListIndex.Row] = []
        var free: [Int32] = []
        var table = SlotTable()
        var model: [Int: Int32] = [:]
        var seen: [Int] = []
        for step in 0..<6_000 {
            let id = drawID()
            if let slot = model[id], random.next() % 3 != 0 {
                #expect(table.remove(id, in: rows) == slot)
                model[id] = nil
                free.append(slot)
            } else if model[id] == nil {
                let slot: Int32
                if let reused = free.popLast() {
                    slot = reused
                    rows[Int(slot)] = Self.row(id)
                } else {
                    slot = Int32(rows.count)
                    rows.append(Self.row(id))
                }
                #expect(table.insert(slot, in: rows) == nil)
                model[id] = slot
            }
            seen.append(id)
            if step % 97 == 0 || step > 5_900 {
                #expect(table.count == model.count)
                for id in seen.suffix(300) { #expect(table.slot(of: id, in: rows) == model[id]) }
                #expect(Set(table.slots) == Set(model.values))
            }
        }
        #expect(table.remove(Int.min, in: rows) == nil || model[Int.min] != nil)
    }

    /// Removals inside the runs of a small, full table (six entries in eight buckets, so runs
    /// form) keep the rest findable.
    @Test func removalsInsideRunsKeepTheRestFindable() {
        var table = SlotTable()
        var rows: [ListIndex.Row] = []
        for id in [3, 11, 19, 27, 35, 43] {
            rows.append(Self.row(id))
            #expect(table.insert(Int32(rows.count - 1), in: rows) == nil)
        }
        #expect(table.buckets.count == 8)
        for (index, removed) in [19, 3, 43].enumerated() {
            #expect(table.remove(removed, in: rows) != nil)
            let kept = [3, 11, 19, 27, 35, 43].filter { ![19, 3, 43].prefix(index + 1).contains($0) }
            for id in kept { #expect(table.slot(of: id, in: rows).map { rows[Int($0)].illustID } == id) }
            #expect(table.slot(of: removed, in: rows) == nil)
        }
    }

    /// `insert` inserts a new ID and, for an ID held already, inserts nothing and names the
    /// slot that holds it, across growth.
    @Test func insertNamesTheSlotAlreadyHoldingAnID() {
        var table = SlotTable()
        var rows: [ListIndex.Row] = []
        for id in 0..<200 {
            rows.append(Self.row(id * 5 % 137))
            let held = table.insert(Int32(rows.count - 1), in: rows)
            let first = rows.indices.first { rows[$0].illustID == rows.last!.illustID }!
            #expect(held == (first == rows.count - 1 ? nil : Int32(first)))
        }
        #expect(table.count == 137)
        #expect((0..<137).allSatisfy { id in table.slot(of: id, in: rows).map { rows[Int($0)].illustID } == id })
    }

    @Test func aTableSizedForItsRowsDoesNotGrow() {
        let rows = (0..<1_000).map { Self.row($0 * 7) }
        var table = SlotTable(capacity: rows.count)
        let buckets = table.buckets.count
        for slot in rows.indices { #expect(table.insert(Int32(slot), in: rows) == nil) }
        #expect(table.buckets.count == buckets && buckets == 2_048)
        #expect(rows.indices.allSatisfy { table.slot(of: $0 * 7, in: rows) == Int32($0) })
    }
}
