/// MD5 (RFC 1321): the digest in Pixiv's `X-Client-Hash` header.
///
/// Pixiv's apps send, with each OAuth request, the MD5 of the request time followed by a secret
/// of the app; MD5 is here only because that header is defined with it. MD5 is broken for
/// collision resistance: use it for nothing that relies on it being hard to forge. Written from
/// the RFC because CryptoKit does not exist on Linux and the package takes no dependencies;
/// checked against the RFC's test suite and against Python's `hashlib`.
package enum MD5 {
    /// The 16-byte digest of `bytes`.
    ///
    /// Linear in the input; contiguous input (an array, a native string's UTF-8 view) is read in
    /// place, 64 bytes at a time.
    package static func hash<Bytes: Sequence>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var state: [UInt32] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476]  // A, B, C, D (§3.3)
        sines.withUnsafeBufferPointer { t in
            shifts.withUnsafeBufferPointer { s in
                MessageBlocks.forEach(in: bytes, lengthOrder: .littleEndian) { block in
                    compress(block, into: &state, sines: t, shifts: s)
                }
            }
        }
        var digest: [UInt8] = []
        digest.reserveCapacity(16)
        for word in state {  // low-order byte first (§3.5)
            digest.append(UInt8(truncatingIfNeeded: word))
            digest.append(UInt8(truncatingIfNeeded: word >> 8))
            digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 24))
        }
        return digest
    }

    /// Processes one 16-word block (RFC 1321 §3.4).
    ///
    /// Each of the 64 operations is `a = b + ((a + F(b,c,d) + X[k] + T[i]) <<< s)` with the
    /// roles of the four words turning after each one, which the loops write as a shift of
    /// `d, c, b` into `a, d, c` and the new word into `b`.
    @inline(__always)
    private static func compress(
        _ block: UnsafeRawBufferPointer,
        into state: inout [UInt32],
        sines t: UnsafeBufferPointer<UInt32>,
        shifts s: UnsafeBufferPointer<UInt32>
    ) {
        @inline(__always) func word(_ k: Int) -> UInt32 {
            UInt32(littleEndian: block.loadUnaligned(fromByteOffset: 4 * k, as: UInt32.self))
        }
        var a = state[0], b = state[1], c = state[2], d = state[3]
        @inline(__always) func operation(_ i: Int, _ mixed: UInt32, _ k: Int) {
            let rotated = (a &+ mixed &+ word(k) &+ t[i]).rotatedLeft(s[i])
            (a, d, c, b) = (d, c, b, b &+ rotated)
        }
        for i in 0..<16 {  // round 1: F(X,Y,Z) = XY v not(X) Z, words in order
            operation(i, (b & c) | (~b & d), i)
        }
        for i in 16..<32 {  // round 2: G(X,Y,Z) = XZ v Y not(Z), words 1, 6, 11, …
            operation(i, (b & d) | (c & ~d), (5 &* i &+ 1) & 15)
        }
        for i in 32..<48 {  // round 3: H(X,Y,Z) = X xor Y xor Z, words 5, 8, 11, …
            operation(i, b ^ c ^ d, (3 &* i &+ 5) & 15)
        }
        for i in 48..<64 {  // round 4: I(X,Y,Z) = Y xor (X v not(Z)), words 0, 7, 14, …
            operation(i, c ^ (b | ~d), (7 &* i) & 15)
        }
        state[0] &+= a
        state[1] &+= b
        state[2] &+= c
        state[3] &+= d
    }

    /// The `s` of each operation (RFC 1321 §3.4): four per round, repeated four times.
    private static let shifts: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
        5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
        6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ]

    /// T[1…64] (RFC 1321 §3.4): the integer part of 4294967296 × abs(sin(i)), i in radians.
    private static let sines: [UInt32] = [
        0xd76a_a478, 0xe8c7_b756, 0x2420_70db, 0xc1bd_ceee, 0xf57c_0faf, 0x4787_c62a, 0xa830_4613, 0xfd46_9501,
        0x6980_98d8, 0x8b44_f7af, 0xffff_5bb1, 0x895c_d7be, 0x6b90_1122, 0xfd98_7193, 0xa679_438e, 0x49b4_0821,
        0xf61e_2562, 0xc040_b340, 0x265e_5a51, 0xe9b6_c7aa, 0xd62f_105d, 0x0244_1453, 0xd8a1_e681, 0xe7d3_fbc8,
        0x21e1_cde6, 0xc337_07d6, 0xf4d5_0d87, 0x455a_14ed, 0xa9e3_e905, 0xfcef_a3f8, 0x676f_02d9, 0x8d2a_4c8a,
        0xfffa_3942, 0x8771_f681, 0x6d9d_6122, 0xfde5_380c, 0xa4be_ea44, 0x4bde_cfa9, 0xf6bb_4b60, 0xbebf_bc70,
        0x289b_7ec6, 0xeaa1_27fa, 0xd4ef_3085, 0x0488_1d05, 0xd9d4_d039, 0xe6db_99e5, 0x1fa2_7cf8, 0xc4ac_5665,
        0xf429_2244, 0x432a_ff97, 0xab94_23a7, 0xfc93_a039, 0x655b_59c3, 0x8f0c_cc92, 0xffef_f47d, 0x8584_5dd1,
        0x6fa8_7e4f, 0xfe2c_e6e0, 0xa301_4314, 0x4e08_11a1, 0xf753_7e82, 0xbd3a_f235, 0x2ad7_d2bb, 0xeb86_d391,
    ]
}

extension UInt32 {
    @inline(__always)
    fileprivate func rotatedLeft(_ count: UInt32) -> UInt32 {
        (self << count) | (self >> (32 - count))
    }
}
