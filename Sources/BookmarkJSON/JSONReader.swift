import Foundation

/// A forward-only reader of standard JSON over the bytes of one line, built for the journal's
/// records: no intermediate tree, keys compared as bytes, strings copied once.
///
/// It accepts any standard JSON formatting (whitespace, key order, every escape including
/// surrogate pairs) and rejects what JSON rejects: raw control characters in strings, invalid
/// UTF-8, lone surrogates, trailing garbage, and arrays and objects nested deeper than
/// ``maximumDepth`` (every reader of nested values recurses, so a line of a hundred thousand
/// `[` would otherwise overflow the reading thread's stack).
package struct JSONReader {
    /// How deep arrays and objects may nest: far above any record the library writes (a sync
    /// record nests four levels), far below what a thread's stack holds.
    package static let maximumDepth = 128

    package let bytes: UnsafeRawBufferPointer
    package internal(set) var position: Int
    /// The arrays and objects the reader is inside, and how many it allows.
    private var depth = 0
    private let depthLimit: Int
    /// Where ``readCachedString()`` (and a reader of values that repeat, such as tags) finds
    /// what it has made before.
    package private(set) var cache: DecodingCache?

    package init(_ bytes: UnsafeRawBufferPointer, position: Int = 0, cache: DecodingCache? = nil, maximumDepth: Int = JSONReader.maximumDepth) {
        self.bytes = bytes
        self.position = position
        self.cache = cache
        depthLimit = maximumDepth
    }

    // MARK: Structure

    package func error(_ message: String, at offset: Int? = nil) -> JSONReadError {
        JSONReadError(offset: offset ?? position, message: message)
    }

    package mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// The next non-whitespace byte, not consumed; `nil` at the end.
    package mutating func peek() -> UInt8? {
        skipWhitespace()
        return position < bytes.count ? bytes[position] : nil
    }

    package mutating func expect(_ byte: UInt8) throws {
        guard peek() == byte else {
            throw error("expected '\(Character(Unicode.Scalar(byte)))'\(found)")
        }
        position += 1
    }

    /// What the reader found instead, for the end of an error's message.
    var found: String {
        position < bytes.count ? " but found '\(Character(Unicode.Scalar(bytes[position])))'" : " but the line ended"
    }

    /// Requires that nothing but whitespace is left.
    package mutating func expectEnd() throws {
        if peek() != nil { throw error("unexpected text after the record") }
    }

    /// Reads an object, calling `field` with each key (as raw bytes of the line, or of a
    /// decoded copy when the key has escapes) with the reader positioned at the value.
    package mutating func readObject(_ field: (inout JSONReader, UnsafeRawBufferPointer) throws -> Void) throws {
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
            if let end = scanPlainString()?.end {
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
    package mutating func readArray(_ element: (inout JSONReader) throws -> Void) throws {
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
    package mutating func skipValue() throws {
        switch peek() {
        case UInt8(ascii: "{"): try readObject { reader, _ in try reader.skipValue() }
        case UInt8(ascii: "["): try readArray { try $0.skipValue() }
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try readBool()
        case UInt8(ascii: "n"): try readNull()
        default: _ = try readNumberText()
        }
    }

    // MARK: Scalars

    /// If the string at the reader has no escapes, consumes it and returns the index of its
    /// closing quote and whether its bytes are all ASCII; otherwise leaves the reader where it
    /// was and returns `nil`.
    private mutating func scanPlainString() -> (end: Int, isASCII: Bool)? {
        guard let scan = plainStringScan(from: position + 1) else { return nil }
        position = scan.end + 1
        return scan
    }

    /// The index of the quote that ends a string whose contents start at `start`, when they
    /// hold no escape and no control character; `nil` otherwise.
    func plainStringEnd(from start: Int) -> Int? {
        plainStringScan(from: start)?.end
    }

    /// ``plainStringEnd(from:)``, and whether the string's bytes are all ASCII: such a string
    /// is valid UTF-8 without a check of its own (most of what the journal writes: URLs, dates,
    /// keys).
    func plainStringScan(from start: Int) -> (end: Int, isASCII: Bool)? {
        let scan = specialByteScan(from: start)
        guard scan.index < bytes.count, bytes[scan.index] == UInt8(ascii: "\"") else { return nil }
        return (scan.index, scan.isASCII)
    }

    /// The index of the first quote, backslash or control character at or after `start` (the
    /// end of the bytes when there is none), and whether the bytes before it are all ASCII.
    @inline(__always)
    func specialByteScan(from start: Int) -> (index: Int, isASCII: Bool) {
        var index = start
        // The bytes passed so far, OR-ed together: bit 7 of a byte is set if any was not ASCII.
        var seen: UInt64 = 0
        while index < bytes.count {
            // Eight bytes at a time while none is a quote, a backslash or a control character,
            // then straight to the first that is.
            if bytes.count - index >= 8 {
                let word = word(at: index, of: bytes)
                let flags = escapeFlags(word)
                if flags == 0 {
                    seen |= word
                    index += 8
                    continue
                }
                let before = flags.trailingZeroBitCount / 8
                seen |= before == 0 ? 0 : word & (UInt64.max >> (64 - 8 * before))
                return (index + before, seen & 0x8080_8080_8080_8080 == 0)
            }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            seen |= UInt64(byte)
            index += 1
        }
        return (index, seen & 0x8080_8080_8080_8080 == 0)
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

    package mutating func readString() throws -> String {
        guard peek() == UInt8(ascii: "\"") else { throw error("expected a string\(found)") }
        let start = position + 1
        if let (end, isASCII) = scanPlainString() {
            return try makeString(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), at: start, isASCII: isASCII)
        }
        return try readEscapedString()
    }

    /// Skips a string, checking it as ``readString()`` does, without making it (unless it has
    /// escapes): the fields a reader does not know cost no allocation.
    private mutating func skipString() throws {
        let start = position + 1
        guard let (end, isASCII) = scanPlainString() else { return try skipEscapedString() }
        guard isASCII || isValidUTF8(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) else {
            throw error("the string is not valid UTF-8", at: start)
        }
    }

    /// Reads a string that is likely to repeat (a tag, an artist's name): a string seen before
    /// comes from the cache, without a new allocation or a second validation.
    package mutating func readCachedString() throws -> String {
        guard cache != nil, peek() == UInt8(ascii: "\"") else { return try readString() }
        let start = position + 1
        guard let (end, isASCII) = scanPlainString() else { return try readEscapedString() }
        let utf8 = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
        if let known = cache?.string(for: utf8) { return known }
        let string = try makeString(utf8, at: start, isASCII: isASCII)
        cache?.remember(string, for: utf8)
        return string
    }

    /// Reads an array of strings and `null`s that is likely to repeat (a tag: its name and its
    /// translation), calling `element` with each in order: an array written in the same bytes
    /// before comes from the cache, its strings neither read, validated nor allocated again.
    package mutating func readCachedStringArray(_ element: (String?) throws -> Void) throws {
        guard cache != nil, let json = compactStringArray() else {
            return try readArray { reader in try element(reader.readNullIfPresent() ? nil : reader.readCachedString()) }
        }
        if let known = cache?.strings(forArray: json) {
            position += json.count
            for string in known { try element(string) }
            return
        }
        // A compact array holds strings only; remembered once every one of them has read.
        var strings: [String] = []
        try readArray { reader in strings.append(try reader.readCachedString()) }
        cache?.remember(strings, forArray: json)
        for string in strings { try element(string) }
    }

    private func makeString(_ utf8: UnsafeRawBufferPointer, at offset: Int, isASCII: Bool = false) throws -> String {
        guard isASCII || isValidUTF8(utf8) else { throw error("the string is not valid UTF-8", at: offset) }
        return String(decoding: utf8.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
    }

    package mutating func readOptionalString() throws -> String? {
        if peek() == UInt8(ascii: "n") {
            try readNull()
            return nil
        }
        return try readString()
    }

    package mutating func readBool() throws -> Bool {
        if try consumeLiteral("true") { return true }
        if try consumeLiteral("false") { return false }
        throw error("expected true or false\(found)")
    }

    package mutating func readNull() throws {
        guard try consumeLiteral("null") else { throw error("expected null\(found)") }
    }

    /// Whether the next value is `null`; consumes it if so.
    package mutating func readNullIfPresent() throws -> Bool {
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
}
