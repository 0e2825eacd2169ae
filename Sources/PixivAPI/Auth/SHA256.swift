/// SHA-256 (FIPS 180-4): the digest behind OAuth PKCE's `S256` code challenge (RFC 7636).
///
/// Written from the standard because CryptoKit does not exist on Linux and the package takes no
/// dependencies; checked against the NIST examples and against Python's `hashlib`.
package enum SHA256 {
    /// The 32-byte digest of `bytes`.
    ///
    /// Linear in the input; contiguous input (an array, a native string's UTF-8 view) is read in
    /// place, 64 bytes at a time.
    package static func hash<Bytes: Sequence>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var state = initialState
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
            roundConstants.withUnsafeBufferPointer { constants in
                MessageBlocks.forEach(in: bytes, lengthOrder: .bigEndian) { block in
                    compress(block, into: &state, schedule: schedule, constants: constants)
                }
            }
        }
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for word in state {
            digest.append(UInt8(truncatingIfNeeded: word >> 24))
            digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 8))
            digest.append(UInt8(truncatingIfNeeded: word))
        }
        return digest
    }

    /// Computes one block (FIPS 180-4 §6.2.2): `state` is H⁽ⁱ⁻¹⁾ on entry and H⁽ⁱ⁾ on return.
    @inline(__always)
    private static func compress(
        _ block: UnsafeRawBufferPointer,
        into state: inout [UInt32],
        schedule w: UnsafeMutableBufferPointer<UInt32>,
        constants k: UnsafeBufferPointer<UInt32>
    ) {
        for t in 0..<16 {
            w[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 4 * t, as: UInt32.self))
        }
        for t in 16..<64 {
            w[t] = smallSigma1(w[t - 2]) &+ w[t - 7] &+ smallSigma0(w[t - 15]) &+ w[t - 16]
        }
        var a = state[0], b = state[1], c = state[2], d = state[3]
        var e = state[4], f = state[5], g = state[6], h = state[7]
        for t in 0..<64 {
            let t1 = h &+ bigSigma1(e) &+ choose(e, f, g) &+ k[t] &+ w[t]
            let t2 = bigSigma0(a) &+ majority(a, b, c)
            h = g
            g = f
            f = e
            e = d &+ t1
            d = c
            c = b
            b = a
            a = t1 &+ t2
        }
        state[0] &+= a
        state[1] &+= b
        state[2] &+= c
        state[3] &+= d
        state[4] &+= e
        state[5] &+= f
        state[6] &+= g
        state[7] &+= h
    }

    // The functions of FIPS 180-4 §4.1.2.

    @inline(__always) private static func choose(_ x: UInt32, _ y: UInt32, _ z: UInt32) -> UInt32 {
        (x & y) ^ (~x & z)
    }

    @inline(__always) private static func majority(_ x: UInt32, _ y: UInt32, _ z: UInt32) -> UInt32 {
        (x & y) ^ (x & z) ^ (y & z)
    }

    @inline(__always) private static func bigSigma0(_ x: UInt32) -> UInt32 {
        x.rotatedRight(2) ^ x.rotatedRight(13) ^ x.rotatedRight(22)
    }

    @inline(__always) private static func bigSigma1(_ x: UInt32) -> UInt32 {
        x.rotatedRight(6) ^ x.rotatedRight(11) ^ x.rotatedRight(25)
    }

    @inline(__always) private static func smallSigma0(_ x: UInt32) -> UInt32 {
        x.rotatedRight(7) ^ x.rotatedRight(18) ^ (x >> 3)
    }

    @inline(__always) private static func smallSigma1(_ x: UInt32) -> UInt32 {
        x.rotatedRight(17) ^ x.rotatedRight(19) ^ (x >> 10)
    }

    /// H⁽⁰⁾ (FIPS 180-4 §5.3.3): the first 32 bits of the fractional parts of the square roots of
    /// the first eight primes.
    private static let initialState: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]

    /// K (FIPS 180-4 §4.2.2): the first 32 bits of the fractional parts of the cube roots of the
    /// first sixty-four primes.
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]
}

extension UInt32 {
    @inline(__always)
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 {
        (self >> count) | (self << (32 - count))
    }
}
