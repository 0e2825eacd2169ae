/// XXH64, Yann Collet's 64-bit non-cryptographic hash: the checksum of the checkpoint.
///
/// The journal's lines use CRC-32C, which this pure-Swift implementation computes at about
/// 1.5 GB/s; the checkpoint is tens of megabytes read at every open, and XXH64's four independent
/// 64-bit lanes run several times faster while still catching any corruption a cache file can
/// suffer. Written from the algorithm's specification; checked against its published vectors.
package enum XXH64 {
    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    private static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    private static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

    @inline(__always)
    private static func round(_ accumulator: UInt64, _ input: UInt64) -> UInt64 {
        (accumulator &+ input &* prime2).rotatedLeft(31) &* prime1
    }

    @inline(__always)
    private static func merge(_ hash: UInt64, _ lane: UInt64) -> UInt64 {
        (hash ^ round(0, lane)) &* prime1 &+ prime4
    }

    /// The hash of `bytes` with `seed`.
    package static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        let count = bytes.count
        guard let base = bytes.baseAddress else { return finish(seed &+ prime5) }
        var index = 0
        var hash: UInt64
        @inline(__always) func word(_ offset: Int) -> UInt64 {
            UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
        if count >= 32 {
            var lane1 = seed &+ prime1 &+ prime2, lane2 = seed &+ prime2
            var lane3 = seed, lane4 = seed &- prime1
            while index + 32 <= count {
                lane1 = round(lane1, word(index))
                lane2 = round(lane2, word(index + 8))
                lane3 = round(lane3, word(index + 16))
                lane4 = round(lane4, word(index + 24))
                index += 32
            }
            hash = lane1.rotatedLeft(1) &+ lane2.rotatedLeft(7) &+ lane3.rotatedLeft(12) &+ lane4.rotatedLeft(18)
            hash = merge(merge(merge(merge(hash, lane1), lane2), lane3), lane4)
        } else {
            hash = seed &+ prime5
        }
        hash &+= UInt64(count)
        while index + 8 <= count {
            hash = (hash ^ round(0, word(index))).rotatedLeft(27) &* prime1 &+ prime4
            index += 8
        }
        if index + 4 <= count {
            let half = UInt64(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt32.self)))
            hash = (hash ^ half &* prime1).rotatedLeft(23) &* prime2 &+ prime3
            index += 4
        }
        while index < count {
            hash = (hash ^ UInt64(base.load(fromByteOffset: index, as: UInt8.self)) &* prime5).rotatedLeft(11) &* prime1
            index += 1
        }
        return finish(hash)
    }

    @inline(__always)
    private static func finish(_ hash: UInt64) -> UInt64 {
        var hash = hash
        hash ^= hash >> 33
        hash &*= prime2
        hash ^= hash >> 29
        hash &*= prime3
        hash ^= hash >> 32
        return hash
    }
}

extension UInt64 {
    @inline(__always)
    fileprivate func rotatedLeft(_ count: UInt64) -> UInt64 {
        (self << count) | (self >> (64 - count))
    }
}
