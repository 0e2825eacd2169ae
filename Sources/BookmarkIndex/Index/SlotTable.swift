/// The slot of each live row by its illust ID: a hash table of slots, whose keys are the rows'
/// own IDs.
///
/// A `[Int: Int32]` keeps each ID a second time beside its slot, 12 bytes a bucket, and hashes
/// the ID with SipHash; at 100,000 rows it has 262,144 buckets, 31 bytes a row. This table
/// keeps only the slot (4 bytes a bucket, 10 a row there) and reads the ID from the row when a
/// probe needs it. Open addressing with linear probing, at most three quarters full, buckets
/// picked by Fibonacci hashing (Pixiv's IDs are nearly sequential, which that spreads evenly);
/// a removal shifts the entries after it back, so no bucket is ever a tombstone.
///
/// The caller passes its rows to every call: an entry's row must hold its ID from its insertion
/// to its removal.
struct SlotTable: Sendable {
    /// 0 when empty, else the slot + 1.
    private(set) var buckets: [UInt32]
    /// `64 - log2(buckets.count)`: the hash's top bits pick the bucket.
    private var shift: UInt64
    private(set) var count = 0

    init() {
        buckets = Array(repeating: 0, count: 8)
        shift = 61
    }

    /// A table sized for `capacity` rows without growing.
    init(capacity: Int) {
        var bucketCount = 8, shift: UInt64 = 61
        while bucketCount * 3 / 4 < capacity {
            bucketCount *= 2
            shift -= 1
        }
        buckets = Array(repeating: 0, count: bucketCount)
        self.shift = shift
    }

    private func home(of illustID: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: Int64(illustID)) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The slot of `illustID`'s row.
    func slot(of illustID: Int, in rows: [ListIndex.Row]) -> Int32? {
        let (bucket, found) = probe(illustID, in: rows)
        return found ? Int32(buckets[bucket] - 1) : nil
    }

    /// The bucket holding `illustID` (`found`), else the empty one that ends its run.
    private func probe(_ illustID: Int, in rows: [ListIndex.Row]) -> (bucket: Int, found: Bool) {
        let mask = buckets.count - 1
        var index = home(of: illustID)
        while true {
            let entry = buckets[index]
            if entry == 0 { return (index, false) }
            if rows[Int(entry - 1)].illustID == illustID { return (index, true) }
            index = (index + 1) & mask
        }
    }

    /// Records `slot` as the row of `rows[slot].illustID` unless the table holds that ID
    /// already, and then returns the slot holding it, inserting nothing: the check and the
    /// insertion in one probe.
    mutating func insert(_ slot: Int32, in rows: [ListIndex.Row]) -> Int32? {
        precondition(slot >= 0 && slot < Int32.max, "a list holds fewer than 2^31 - 1 rows")
        if (count + 1) > buckets.count * 3 / 4 { grow(rows) }
        let (bucket, found) = probe(rows[Int(slot)].illustID, in: rows)
        if found { return Int32(buckets[bucket] - 1) }
        buckets[bucket] = UInt32(slot + 1)
        count += 1
        return nil
    }

    /// Forgets `illustID`'s row and returns its slot; `nil` when the table does not hold it.
    mutating func remove(_ illustID: Int, in rows: [ListIndex.Row]) -> Int32? {
        let probed = probe(illustID, in: rows)
        guard probed.found else { return nil }
        var hole = probed.bucket
        let slot = Int32(buckets[hole] - 1)
        buckets[hole] = 0
        count -= 1
        // Shift back each following entry of the run that the hole now cuts off from its home.
        let mask = buckets.count - 1
        var index = (hole + 1) & mask
        while buckets[index] != 0 {
            let home = home(of: rows[Int(buckets[index] - 1)].illustID)
            // The entry may move to the hole unless its home lies cyclically in (hole, index].
            if (index - home) & mask >= (index - hole) & mask {
                buckets[hole] = buckets[index]
                buckets[index] = 0
                hole = index
            }
            index = (index + 1) & mask
        }
        return slot
    }

    /// The slots of every row held, in no particular order.
    var slots: [Int32] {
        buckets.compactMap { $0 == 0 ? nil : Int32($0 - 1) }
    }

    private mutating func place(_ slot: Int32, illustID: Int) {
        let mask = buckets.count - 1
        var index = home(of: illustID)
        while buckets[index] != 0 { index = (index + 1) & mask }
        buckets[index] = UInt32(slot + 1)
    }

    private mutating func grow(_ rows: [ListIndex.Row]) {
        let old = buckets
        buckets = Array(repeating: 0, count: old.count * 2)
        shift -= 1
        for entry in old where entry != 0 { place(Int32(entry - 1), illustID: rows[Int(entry - 1)].illustID) }
    }
}
