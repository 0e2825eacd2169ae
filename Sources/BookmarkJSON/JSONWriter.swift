import Foundation

/// Appends standard JSON to a byte buffer: the write side of the journal's purpose-built codec.
///
/// Strings are escaped as JSON requires (quote, backslash, control characters) and otherwise
/// written as UTF-8, so CJK and emoji stay readable in the file.
package struct JSONWriter {
    package var bytes: [UInt8] = []

    package init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    package mutating func raw(_ literal: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// `"key":` (`,"key":` after a comma) for an ASCII `key` that needs no escaping, in one
    /// append: members' keys are most of what a record writes.
    @inline(__always)
    package mutating func key(_ key: StaticString, afterComma: Bool) {
        let count = key.utf8CodeUnitCount
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count + 4) { buffer in
            var index = 0
            if afterComma {
                buffer[0] = UInt8(ascii: ",")
                index = 1
            }
            buffer[index] = UInt8(ascii: "\"")
            (buffer.baseAddress! + index + 1).update(from: key.utf8Start, count: count)
            index += 1 + count
            buffer[index] = UInt8(ascii: "\"")
            buffer[index + 1] = UInt8(ascii: ":")
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<(index + 2)]))
        }
    }

    package mutating func byte(_ byte: UInt8) {
        bytes.append(byte)
    }

    package mutating func string(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            var runStart = 0
            var index = 0
            let words = UnsafeRawBufferPointer(utf8)
            while index < utf8.count {
                // Eight bytes at a time while none needs escaping (most of any title or tag).
                if utf8.count - index >= 8, !needsEscape(words.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
                    index += 8
                    continue
                }
                let byte = utf8[index]
                index += 1
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                let escaped = index - 1
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<escaped]))
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
                    bytes.append(Self.hexDigits[Int(byte >> 4)])
                    bytes.append(Self.hexDigits[Int(byte & 0xF)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
        bytes.append(UInt8(ascii: "\""))
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
        if magnitude == 0 {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        var magnitude = magnitude
        if negative { bytes.append(UInt8(ascii: "-")) }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while magnitude > 0 {
                buffer[23 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[(24 - count)...]))
        }
    }

    /// Writes a finite double so that reading it back gives the same value.
    package mutating func double(_ value: Double) {
        precondition(value.isFinite, "JSON has no infinities or NaNs")
        if value == value.rounded(), abs(value) < 1e15 {
            int(Int64(value))
        } else {
            bytes.append(contentsOf: value.description.utf8)
        }
    }

    package mutating func bool(_ value: Bool) {
        if value { raw("true") } else { raw("false") }
    }

    package static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
