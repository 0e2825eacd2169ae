import BookmarkJSON

// How Pixiv's app API writes a string in its JSON, as answers recorded from it show (PHP's
// `json_encode`): every `/` as `\/`, every character outside ASCII as `\u` and four lower-case
// hex digits (a surrogate pair above U+FFFF), and `&`, `<` and `>` as `\u0026`, `\u003C` and
// `\u003E`. A title of ten kana is sixty bytes on the wire, and every URL is escaped: a client
// tried only on raw UTF-8 would never meet what every real page holds.

extension JSONWriter {
    /// Writes `string` quoted and escaped as Pixiv's app API writes it.
    mutating func pixivString(_ string: String) {
        byte(UInt8(ascii: "\""))
        string.withUTF8Bytes { utf8 in
            // Runs of bytes that need no escape are copied whole.
            var copied = 0, index = 0
            while index < utf8.count {
                let lead = utf8[index]
                let escape: StaticString?
                switch lead {
                case UInt8(ascii: "\""): escape = #"\""#
                case UInt8(ascii: "\\"): escape = #"\\"#
                case UInt8(ascii: "/"): escape = #"\/"#
                case UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"): escape = nil
                case 0x08: escape = #"\b"#
                case 0x0C: escape = #"\f"#
                case 0x0A: escape = #"\n"#
                case 0x0D: escape = #"\r"#
                case 0x09: escape = #"\t"#
                case 0x20...0x7F:
                    index += 1
                    continue
                default: escape = nil
                }
                raw(UnsafeRawBufferPointer(rebasing: utf8[copied..<index]))
                if let escape {
                    raw(escape)
                    index += 1
                } else if lead < 0x80 {
                    pixivEscape(Unicode.Scalar(lead))
                    index += 1
                } else {
                    let (scalar, length) = Self.scalar(in: utf8, at: index)
                    pixivEscape(scalar)
                    index += length
                }
                copied = index
            }
            raw(UnsafeRawBufferPointer(rebasing: utf8[copied...]))
        }
        byte(UInt8(ascii: "\""))
    }

    /// `scalar` as `\u` escapes: one, or a surrogate pair above U+FFFF; `&`, `<` and `>` in
    /// the upper-case hex PHP's flags for them write.
    mutating func pixivEscape(_ scalar: Unicode.Scalar) {
        switch scalar {
        case "&": raw(#"\u0026"#)
        case "<": raw(#"\u003C"#)
        case ">": raw(#"\u003E"#)
        default: pixivEscape(scalar.value)
        }
    }

    private mutating func pixivEscape(_ scalar: UInt32) {
        if scalar < 0x10000 {
            pixivEscape(UInt16(scalar))
        } else {
            pixivEscape(UInt16(0xD800 + (scalar - 0x10000) >> 10))
            pixivEscape(UInt16(0xDC00 + (scalar - 0x10000) & 0x3FF))
        }
    }

    /// `\u` and the four lower-case hex digits of `unit`.
    private mutating func pixivEscape(_ unit: UInt16) {
        raw(#"\u"#)
        for shift: UInt16 in [12, 8, 4, 0] {
            let digit = UInt8(unit >> shift & 0xF)
            byte(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10)
        }
    }

    /// The scalar whose UTF-8 starts at `index` of `utf8` (a string's: well formed), and its
    /// length in bytes.
    private static func scalar(in utf8: UnsafeRawBufferPointer, at index: Int) -> (UInt32, Int) {
        let lead = UInt32(utf8[index])
        func next(_ offset: Int) -> UInt32 { UInt32(utf8[index + offset]) & 0x3F }
        switch lead {
        case 0xF0...: return ((lead & 0x07) << 18 | next(1) << 12 | next(2) << 6 | next(3), 4)
        case 0xE0...: return ((lead & 0x0F) << 12 | next(1) << 6 | next(2), 3)
        default: return ((lead & 0x1F) << 6 | next(1), 2)
        }
    }
}
