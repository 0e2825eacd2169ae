import Foundation

// Reading bytes as a writer wrote them: for a reader that knows what comes next (the journal's
// rows, written by this library) and reads it without the general grammar's lookups, falling
// back to them when the bytes differ.

extension JSONReader {
    /// The bytes of the string at the reader, consumed, when it holds no escape (as most the
    /// journal writes do); `nil`, consuming nothing but whitespace, for a string with escapes or
    /// a value that is no string. The bytes are not checked to be UTF-8: the caller checks them
    /// (``isValidUTF8(_:)``) unless it compares them with bytes that are.
    package mutating func readPlainString() -> UnsafeRawBufferPointer? {
        guard peek() == UInt8(ascii: "\""), let end = plainStringEnd(from: position + 1) else { return nil }
        let start = position + 1
        position = end + 1
        return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    }

    /// The array at the reader when it is one or two strings without escapes, written without
    /// whitespace (as the journal writes a tag), consumed: its JSON text (what a cache keys on)
    /// and its strings' bytes, not checked to be UTF-8. `nil`, consuming nothing but
    /// whitespace, for any other value.
    package mutating func readCompactStringPair() -> (json: UnsafeRawBufferPointer, first: UnsafeRawBufferPointer, second: UnsafeRawBufferPointer?)? {
        guard peek() == UInt8(ascii: "["), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "\""),
              let firstEnd = plainStringEnd(from: position + 2), firstEnd + 1 < bytes.count else { return nil }
        let first = UnsafeRawBufferPointer(rebasing: bytes[(position + 2)..<firstEnd])
        var second: UnsafeRawBufferPointer?
        var end = firstEnd + 1
        if bytes[end] == UInt8(ascii: ",") {
            guard end + 1 < bytes.count, bytes[end + 1] == UInt8(ascii: "\""),
                  let secondEnd = plainStringEnd(from: end + 2), secondEnd + 1 < bytes.count else { return nil }
            second = UnsafeRawBufferPointer(rebasing: bytes[(end + 2)..<secondEnd])
            end = secondEnd + 1
        }
        guard bytes[end] == UInt8(ascii: "]") else { return nil }
        let json = UnsafeRawBufferPointer(rebasing: bytes[position...end])
        position = end + 1
        return (json, first, second)
    }

    /// Consumes `bytes` if the reader is at them, exactly (no whitespace skipped); `false`,
    /// consuming nothing, otherwise. For a reader that knows what a writer writes next, such as
    /// a key, its quotes and its colon.
    package mutating func consume(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        guard self.bytes.count - position >= count,
              bytesEqual(UnsafeRawBufferPointer(rebasing: self.bytes[position..<(position + count)]), bytes) else { return false }
        position += count
        return true
    }

    /// ``consume(_:)-(UnsafeRawBufferPointer)`` of a literal's bytes.
    package mutating func consume(_ literal: StaticString) -> Bool {
        consume(UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Moves the reader back to `position`, where it was before a value it read: for a reader
    /// that tried one way of reading the value and reads it again another way.
    package mutating func rewind(to position: Int) {
        precondition(position <= self.position, "a reader rewinds to where it was, not ahead")
        self.position = position
    }
}
