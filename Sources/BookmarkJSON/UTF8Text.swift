import Foundation

// Text as UTF-8 bytes: the checks the JSON reader makes, and the comparisons and hashes of the
// tag table and the decoding cache, which key strings by their bytes.

extension UnsafeRawBufferPointer {
    /// Whether these bytes spell `literal`.
    package func equals(_ literal: StaticString) -> Bool {
        count == literal.utf8CodeUnitCount && (count == 0 || sameBytes(baseAddress!, literal.utf8Start, count: count))
    }
}

/// Whether the `count` bytes at `a` and at `b` are the same. Keys and short strings are a few
/// bytes: up to 16 compare as two overlapping words, without a call to `memcmp`.
@inline(__always)
package func sameBytes(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Bool {
    if count >= 8 && count <= 16 {
        return a.loadUnaligned(as: UInt64.self) == b.loadUnaligned(as: UInt64.self)
            && a.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self) == b.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
    }
    if count < 8 {
        for index in 0..<count where a.load(fromByteOffset: index, as: UInt8.self) != b.load(fromByteOffset: index, as: UInt8.self) {
            return false
        }
        return true
    }
    return memcmp(a, b, count) == 0
}

/// Whether `bytes` are well-formed UTF-8: no stray continuation bytes, overlong forms,
/// surrogates or code points above U+10FFFF.
package func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var index = 0
    let count = bytes.count
    while index < count {
        // Eight ASCII bytes at a time.
        if count - index >= 8, bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
            index += 8
            continue
        }
        let lead = bytes[index]
        if lead < 0x80 {
            index += 1
            continue
        }
        func continuation(_ offset: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            index + offset < count && range.contains(bytes[index + offset])
        }
        switch lead {
        case 0xC2...0xDF:
            guard continuation(1) else { return false }
            index += 2
        case 0xE0:
            guard continuation(1, 0xA0...0xBF), continuation(2) else { return false }
            index += 3
        case 0xE1...0xEC, 0xEE...0xEF:
            guard continuation(1), continuation(2) else { return false }
            index += 3
        case 0xED:
            guard continuation(1, 0x80...0x9F), continuation(2) else { return false }
            index += 3
        case 0xF0:
            guard continuation(1, 0x90...0xBF), continuation(2), continuation(3) else { return false }
            index += 4
        case 0xF1...0xF3:
            guard continuation(1), continuation(2), continuation(3) else { return false }
            index += 4
        case 0xF4:
            guard continuation(1, 0x80...0x8F), continuation(2), continuation(3) else { return false }
            index += 4
        default:
            return false
        }
    }
    return true
}

/// Whether any of the eight bytes in `word` is a control character, a quote or a backslash:
/// what a JSON string must escape, and what ends a reader's scan of one.
@inline(__always)
func needsEscape(_ word: UInt64) -> Bool {
    escapeFlags(word) != 0
}

/// The eight bytes at `offset` of `bytes`, the first in the lowest bits on any platform.
@inline(__always)
func word(at offset: Int, of bytes: UnsafeRawBufferPointer) -> UInt64 {
    UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
}

/// The high bit of each byte of `word` that a JSON string must escape (a control character, a
/// quote or a backslash), by bit tricks; bytes of 0x80 and above, the rest of a UTF-8
/// sequence, are never flagged. A borrow can flag a byte above one that is flagged rightly,
/// never one below it: the lowest flag is exact, so with `word` read by
/// ``word(at:of:)``, `flags.trailingZeroBitCount / 8` is the first such byte's offset.
@inline(__always)
func escapeFlags(_ word: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
    let control = (word &- ones &* 0x20) & ~word & highs
    return control | flags(of: UInt8(ascii: "\""), in: word) | flags(of: UInt8(ascii: "\\"), in: word)
}

/// The high bit of each byte of `word` that is `byte`, by bit tricks. A borrow can flag a byte
/// above one that is flagged rightly, never one below it: the lowest flag is exact.
@inline(__always)
func flags(of byte: UInt8, in word: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
    let zeroWhereEqual = word ^ (ones &* UInt64(byte))
    return (zeroWhereEqual &- ones) & ~zeroWhereEqual & highs
}

/// The value of an ASCII hex digit, either case; `nil` for any other byte.
package func hexDigitValue(_ byte: UInt8) -> UInt32? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
    default: nil
    }
}

extension String {
    /// Calls `body` with the string's UTF-8 bytes, without copying them when the string is
    /// stored as UTF-8 (as every string this package makes is; a small string, 15 bytes or
    /// fewer, is copied to the stack).
    @inlinable
    package func withUTF8Bytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        if let result = try utf8.withContiguousStorageIfAvailable({ try body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        var copy = self
        return try copy.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
    }

    /// Whether the two strings have the same UTF-8 bytes (not merely equal: `==` also equates
    /// different normalizations of the same text).
    package func hasSameUTF8(as other: String) -> Bool {
        withUTF8Bytes { bytes in other.withUTF8Bytes { bytesEqual(bytes, $0) } }
    }
}

/// Whether two byte buffers hold the same bytes.
package func bytesEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    a.count == b.count && (a.count == 0 || sameBytes(a.baseAddress!, b.baseAddress!, count: a.count))
}

/// The offset of the first occurrence of `pattern` in `bytes` at or after `start`, `nil` when
/// there is none (or `pattern` is empty): `memchr` to each candidate first byte, `memcmp` for
/// the rest, so a text without the pattern's first byte costs one vectorized scan.
package func firstOffset(of pattern: UnsafeRawBufferPointer, in bytes: UnsafeRawBufferPointer, from start: Int = 0) -> Int? {
    let length = pattern.count
    guard length > 0, let base = bytes.baseAddress, start >= 0, bytes.count - start >= length else { return nil }
    let first = Int32(pattern[0])
    // The last offset a match can start at.
    let last = bytes.count - length
    var offset = start
    while offset <= last, let found = memchr(base + offset, first, last + 1 - offset) {
        let at = base.distance(to: UnsafeRawPointer(found))
        if memcmp(base + at, pattern.baseAddress!, length) == 0 { return at }
        offset = at + 1
    }
    return nil
}

/// ``firstOffset(of:in:from:)`` of a literal's bytes.
package func firstOffset(of literal: StaticString, in bytes: UnsafeRawBufferPointer, from start: Int = 0) -> Int? {
    firstOffset(of: UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount), in: bytes, from: start)
}

/// The offset of the first byte of `bytes` that is `a` or `b`, or `bytes.count` when there is
/// none: eight bytes a step, by ``flags(of:in:)`` (whose lowest flag is exact).
package func firstOffset(of a: UInt8, or b: UInt8, in bytes: UnsafeRawBufferPointer) -> Int {
    var offset = 0
    while offset + 8 <= bytes.count {
        let text = word(at: offset, of: bytes)
        let found = flags(of: a, in: text) | flags(of: b, in: text)
        if found != 0 { return offset + found.trailingZeroBitCount / 8 }
        offset += 8
    }
    while offset < bytes.count && bytes[offset] != a && bytes[offset] != b { offset += 1 }
    return offset
}
