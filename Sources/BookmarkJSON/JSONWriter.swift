import Foundation

/// Appends standard JSON to a byte buffer: the write side of the journal's purpose-built codec.
///
/// Strings are escaped as JSON requires (quote, backslash, control characters) and otherwise
/// written as UTF-8, so CJK and emoji stay readable in the file.
///
/// The small writes (a byte, a key, a literal) are `@inlinable`: the index and the Pixiv client
/// make several dozen a bookmark, across the module boundary (compaction at 100,000 took a
/// median 218 against 265 ms without, in three runs of each build taken in turn).
package struct JSONWriter {
    /// The buffer: the first `written` bytes are written, the rest is room (zeros) to write
    /// into without growing. Writes copy into it directly: `Array.append(contentsOf:)` for the
    /// few bytes of a key or a number was a fifth of what compaction spent encoding.
    @usableFromInline var storage: [UInt8]
    @usableFromInline var written = 0

    /// How many bytes are written.
    package var count: Int { written }

    package init(capacity: Int = 0) {
        // No allocation for no capacity: a record's visitor makes a writer it swaps the real
        // one into.
        storage = capacity > 0 ? Self.zeroed(count: capacity) : []
    }

    /// `count` bytes: those of `kept` first, then zeros. The zeros are one `memset`: filling
    /// them through `Array(repeating:count:)` or `append(contentsOf: repeatElement(…))` walks
    /// a generic iterator byte by byte in an unoptimized build, which made `list --json` of
    /// 3,600 bookmarks spend 60 % of its time growing its buffer in the tests' debug build.
    private static func zeroed(count: Int, keeping kept: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let base = UnsafeMutableRawPointer(buffer.baseAddress!)
            if kept.count > 0 { base.copyMemory(from: kept.baseAddress!, byteCount: kept.count) }
            memset(base + kept.count, 0, count - kept.count)
            initialized = count
        }
    }

    /// The bytes written, as an array of their own.
    package var bytes: [UInt8] { Array(storage[..<count]) }

    /// The bytes written, the writer emptied: no copy.
    package mutating func takeBytes() -> [UInt8] {
        var taken: [UInt8] = []
        swap(&taken, &storage)
        taken.removeLast(taken.count - written)
        written = 0
        return taken
    }

    /// Calls `body` with the bytes written.
    package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try storage.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }

    /// Calls `body` with the bytes written, to change some in place.
    package mutating func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        let count = count
        return try storage.withUnsafeMutableBytes { try body(UnsafeMutableRawBufferPointer(rebasing: $0[..<count])) }
    }

    /// Writes `source` as it is.
    @inlinable
    package mutating func raw(_ source: UnsafeRawBufferPointer) {
        let length = source.count
        guard length > 0 else { return }
        if written + length > storage.count { grow(by: length) }
        let at = written
        storage.withUnsafeMutableBytes { buffer in
            let target = buffer.baseAddress! + at
            if length <= 16 {
                for index in 0..<length { target.storeBytes(of: source[index], toByteOffset: index, as: UInt8.self) }
            } else {
                target.copyMemory(from: source.baseAddress!, byteCount: length)
            }
        }
        written += length
    }

    @inlinable
    package mutating func raw(_ literal: StaticString) {
        raw(UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Writes `bytes` as they are: in one copy when they are contiguous (a string's UTF-8).
    package mutating func raw(_ bytes: some Sequence<UInt8>) {
        if bytes.withContiguousStorageIfAvailable({ raw(UnsafeRawBufferPointer($0)) }) != nil { return }
        for byte in bytes { self.byte(byte) }
    }

    /// Makes room for at least `length` more bytes: at least doubles, so that writing n bytes
    /// copies O(n).
    @usableFromInline
    mutating func grow(by length: Int) {
        let count = storage.count + Swift.max(storage.count, length, 64)
        storage = withUnsafeBytes { Self.zeroed(count: count, keeping: $0) }
    }

    /// `"key":` (`,"key":` after a comma) for an ASCII `key` that needs no escaping, in one
    /// write: members' keys are most of what a record writes.
    @inlinable
    package mutating func key(_ key: StaticString, afterComma: Bool) {
        let length = key.utf8CodeUnitCount + (afterComma ? 4 : 3)
        if written + length > storage.count { grow(by: length) }
        let at = written
        storage.withUnsafeMutableBufferPointer { buffer in
            var index = at
            if afterComma {
                buffer[index] = UInt8(ascii: ",")
                index += 1
            }
            buffer[index] = UInt8(ascii: "\"")
            index += 1
            let utf8 = key.utf8Start
            for offset in 0..<key.utf8CodeUnitCount { buffer[index + offset] = utf8[offset] }
            index += key.utf8CodeUnitCount
            buffer[index] = UInt8(ascii: "\"")
            buffer[index + 1] = UInt8(ascii: ":")
        }
        written += length
    }

    @inlinable
    package mutating func byte(_ byte: UInt8) {
        if written == storage.count { grow(by: 1) }
        storage[written] = byte
        written += 1
    }

    package mutating func string(_ string: String) {
        // A native string's UTF-8 in place: `withUTF8` needs a `var` copy, a retain and a
        // release of the string's storage (without them, encoding 30,000 bookmarks' batch
        // lines took 51 ms against 56, three alternating runs of each build).
        if string.utf8.withContiguousStorageIfAvailable({ self.string(utf8: UnsafeRawBufferPointer($0)) }) != nil { return }
        var string = string
        string.withUTF8 { self.string(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// Writes the string whose UTF-8 is `utf8`, as ``string(_:)`` writes it: for text kept
    /// as bytes, written without making a `String` of it.
    package mutating func string(utf8: UnsafeRawBufferPointer) {
        if quoted(utf8) { return }
        byte(UInt8(ascii: "\""))
        var runStart = 0
        var index = 0
        while index < utf8.count {
            // Eight bytes at a time while none needs escaping (most of any title or tag).
            if utf8.count - index >= 8, !needsEscape(utf8.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
                index += 8
                continue
            }
            let byte = utf8[index]
            index += 1
            guard Self.isEscaped(byte) else { continue }
            let escaped = index - 1
            raw(UnsafeRawBufferPointer(rebasing: utf8[runStart..<escaped]))
            runStart = escaped + 1
            switch byte {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0x08: raw("\\b")
            case 0x0C: raw("\\f")
            default:
                raw("\\u00")
                self.byte(Self.hexDigits[Int(byte >> 4)])
                self.byte(Self.hexDigits[Int(byte & 0xF)])
            }
        }
        raw(UnsafeRawBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        byte(UInt8(ascii: "\""))
    }

    /// Whether a string's `byte` is written escaped: a control character, a quote or a
    /// backslash (what ``needsEscape(_:)`` tells of eight bytes at once).
    private static func isEscaped(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// Writes `utf8` between quotes in one copy if none of its bytes needs escaping (nearly
    /// every string); otherwise writes nothing and returns `false`.
    private mutating func quoted(_ utf8: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let length = utf8.count
        while length - index >= 8 {
            if needsEscape(utf8.loadUnaligned(fromByteOffset: index, as: UInt64.self)) { return false }
            index += 8
        }
        while index < length {
            let byte = utf8[index]
            if Self.isEscaped(byte) { return false }
            index += 1
        }
        if written + length + 2 > storage.count { grow(by: length + 2) }
        let at = written
        storage.withUnsafeMutableBytes { buffer in
            buffer[at] = UInt8(ascii: "\"")
            if length > 0 { (buffer.baseAddress! + at + 1).copyMemory(from: utf8.baseAddress!, byteCount: length) }
            buffer[at + length + 1] = UInt8(ascii: "\"")
        }
        written += length + 2
        return true
    }

    package mutating func optionalString(_ string: String?) {
        if let string { self.string(string) } else { raw("null") }
    }

    /// Writes an integer: one function, not a generic one, since a generic function is not
    /// specialized across modules and the journal writes several integers per bookmark.
    package mutating func int(_ value: Int) {
        digits(of: UInt64(value.magnitude), negative: value < 0)
    }

    package mutating func int(_ value: Int64) {
        digits(of: value.magnitude, negative: value < 0)
    }

    private mutating func digits(of magnitude: UInt64, negative: Bool) {
        var magnitude = magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var start = 24
        Swift.withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if negative {
                start -= 1
                buffer[start] = UInt8(ascii: "-")
            }
            raw(UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// Writes a finite double so that reading it back gives the same value.
    package mutating func double(_ value: Double) {
        precondition(value.isFinite, "JSON has no infinities or NaNs")
        if value == value.rounded(), abs(value) < 1e15 {
            int(Int64(value))
        } else {
            raw(value.description.utf8)
        }
    }

    package mutating func bool(_ value: Bool) {
        if value { raw("true") } else { raw("false") }
    }

    package static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
