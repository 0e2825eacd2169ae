// Strings with escapes: read into their UTF-8 a run of plain bytes at a time, or walked and
// checked without keeping anything (a value a reader skips). Pixiv's app API escapes every
// `/` and every character outside ASCII, so every URL and every Japanese title or tag it sends
// comes this way.

extension JSONReader {
    /// Reads the string with escapes at the reader, which is at its opening quote.
    mutating func readEscapedString() throws -> String {
        // The reader's buffer (the size of the longest string so far), taken out while the
        // walk (which mutates the reader too) writes it, and put back for the next string.
        var utf8: [UInt8] = []
        swap(&utf8, &unescaped)
        defer { swap(&utf8, &unescaped) }
        utf8.removeAll(keepingCapacity: true)
        try walkEscapedString(keepingIn: &utf8, keeps: true)
        return String(decoding: utf8, as: UTF8.self)
    }

    /// Walks the string with escapes at the reader (at its opening quote), checking it as
    /// ``readEscapedString()`` does, without making it.
    mutating func skipEscapedString() throws {
        var nothing: [UInt8] = []
        try walkEscapedString(keepingIn: &nothing, keeps: false)
    }

    /// Walks the string at the reader (at its opening quote) to past its closing quote,
    /// appending its UTF-8 to `utf8` when `keeps` is true.
    ///
    /// The plain bytes between escapes are checked run by run: an escape always makes whole
    /// characters, so the string is valid UTF-8 exactly when every run is.
    private mutating func walkEscapedString(keepingIn utf8: inout [UInt8], keeps: Bool) throws {
        let start = position
        position += 1
        while true {
            let run = specialByteScan(from: position)
            if run.index > position {
                let plain = UnsafeRawBufferPointer(rebasing: bytes[position..<run.index])
                guard run.isASCII || isValidUTF8(plain) else { throw error("the string is not valid UTF-8", at: start + 1) }
                // Typed, so that the array copies the run whole rather than byte by byte.
                if keeps { utf8.append(contentsOf: plain.assumingMemoryBound(to: UInt8.self)) }
                position = run.index
            }
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
            let scalar: UInt32
            switch escape {
            case UInt8(ascii: "\""): scalar = 0x22
            case UInt8(ascii: "\\"): scalar = 0x5C
            case UInt8(ascii: "/"): scalar = 0x2F
            case UInt8(ascii: "b"): scalar = 0x08
            case UInt8(ascii: "f"): scalar = 0x0C
            case UInt8(ascii: "n"): scalar = 0x0A
            case UInt8(ascii: "r"): scalar = 0x0D
            case UInt8(ascii: "t"): scalar = 0x09
            case UInt8(ascii: "u"): scalar = try readEscapedScalar(at: position - 2)
            default:
                throw error("'\\\(Character(Unicode.Scalar(escape)))' is not a JSON escape", at: position - 2)
            }
            if keeps { Self.appendUTF8(of: scalar, to: &utf8) }
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

    /// Appends the UTF-8 of `scalar`, a Unicode scalar value (no surrogate, at most U+10FFFF).
    private static func appendUTF8(of scalar: UInt32, to utf8: inout [UInt8]) {
        switch scalar {
        case ..<0x80:
            utf8.append(UInt8(scalar))
        case ..<0x800:
            utf8.append(UInt8(0xC0 | scalar >> 6))
            utf8.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x10000:
            utf8.append(UInt8(0xE0 | scalar >> 12))
            utf8.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            utf8.append(UInt8(0x80 | scalar & 0x3F))
        default:
            utf8.append(UInt8(0xF0 | scalar >> 18))
            utf8.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            utf8.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            utf8.append(UInt8(0x80 | scalar & 0x3F))
        }
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
