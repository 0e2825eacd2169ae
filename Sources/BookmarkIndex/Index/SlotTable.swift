/// The slot of each live row by its illust ID: a hash table of slots, whose keys are the rows'
/// own IDs.
///
/// A `[Int: Int32]` keeps each ID a second time beside its slot, 12 bytes a bucket, and hashes
/// the ID with SipHash; at 100,000 rows it has 262,144 buckets, 31 bytes a row. This table
/// keeps only the slot (4 bytes a bucket, 10 a row there) beside eight bits of the ID's hash, and
/// reads the ID from the row only when those match (a probe past other entries touches no row,
/// which a whole journal's read of rows in a list it fills makes millions of). Open addressing
/// with linear probing, at most three quarters full, buckets picked by Fibonacci hashing
/// (Pixiv's IDs are nearly sequential, which that spreads evenly); a removal shifts the entries
/// after it back, so no bucket is ever a tombstone. A list holds fewer than 2^24 - 1 rows.
///
/// The caller passes its rows to every call: an entry's row must hold its ID from its insertion
/// to its removal.
struct SlotTable: Sendable {
    /// 0 when empty, else the hash's ``tag(of:)`` in the top eight bits above the slot + 1.
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

    /// The most rows a table holds: slots take the low 24 bits of a bucket.
    static let maximumCount = (1 << 24) - 2
    private static let slotMask: UInt32 = (1 << 24) - 1

    private static func hash(of illustID: Int) -> UInt64 {
        UInt64(bitPattern: Int64(illustID)) &* 0x9E37_79B9_7F4A_7C15
    }

    private func home(of illustID: Int) -> Int {
        Int(truncatingIfNeeded: Self.hash(of: illustID) >> shift)
    }

    /// Eight bits of the hash below those any table's home takes, in a bucket's top byte.
    private static func tag(of illustID: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: hash(of: illustID) >> 24) & 0xFF00_0000
    }

    private static func slot(in entry: UInt32) -> Int32 {
        Int32(entry & slotMask) - 1
    }

    /// The slot of `illustID`'s row.
    func slot(of illustID: Int, in rows: [ListIndex.Row]) -> Int32? {
        let (bucket, found) = probe(illustID, in: rows)
        return found ? Self.slot(in: buckets[bucket]) : nil
    }

    /// The bucket holding `illustID` (`found`), else the empty one that ends its run.
    private func probe(_ illustID: Int, in rows: [ListIndex.Row]) -> (bucket: Int, found: Bool) {
        let mask = buckets.count - 1
        let tag = Self.tag(of: illustID)
        var index = home(of: illustID)
        while true {
            let entry = buckets[index]
            if entry == 0 { return (index, false) }
            if entry & ~Self.slotMask == tag, rows[Int(Self.slot(in: entry))].illustID == illustID { return (index, true) }
            index = (index + 1) & mask
        }
    }

    /// Records `slot` as the row of `rows[slot].illustID` unless the table holds that ID
    /// already, and then returns the slot holding it, inserting nothing: the check and the
    /// insertion in one probe.
    mutating func insert(_ slot: Int32, in rows: [ListIndex.Row]) -> Int32? {
        precondition(slot >= 0 && Int(slot) < Self.maximumCount, "a list holds fewer than 2^24 - 1 rows")
        if (count + 1) > buckets.count * 3 / 4 { grow(rows) }
        let illustID = rows[Int(slot)].illustID
        let (bucket, found) = probe(illustID, in: rows)
        if found { return Self.slot(in: buckets[bucket]) }
        buckets[bucket] = Self.tag(of: illustID) | UInt32(slot + 1)
        count += 1
        return nil
    }

    /// Forgets `illustID`'s row and returns its slot; `nil` when the table does not hold it.
    mutating func remove(_ illustID: Int, in rows: [ListIndex.Row]) -> Int32? {
        let probed = probe(illustID, in: rows)
        guard probed.found else { return nil }
        var hole = probed.bucket
        let slot = Self.slot(in: buckets[hole])
        buckets[hole] = 0
        count -= 1
        // Shift back each following entry of the run that the hole now cuts off from its home.
        let mask = buckets.count - 1
        var index = (hole + 1) & mask
        while buckets[index] != 0 {
            let home = home(of: rows[Int(Self.slot(in: buckets[index]))].illustID)
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
        buckets.compactMap { $0 == 0 ? nil : Self.slot(in: $0) }
    }

    /// Places `entry`, the row of `illustID`, in the first empty bucket from its home.
    private mutating func place(_ entry: UInt32, illustID: Int) {
        let mask = buckets.count - 1
        var index = home(of: illustID)
        while buckets[index] != 0 { index = (index + 1) & mask }
        buckets[index] = entry
    }

    private mutating func grow(_ rows: [ListIndex.Row]) {
        let old = buckets
        buckets = Array(repeating: 0, count: old.count * 2)
        shift -= 1
        for entry in old where entry != 0 { place(entry, illustID: rows[Int(Self.slot(in: entry))].illustID) }
    }
}
