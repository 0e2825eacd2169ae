@testable import BookmarkIndex
import BookmarkJSON
import Testing

/// The open-addressing table the tag table and the decoding cache find positions with.
@Suite("Hash index")
struct HashIndexTests {
    /// Positions stay where they were inserted as the table grows from 16 slots to thousands.
    @Test func findsEveryPositionAcrossGrowth() {
        let keys = (0..<5_000).map { "key \($0)" }
        var index = HashIndex()
        for (position, key) in keys.enumerated() {
            #expect(index.insert(Self.hash(key)) == position)
        }
        #expect(index.count == keys.count)
        for (position, key) in keys.enumerated() {
            #expect(index.find(Self.hash(key)) { keys[$0] == key } == position)
        }
        #expect(index.find(Self.hash("absent")) { keys[$0] == "absent" } == nil)
    }

    /// Hashes that collide in full, in their top half (what a slot keeps) or in their low bits
    /// (where probing starts) are told apart by the caller's comparison.
    @Test func collidingHashesAreToldApartByTheComparison() {
        let hashes: [UInt64] = [
            42, 42, 42,                                        // equal
            0xABCD_0000_0000_0001, 0xABCD_0000_0000_0002,      // same top half
            0x0000_0001_0000_0007, 0x0000_0002_0000_0007,      // same low bits
        ] + (0..<40).map { UInt64($0) << 32 | 5 }              // a long probe, through growth
        var index = HashIndex()
        for hash in hashes { index.insert(hash) }
        for (position, hash) in hashes.enumerated() {
            #expect(index.find(hash) { $0 == position } == position)
            // Only positions whose hash has the same top half (what a slot keeps) are offered
            // to the comparison.
            var offered: [Int] = []
            _ = index.find(hash) { offered.append($0); return false }
            #expect(offered.allSatisfy { hashes[$0] >> 32 == hash >> 32 }, "\(offered)")
            #expect(offered.contains(position))
        }
    }

    static func hash(_ text: String) -> UInt64 {
        Array(text.utf8).withUnsafeBytes { XXH64.hash($0) }
    }
}
