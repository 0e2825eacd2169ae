import Foundation

/// Walks the lines of a journal file, deciding for each whether it is the header, a good
/// batch, a torn tail or damage. Shared by open (which acts on what it finds) and verify (which
/// only reports).
struct JournalScanner {
    enum Event {
        case header(JournalCodec.Header)
        case batch(sequence: Int, changes: [BookmarkChange], line: Int, offset: Int)
        /// A line that fails to read and is not the last one; or a sequence gap.
        case damage(JournalDamage)
    }

    struct Result {
        /// The unreadable last line, if any: `offset` is where the file should be cut.
        var tornTail: JournalDamage?
        /// The length of the file up to the end of its last good line.
        var goodLength: Int
        var lastSequence: Int
        var header: JournalCodec.Header?
    }

    /// How to turn a batch line's bytes into changes (checksum already verified).
    typealias Decoder = (_ line: UnsafeRawBufferPointer, _ lineNumber: Int) throws -> [BookmarkChange]

    /// Scans `bytes`. `decodeBatch` defaults to the current schema's decoder. `onEvent` sees
    /// every header, batch and damage in file order.
    static func scan(
        _ bytes: UnsafeRawBufferPointer,
        decodeBatch: Decoder? = nil,
        onEvent: (Event) throws -> Void
    ) throws -> Result {
        var result = Result(tornTail: nil, goodLength: 0, lastSequence: 0, header: nil)
        let lastNewline = lastIndex(of: 0x0A, in: bytes)
        var lineStart = 0
        var lineNumber = 0
        let strings = StringCache()
        while lineStart < bytes.count {
            lineNumber += 1
            let newline = firstIndex(of: 0x0A, in: bytes, from: lineStart)
            let lineEnd = newline ?? bytes.count
            let line = UnsafeRawBufferPointer(rebasing: bytes[lineStart..<lineEnd])
            // The last complete line, with nothing after it, may be a write cut short by a crash.
            let isLast = newline == nil || (newline == lastNewline && lineEnd + 1 == bytes.count)
            func damage(_ reason: String) -> JournalDamage {
                JournalDamage(line: lineNumber, offset: lineStart, reason: reason)
            }

            if newline == nil {
                result.tornTail = damage("the last line is cut short (no newline): a write interrupted by a crash")
                break
            }
            let failure: String
            do {
                try JournalCodec.verifyChecksum(line)
                if lineNumber == 1 {
                    guard case .header(let header) = try JournalCodec.decodeVerifiedLine(line) else {
                        throw JSONReadError(offset: 0, message: "the first line is not a journal header")
                    }
                    result.header = header
                    try onEvent(.header(header))
                } else {
                    let (sequence, changes) = try decodeBatchLine(line, lineNumber: lineNumber, decodeBatch: decodeBatch, strings: strings)
                    if sequence != result.lastSequence + 1 {
                        try onEvent(.damage(damage("sequence gap: expected batch \(result.lastSequence + 1), found \(sequence)")))
                    }
                    result.lastSequence = sequence
                    try onEvent(.batch(sequence: sequence, changes: changes, line: lineNumber, offset: lineStart))
                }
                result.goodLength = lineEnd + 1
                lineStart = lineEnd + 1
                continue
            } catch JournalCodec.LineError.checksumMismatch(let expected, let actual) {
                failure = "checksum mismatch (crc \(hex(expected)) in the line, \(hex(actual)) computed)"
            } catch JournalCodec.LineError.malformed(let error) {
                failure = "unreadable at byte \(error.offset) of the line: \(error.message)"
            } catch let error as JSONReadError {
                failure = "unreadable at byte \(error.offset) of the line: \(error.message)"
            }
            if isLast && lineNumber > 1 {
                result.tornTail = damage(failure)
                break
            }
            try onEvent(.damage(damage(failure)))
            // The damaged line held one batch: the next one should follow it.
            if lineNumber > 1 { result.lastSequence += 1 }
            lineStart = lineEnd + 1
        }
        return result
    }

    private static func decodeBatchLine(
        _ line: UnsafeRawBufferPointer,
        lineNumber: Int,
        decodeBatch: Decoder?,
        strings: StringCache
    ) throws -> (Int, [BookmarkChange]) {
        if let decodeBatch {
            var reader = JSONReader(line)
            var sequence: Int?
            try reader.readObject { reader, key in
                if key.equals("seq") { sequence = try reader.readInt() } else { try reader.skipValue() }
            }
            guard let sequence else { throw JSONReadError(offset: 0, message: "the batch has no seq") }
            return (sequence, try decodeBatch(line, lineNumber))
        }
        guard case .batch(let sequence, let changes) = try JournalCodec.decodeVerifiedLine(line, strings: strings) else {
            throw JSONReadError(offset: 0, message: "a second header in the middle of the journal")
        }
        return (sequence, changes)
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    private static func firstIndex(of byte: UInt8, in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress,
              let found = memchr(base + start, Int32(byte), bytes.count - start) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }

    private static func lastIndex(of byte: UInt8, in bytes: UnsafeRawBufferPointer) -> Int? {
        var index = bytes.count - 1
        while index >= 0 {
            if bytes[index] == byte { return index }
            index -= 1
        }
        return nil
    }
}
