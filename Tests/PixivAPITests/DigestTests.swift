import Testing
@testable import PixivAPI

/// SHA-256, MD5, base64url and hex against their standards' published vectors, against Python's
/// `hashlib` for every length across the padding's block boundaries, and in the two uses the
/// client has for them: OAuth PKCE's `S256` challenge and Pixiv's `X-Client-Hash`.
@Suite struct DigestTests {
    private func sha256(_ text: String) -> String { Hex.encode(SHA256.hash(text.utf8)) }
    private func md5(_ text: String) -> String { Hex.encode(MD5.hash(text.utf8)) }

    /// The examples of NIST's "Cryptographic Standards and Guidelines: Examples with
    /// Intermediate Values" for FIPS 180-4, and the long message of FIPS 180-2 Appendix B.3.
    @Test func sha256OfTheNISTExamples() {
        #expect(sha256("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(sha256("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(sha256("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu")
            == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
    }

    /// One million `a`, read in place from an array and byte by byte from a collection that has
    /// no contiguous storage: the two ways a message reaches the blocks.
    @Test func sha256OfAMillionAs() {
        let expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        #expect(Hex.encode(SHA256.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))) == expected)
        #expect(Hex.encode(SHA256.hash(repeatElement(UInt8(ascii: "a"), count: 1_000_000))) == expected)
    }

    /// The test suite of RFC 1321 Appendix A.5, every entry.
    @Test func md5OfTheRFC1321TestSuite() {
        #expect(md5("") == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(md5("a") == "0cc175b9c0f1b6a831c399e269772661")
        #expect(md5("abc") == "900150983cd24fb0d6963f7d28e17f72")
        #expect(md5("message digest") == "f96b697d7cb7938d525a2f31aaf161d0")
        #expect(md5("abcdefghijklmnopqrstuvwxyz") == "c3fcd3d76192e4007dfb496cca67e13b")
        #expect(md5("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
            == "d174ab98d277d9f5a5611c2c9f419d9f")
        #expect(md5(String(repeating: "1234567890", count: 8)) == "57edf4a22be3c955ac49da2e2107b67a")
    }

    /// The first `count` bytes of the message the length tests hash: byte `i` is `(31i + 7) mod 256`.
    private static func message(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: 31 &* $0 &+ 7) }
    }

    /// Every length from 0 to 130 bytes, which puts the padding's 0x80 and length field at every
    /// position of a block and spills it into a second and a third block.
    ///
    /// The expected values come from Python: with `msg = bytes((31 * i + 7) % 256 for i in range(130))`,
    /// the digest of the concatenated digests is
    /// `hashlib.sha256(b"".join(hashlib.sha256(msg[:n]).digest() for n in range(131))).hexdigest()`
    /// and likewise with `md5`; the single lengths are `hashlib.sha256(msg[:n]).hexdigest()` and
    /// `hashlib.md5(msg[:n]).hexdigest()`, there so that a failure says where the padding breaks.
    @Test func everyLengthAcrossTheBlockBoundariesMatchesHashlib() {
        var sha256Digests: [UInt8] = []
        var md5Digests: [UInt8] = []
        for count in 0...130 {
            let bytes = Self.message(count)
            let sha256 = SHA256.hash(bytes)
            let md5 = MD5.hash(bytes)
            #expect(sha256.count == 32)
            #expect(md5.count == 16)
            #expect(SHA256.hash(bytes.lazy.map { $0 }) == sha256, "byte by byte, \(count) bytes")
            #expect(MD5.hash(bytes.lazy.map { $0 }) == md5, "byte by byte, \(count) bytes")
            sha256Digests += sha256
            md5Digests += md5
        }
        #expect(Hex.encode(SHA256.hash(sha256Digests)) == "c6e4e8706aad569e79b1296ad67e984c018330dca4cd1bc520b46a1d8c1abb05")
        #expect(Hex.encode(MD5.hash(md5Digests)) == "4dd892a8684716b508b503c16655a85a")

        let singles: [(count: Int, sha256: String, md5: String)] = [
            (55, "8aa994584139d128848eeebc4e815639ba5ab6e6e39574195a63ac4f14f7c43b", "c9e512626618c9980ef21a96597af94c"),
            (56, "ad574708f75c044c9b85de64cb568ee7711ff4f36448c6242f053ba8f6cc2b63", "ecde7caa08e9f5657c863df107cac60a"),
            (63, "280ed3e8ff1df845b2e7dfe6ac6cee817bef20e783cc65abc41b818b4d2fe076", "2f0301069e1c40af7f6c8f843b1b13f2"),
            (64, "c6ab9724ade5b6a7a1edfffb12f3aa9181351355af8fd08c919952ad211339dd", "b6bf87c24b1bc334e2541387a92b981b"),
            (119, "3d610547d68216dedf7435a4fb6260353911f6b3fd3f18805ddb8be285d726fe", "d5dc3d8264de3aa24dee105910ee27fe"),
            (120, "1f80156a804cb7862ad113e8200e9d74499723e7c7854d5f48776d3148e09656", "bcc139b3848923904860d1eefd6e5923"),
            (128, "cc548ca2dec1f6fe4f58b2e27aa9c7521607df1130d140b55a4dad0665302356", "3e85b70ffc8df5c735ecf2a8f14f1bee"),
        ]
        for single in singles {
            #expect(Hex.encode(SHA256.hash(Self.message(single.count))) == single.sha256, "\(single.count) bytes")
            #expect(Hex.encode(MD5.hash(Self.message(single.count))) == single.md5, "\(single.count) bytes")
        }
    }

    /// RFC 4648 §10's vectors, written the base64url way without padding, and bytes that need
    /// the two digits where base64url differs from base64 (`+/` there, `-_` here).
    @Test func base64URLOfTheRFC4648Vectors() {
        #expect(Base64URL.encode("".utf8) == "")
        #expect(Base64URL.encode("f".utf8) == "Zg")
        #expect(Base64URL.encode("fo".utf8) == "Zm8")
        #expect(Base64URL.encode("foo".utf8) == "Zm9v")
        #expect(Base64URL.encode("foob".utf8) == "Zm9vYg")
        #expect(Base64URL.encode("fooba".utf8) == "Zm9vYmE")
        #expect(Base64URL.encode("foobar".utf8) == "Zm9vYmFy")
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")  // "+/+/" in base64
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")  // "+/8=" in base64
    }

    @Test func hexIsLowercaseTwoDigitsPerByte() {
        #expect(Hex.encode([]) == "")
        #expect(Hex.encode([0x00, 0x0F, 0xA5, 0xFF]) == "000fa5ff")
    }

    /// RFC 7636 Appendix B: the 32 random octets encode to the code verifier, whose SHA-256
    /// encodes to the `S256` code challenge.
    @Test func pkceExampleOfRFC7636() {
        let octets: [UInt8] = [
            116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186,
            22, 212, 37, 77, 105, 214, 191, 240, 91, 88, 5, 88, 83, 132, 141, 121,
        ]
        let verifier = Base64URL.encode(octets)
        #expect(verifier == "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        let digest = SHA256.hash(verifier.utf8)
        #expect(digest == [
            19, 211, 30, 150, 26, 26, 216, 236, 47, 22, 177, 12, 76, 152, 46, 8,
            118, 168, 120, 173, 109, 241, 68, 86, 110, 225, 137, 74, 203, 112, 249, 195,
        ])
        #expect(Base64URL.encode(digest) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    /// Pixiv's `X-Client-Hash`: the lowercase hex MD5 of the `X-Client-Time` text followed by the
    /// app's hash secret.
    @Test func pixivClientHash() {
        let time = "2026-12-01T07:00:00+00:00"
        let secret = "28c1fdd170a5204386cb1313c7077b34f83e4aaf4aa829ce78c231e05b0bae2c"
        // python3 -c 'import hashlib; print(hashlib.md5(b"2026-12-01T07:00:00+00:00"
        //     b"28c1fdd170a5204386cb1313c7077b34f83e4aaf4aa829ce78c231e05b0bae2c").hexdigest())'
        #expect(md5(time + secret) == "c9ce24ff12f064ca16b5ddd7d480891f")
    }
}
