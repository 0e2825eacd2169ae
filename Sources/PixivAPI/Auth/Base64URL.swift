/// Base64url without padding (RFC 4648 §5, as RFC 7636 uses it): how OAuth PKCE writes its code
/// verifier and its `S256` code challenge.
///
/// The alphabet is base64's with `-` and `_` for `+` and `/`, and the `=` padding is left off,
/// so the text is safe in a URL's query and needs no percent-encoding.
package enum Base64URL {
    /// The base64url text of `bytes`, without padding: 4 characters for every 3 bytes, and 2 or 3
    /// for a final 1 or 2.
    package static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var text: [UInt8] = []
        text.reserveCapacity((bytes.underestimatedCount * 4 + 2) / 3)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = second == nil ? nil : iterator.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            text.append(alphabet[Int(group >> 18)])
            text.append(alphabet[Int(group >> 12 & 0x3F)])
            if second != nil { text.append(alphabet[Int(group >> 6 & 0x3F)]) }
            if third != nil { text.append(alphabet[Int(group & 0x3F)]) }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The 64 digits, in value order (RFC 4648 Table 2).
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
}
