// Strings with escapes: walked and checked, then unescaped into the new string's storage; or
// only walked and checked (a value a reader skips). Pixiv's app API escapes every
// `/` and every character outside ASCII, so every URL and every Japanese title or tag it sends
// comes this way.

extension JSONReader {
    /// Reads the string with escapes at the reader, which is at its opening quote.
    ///
    /// Two passes over its bytes: the walk that checks it and finds its end, then the unescaping,
    /// written straight into the new string's storage. Escapes only shorten a string (`\/` is
    /// one byte, `\uXXXX` at most three), so its bytes between the quotes bound its UTF-8.
    mutating func readEscapedString() throws -> String {
        let start = position
        try skipEscapedString()
        let escaped = UnsafeRawBufferPointer(rebasing: bytes[(start + 1)..<(position - 1)])
        return String(unsafeUninitializedCapacity: escaped.count) { Self.unescape(escaped, into: $0) }
    }

    /// Walks the string with escapes at the reader (at its opening quote) to past its closing
    /// quote, checking it as ``readEscapedString()`` reads it, without making it.
    ///
    /// The plain bytes between escapes are checked run by run: an escape always makes whole
    /// characters, so the string is valid UTF-8 exactly when every run is.
    mutating func skipEscapedString() throws {
        let start = position
        position += 1
        while true {
            let run = specialByteScan(from: position)
            if !run.isASCII, !isValidUTF8(UnsafeRawBufferPointer(rebasing: bytes[position..<run.index])) {
                throw error("the string is not valid UTF-8", at: start + 1)
            }
            position = run.index
            guard position < bytes.count else { throw error("the string is not closed", at: start) }
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: "\"") { return }
            guard byte == UInt8(ascii: "\\") else {
                throw error("a control character (0x\(hex(UInt32(byte)))) must be escaped in a string", at: position - 1)
            }
            guard position < bytes.count else { throw error("the string is not closed", at: start) }
            let escape = bytes[position]
            position += 1
            switch escape {
            case UInt8(ascii: "/"), UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                 UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                continue
            case UInt8(ascii: "u"):
                _ = try readEscapedScalar(at: position - 2)
            default:
                throw error("'\\\(Character(Unicode.Scalar(escape)))' is not a JSON escape", at: position - 2)
            }
        }
    }

    /// Writes the UTF-8 of `escaped`, a string's bytes between its quotes that
    /// ``skipEscapedString()`` checked, to `utf8` (at least as long); returns how many bytes it
    /// wrote.
    ///
    /// Eight bytes at a time up to the next backslash: the output never runs ahead of the input,
    /// so a whole word written where fewer bytes belong stays inside `utf8`, and what follows
    /// overwrites the excess.
    private static func unescape(_ escaped: UnsafeRawBufferPointer, into utf8: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let output = UnsafeMutableRawPointer(utf8.baseAddress!)
        let count = escaped.count
        var input = 0, written = 0
        while input < count {
            if count - input >= 8 {
                let word = escaped.loadUnaligned(fromByteOffset: input, as: UInt64.self)
                output.storeBytes(of: word, toByteOffset: written, as: UInt64.self)
                let backslashes = flags(of: UInt8(ascii: "\\"), in: UInt64(littleEndian: word))
                guard backslashes != 0 else {
                    input += 8
                    written += 8
                    continue
                }
                let plain = backslashes.trailingZeroBitCount / 8
                input += plain
                written += plain
            } else if escaped[input] != UInt8(ascii: "\\") {
                output.storeBytes(of: escaped[input], toByteOffset: written, as: UInt8.self)
                input += 1
                written += 1
                continue
            }
            // At a backslash, which the walk checked opens a whole escape.
            let escape = escaped[input + 1]
            input += 2
            let byte: UInt8
            switch escape {
            case UInt8(ascii: "u"):
                var scalar = hexValue(escaped, at: input)
                input += 4
                if scalar >= 0xD800, scalar <= 0xDBFF {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (hexValue(escaped, at: input + 2) - 0xDC00)
                    input += 6
                }
                written += writeUTF8(of: scalar, to: output + written)
                continue
            case UInt8(ascii: "b"): byte = 0x08
            case UInt8(ascii: "f"): byte = 0x0C
            case UInt8(ascii: "n"): byte = 0x0A
            case UInt8(ascii: "r"): byte = 0x0D
            case UInt8(ascii: "t"): byte = 0x09
            default: byte = escape // `/`, `"` and `\` stand for themselves.
            }
            output.storeBytes(of: byte, toByteOffset: written, as: UInt8.self)
            written += 1
        }
        return written
    }

    /// The value of the four hex digits at `offset`, which the walk checked.
    private static func hexValue(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        var value: UInt32 = 0
        for index in offset..<(offset + 4) {
            let byte = UInt32(bytes[index])
            // '0'–'9' are 0x30–0x39; 'a'–'f' and 'A'–'F' differ by 0x20 and end in 1–6.
            value = value << 4 | (byte <= 0x39 ? byte - 0x30 : (byte | 0x20) - 0x57)
        }
        return value
    }

    /// Writes the UTF-8 of `scalar` (no surrogate, at most U+10FFFF) at `output`; returns its
    /// length.
    private static func writeUTF8(of scalar: UInt32, to output: UnsafeMutableRawPointer) -> Int {
        switch scalar {
        case ..<0x80:
            output.storeBytes(of: UInt8(scalar), as: UInt8.self)
            return 1
        case ..<0x800:
            output.storeBytes(of: UInt8(0xC0 | scalar >> 6), as: UInt8.self)
            output.storeBytes(of: UInt8(0x80 | scalar & 0x3F), toByteOffset: 1, as: UInt8.self)
            return 2
        case ..<0x10000:
            output.storeBytes(of: UInt8(0xE0 | scalar >> 12), as: UInt8.self)
            output.storeBytes(of: UInt8(0x80 | scalar >> 6 & 0x3F), toByteOffset: 1, as: UInt8.self)
            output.storeBytes(of: UInt8(0x80 | scalar & 0x3F), toByteOffset: 2, as: UInt8.self)
            return 3
        default:
            output.storeBytes(of: UInt8(0xF0 | scalar >> 18), as: UInt8.self)
            output.storeBytes(of: UInt8(0x80 | scalar >> 12 & 0x3F), toByteOffset: 1, as: UInt8.self)
            output.storeBytes(of: UInt8(0x80 | scalar >> 6 & 0x3F), toByteOffset: 2, as: UInt8.self)
            output.storeBytes(of: UInt8(0x80 | scalar & 0x3F), toByteOffset: 3, as: UInt8.self)
            return 4
        }
    }

    /// The scalar of the `\u` escape at `escapeStart`, the reader after its `u`: a pair of
    /// escaped surrogates makes one scalar; a surrogate alone is refused.
    private mutating func readEscapedScalar(at escapeStart: Int) throws -> UInt32 {
        let scalar = try readHex4()
        if (0xD800...0xDBFF).contains(scalar) {
            guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                throw error("a lone high surrogate (\\u\(hex(scalar))): no low surrogate follows it", at: escapeStart)
            }
            position += 2
            let low = try readHex4()
            guard (0xDC00...0xDFFF).contains(low) else {
                throw error("a high surrogate (\\u\(hex(scalar))) is followed by \\u\(hex(low)), not a low surrogate", at: escapeStart)
            }
            return 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        if (0xDC00...0xDFFF).contains(scalar) {
            throw error("a lone low surrogate (\\u\(hex(scalar)))", at: escapeStart)
        }
        return scalar
    }

    private func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private mutating func readHex4() throws -> UInt32 {
        guard position + 4 <= bytes.count else { throw error("a \\u escape needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = hexDigitValue(bytes[position]) else { throw error("a \\u escape needs four hex digits") }
            value = value << 4 | digit
            position += 1
        }
        return value
    }
}
