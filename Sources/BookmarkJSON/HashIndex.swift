/// Finds the position of a value in the caller's own array by a 64-bit hash the caller
/// computes and a comparison the caller makes.
///
/// For the lookups an open makes once for every tag of every bookmark (a tag's bytes in the
/// journal, a tag's name and translation in the tag table): `Dictionary` would hash each key
/// with SipHash, hash the `Int` it gets again, and copy the key in and out; this table does
/// one pass of ``XXH64`` over the bytes and compares them in place. The values are the
/// caller's, at positions `0..<count` in the order they were inserted.
///
/// Open addressing with linear probing, at most half full. Each slot holds a position and the
/// top 32 bits of its hash, so a probe calls the comparison only when those agree.
package struct HashIndex: Sendable {
    /// 0 when empty, else the hash's top 32 bits above `position + 1`; no slots at all (no
    /// allocation) until the first insert.
    package private(set) var slots: [UInt64] = []
    /// The full hash of each position: what growing rehashes.
    package private(set) var hashes: [UInt64] = []

    /// An empty table.
    package init() {}

    /// An empty table with room for `capacity` positions before it grows.
    package init(capacity: Int) {
        slots = Array(repeating: 0, count: Self.slotCount(for: capacity))
        hashes.reserveCapacity(capacity)
    }

    /// The slots that hold `count` positions at most half full: a power of two, 16 at least.
    private static func slotCount(for count: Int) -> Int {
        var slots = 16
        while slots < count * 2 { slots *= 2 }
        return slots
    }

    /// The positions inserted: `0..<count`.
    package var count: Int { hashes.count }

    /// The position inserted with `hash` for which `matches` is true, if any.
    package func find(_ hash: UInt64, where matches: (Int) -> Bool) -> Int? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        var index = Int(truncatingIfNeeded: hash) & mask
        let tag = hash >> 32
        while true {
            let slot = slots[index]
            if slot == 0 { return nil }
            if slot >> 32 == tag {
                let position = Int(truncatingIfNeeded: slot & 0xFFFF_FFFF) - 1
                if matches(position) { return position }
            }
            index = (index + 1) & mask
        }
    }

    /// Inserts the next position, ``count``, under `hash`, and returns it. The caller has
    /// checked with ``find(_:where:)`` that no equal value is there.
    @discardableResult
    package mutating func insert(_ hash: UInt64) -> Int {
        let position = hashes.count
        precondition(position < Int(UInt32.max), "a HashIndex holds fewer than 2^32 - 1 positions")
        hashes.append(hash)
        if hashes.count * 2 > slots.count {
            slots = Array(repeating: 0, count: Self.slotCount(for: hashes.count))
            for (position, hash) in hashes.enumerated() { place(position, hash) }
        } else {
            place(position, hash)
        }
        return position
    }

    private mutating func place(_ position: Int, _ hash: UInt64) {
        let mask = slots.count - 1
        var index = Int(truncatingIfNeeded: hash) & mask
        while slots[index] != 0 { index = (index + 1) & mask }
        slots[index] = hash & 0xFFFF_FFFF_0000_0000 | UInt64(position + 1)
    }
}
