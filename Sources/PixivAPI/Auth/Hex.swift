/// Lowercase hexadecimal text of bytes: how Pixiv's `X-Client-Hash` header writes its ``MD5``
/// digest.
package enum Hex {
    /// Two lowercase hex digits for each byte of `bytes`, high nibble first.
    package static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static let digits = Array("0123456789abcdef".utf8)
}
