import Foundation

/// A forward-only reader of standard JSON over the bytes of one line, built for the journal's
/// records: no intermediate tree, keys compared as bytes, strings copied once.
///
/// It accepts any standard JSON formatting (whitespace, key order, every escape including
/// surrogate pairs) and rejects what JSON rejects: raw control characters in strings, invalid
/// UTF-8, lone surrogates, trailing garbage, and arrays and objects nested deeper than
/// ``maximumDepth`` (every reader of nested values recurses, so a line of a hundred thousand
/// `[` would otherwise overflow the reading thread's stack).
struct JSONReader {
    /// How deep arrays and objects may nest: far above any record the library writes (a sync
    /// record nests four levels), far below what a thread's stack holds.
    static let maximumDepth = 128

    let bytes: UnsafeRawBufferPointer
    private(set) var position: Int
    /// The arrays and objects the reader is inside, and how many it allows.
    private var depth = 0
    private let depthLimit: Int
    /// Where ``readCachedString()`` (and a reader of values that repeat, such as tags) finds
    /// what it has made before.
    private(set) var cache: DecodingCache?

    init(_ bytes: UnsafeRawBufferPointer, position: Int = 0, cache: DecodingCache? = nil, maximumDepth: Int = JSONReader.maximumDepth) {
        self.bytes = bytes
        self.position = position
        self.cache = cache
        depthLimit = maximumDepth
    }

    // MARK: Structure

    func error(_ message: String, at offset: Int? = nil) -> JSONReadError {
        JSONReadError(offset: offset ?? position, message: message)
    }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// The next non-whitespace byte, not consumed; `nil` at the end.
    mutating func peek() -> UInt8? {
        skipWhitespace()
        return position < bytes.count ? bytes[position] : nil
    }

    mutating func expect(_ byte: UInt8) throws {
        guard peek() == byte else {
            throw error("expected '\(Character(Unicode.Scalar(byte)))'\(found)")
        }
        position += 1
    }

    private var found: String {
        position < bytes.count ? " but found '\(Character(Unicode.Scalar(bytes[position])))'" : " but the line ended"
    }

    /// Requires that nothing but whitespace is left.
    mutating func expectEnd() throws {
        if peek() != nil { throw error("unexpected text after the record") }
    }

    /// Reads an object, calling `field` with each key (as raw bytes of the line, or of a
    /// decoded copy when the key has escapes) with the reader positioned at the value.
    mutating func readObject(_ field: (inout JSONReader, UnsafeRawBufferPointer) throws -> Void) throws {
        try expect(UInt8(ascii: "{"))
        try enterNesting()
        defer { depth -= 1 }
        if peek() == UInt8(ascii: "}") {
            position += 1
            return
        }
        while true {
            guard peek() == UInt8(ascii: "\"") else { throw error("expected a field name\(found)") }
            let keyStart = position + 1
            if let end = scanPlainString() {
                try expect(UInt8(ascii: ":"))
                try field(&self, UnsafeRawBufferPointer(rebasing: bytes[keyStart..<end]))
            } else {
                let key = Array(try readString().utf8)
                try expect(UInt8(ascii: ":"))
                try key.withUnsafeBytes { try field(&self, $0) }
            }
            switch peek() {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"): position += 1; return
            default: throw error("expected ',' or '}' in an object\(found)")
            }
        }
    }

    /// Reads an array, calling `element` with the reader positioned at each element.
    mutating func readArray(_ element: (inout JSONReader) throws -> Void) throws {
        try expect(UInt8(ascii: "["))
        try enterNesting()
        defer { depth -= 1 }
        if peek() == UInt8(ascii: "]") {
            position += 1
            return
        }
        while true {
            try element(&self)
            switch peek() {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"): position += 1; return
            default: throw error("expected ',' or ']' in an array\(found)")
            }
        }
    }

    private mutating func enterNesting() throws {
        guard depth < depthLimit else {
            throw error("arrays and objects nested more than \(depthLimit) deep", at: position - 1)
        }
        depth += 1
    }

    /// Skips one value of any kind, checking that it is well formed.
    mutating func skipValue() throws {
        switch peek() {
        case UInt8(ascii: "{"): try readObject { reader, _ in try reader.skipValue() }
        case UInt8(ascii: "["): try readArray { try $0.skipValue() }
        case UInt8(ascii: "\""): _ = try readString()
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try readBool()
        case UInt8(ascii: "n"): try readNull()
        default: _ = try readNumberText()
        }
    }

    // MARK: Scalars

    /// If the string at the reader has no escapes, consumes it and returns the index of its
    /// closing quote; otherwise leaves the reader where it was and returns `nil`.
    private mutating func scanPlainString() -> Int? {
        guard let end = plainStringEnd(from: position + 1) else { return nil }
        position = end + 1
        return end
    }

    /// The index of the quote that ends a string whose contents start at `start`, when they
    /// hold no escape and no control character; `nil` otherwise.
    private func plainStringEnd(from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { return index }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            index += 1
        }
        return nil
    }

    /// The bytes of the value at the reader when it is an array of strings without escapes,
    /// written without whitespace (as the journal writes a tag), for a cache to key on; `nil`
    /// for any other value. Consumes nothing but the whitespace before the value.
    private mutating func compactStringArray() -> UnsafeRawBufferPointer? {
        guard peek() == UInt8(ascii: "[") else { return nil }
        var index = position + 1
        while index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
            guard let end = plainStringEnd(from: index + 1), end + 1 < bytes.count else { return nil }
            index = end + 1
            if bytes[index] == UInt8(ascii: "]") { return UnsafeRawBufferPointer(rebasing: bytes[position...index]) }
            guard bytes[index] == UInt8(ascii: ",") else { return nil }
            index += 1
        }
        return nil
    }

    mutating func readString() throws -> String {
        guard peek() == UInt8(ascii: "\"") else { throw error("expected a string\(found)") }
        let start = position + 1
        if let end = scanPlainString() {
            return try makeString(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), at: start)
        }
        return try readEscapedString()
    }

    /// Reads a string that is likely to repeat (a tag, an artist's name): a string seen before
    /// comes from the cache, without a new allocation or a second validation.
    mutating func readCachedString() throws -> String {
        guard cache != nil, peek() == UInt8(ascii: "\"") else { return try readString() }
        let start = position + 1
        guard let end = scanPlainString() else { return try readEscapedString() }
        let utf8 = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
        if let known = cache?.string(for: utf8) { return known }
        let string = try makeString(utf8, at: start)
        cache?.remember(string, for: utf8)
        return string
    }

    /// Reads a tag, which is likely to repeat: one written in the same bytes before
    /// comes from the cache; any other is read by `read` and remembered.
    mutating func readCachedTag(_ read: (inout JSONReader) throws -> ArtworkTag) throws -> ArtworkTag {
        guard cache != nil, let json = compactStringArray() else { return try read(&self) }
        if let known = cache?.tag(for: json) {
            position += json.count
            return known
        }
        let tag = try read(&self)
        cache?.remember(tag, for: json)
        return tag
    }

    private func makeString(_ utf8: UnsafeRawBufferPointer, at offset: Int) throws -> String {
        guard isValidUTF8(utf8) else { throw error("the string is not valid UTF-8", at: offset) }
        return String(decoding: utf8.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
    }

    mutating func readOptionalString() throws -> String? {
        if peek() == UInt8(ascii: "n") {
            try readNull()
            return nil
        }
        return try readString()
    }

    private mutating func readEscapedString() throws -> String {
        let start = position
        position += 1
        var utf8: [UInt8] = []
        while true {
            guard position < bytes.count else { throw error("the string is not closed", at: start) }
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return try utf8.withUnsafeBytes { try makeString($0, at: start + 1) }
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { throw error("the string is not closed", at: start) }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""): utf8.append(0x22)
                case UInt8(ascii: "\\"): utf8.append(0x5C)
                case UInt8(ascii: "/"): utf8.append(0x2F)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    let escapeStart = position - 2
                    var scalar = try readHex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                              bytes[position + 1] == UInt8(ascii: "u") else {
                            throw error("a lone high surrogate (\\u\(hex(scalar))): no low surrogate follows it", at: escapeStart)
                        }
                        position += 2
                        let low = try readHex4()
                        guard (0xDC00...0xDFFF).contains(low) else {
                            throw error("a high surrogate (\\u\(hex(scalar))) is followed by \\u\(hex(low)), not a low surrogate", at: escapeStart)
                        }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw error("a lone low surrogate (\\u\(hex(scalar)))", at: escapeStart)
                    }
                    utf8.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
                default:
                    throw error("'\\\(Character(Unicode.Scalar(escape)))' is not a JSON escape", at: position - 2)
                }
            default:
                guard byte >= 0x20 else { throw error("a control character (0x\(hex(UInt32(byte)))) must be escaped in a string", at: position - 1) }
                utf8.append(byte)
            }
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

    mutating func readBool() throws -> Bool {
        if try consumeLiteral("true") { return true }
        if try consumeLiteral("false") { return false }
        throw error("expected true or false\(found)")
    }

    mutating func readNull() throws {
        guard try consumeLiteral("null") else { throw error("expected null\(found)") }
    }

    /// Whether the next value is `null`; consumes it if so.
    mutating func readNullIfPresent() throws -> Bool {
        peek() == UInt8(ascii: "n") ? try consumeLiteral("null") : false
    }

    private mutating func consumeLiteral(_ literal: StaticString) throws -> Bool {
        skipWhitespace()
        let count = literal.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        for index in 0..<count where bytes[position + index] != literal.utf8Start[index] { return false }
        position += count
        return true
    }

    /// Reads an integer; a number with a fraction or exponent is rejected.
    mutating func readInt() throws -> Int {
        skipWhitespace()
        let start = position
        var negative = false
        if position < bytes.count && bytes[position] == UInt8(ascii: "-") {
            negative = true
            position += 1
        }
        // A negative number is accumulated below zero, so that `Int.min`, whose magnitude has
        // no positive `Int`, reads as the writer wrote it.
        var value = 0
        var digits = 0
        while position < bytes.count, case let byte = bytes[position], byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            let digit = Int(byte - UInt8(ascii: "0"))
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !overflow1 && !overflow2 else { throw error("the integer is too large", at: start) }
            value = next
            digits += 1
            position += 1
        }
        guard digits > 0 else { throw error("expected an integer\(found)", at: start) }
        guard digits == 1 || bytes[position - digits] != UInt8(ascii: "0") else {
            throw error("expected a number: JSON numbers have no leading zeros", at: start)
        }
        if position < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[position]) {
            throw error("expected an integer, found a fraction", at: start)
        }
        return value
    }

    mutating func readDouble() throws -> Double {
        skipWhitespace()
        let start = position
        // Most numbers the journal writes are whole: read those without making a string.
        var index = position
        if index < bytes.count && bytes[index] == UInt8(ascii: "-") { index += 1 }
        var whole: Int64 = 0
        let digitsStart = index
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9"), index - digitsStart < 15 {
            whole = whole * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
            index += 1
        }
        let digits = index - digitsStart
        let next = index < bytes.count ? bytes[index] : 0
        if digits > 0, digits < 15, !(digits > 1 && bytes[digitsStart] == UInt8(ascii: "0")),
           next != UInt8(ascii: "."), next != UInt8(ascii: "e"), next != UInt8(ascii: "E"),
           !(next >= UInt8(ascii: "0") && next <= UInt8(ascii: "9")) {
            position = index
            return digitsStart > start ? -Double(whole) : Double(whole)
        }
        let text = try readNumberText()
        // A number too large for a Double (1e999) would read as infinity, which the writer can
        // never write back: refused like any other value that is not one.
        guard let value = Double(text), value.isFinite else { throw error("'\(text)' is not a finite number", at: start) }
        return value
    }

    /// Reads a number's text, checking it against JSON's number grammar.
    mutating func readNumberText() throws -> String {
        skipWhitespace()
        let start = position
        func digits() -> Int {
            let from = position
            while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") { position += 1 }
            return position - from
        }
        if position < bytes.count && bytes[position] == UInt8(ascii: "-") { position += 1 }
        let intDigits = digits()
        guard intDigits > 0, !(intDigits > 1 && bytes[position - intDigits] == UInt8(ascii: "0")) else {
            throw error("expected a number", at: start)
        }
        if position < bytes.count && bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { throw error("a number's fraction needs digits", at: start) }
        }
        if position < bytes.count && (bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E")) {
            position += 1
            if position < bytes.count && (bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-")) { position += 1 }
            guard digits() > 0 else { throw error("a number's exponent needs digits", at: start) }
        }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    }
}
