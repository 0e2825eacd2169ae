import BookmarkJSON
import Foundation

/// The journal's purpose-built encoder and decoder: the lines of DocC's "Journal format"
/// article, written and read byte by byte, with no intermediate tree. Each record is described
/// once, for writing and reading alike, in ``JournalRecords``.
///
/// Every line is one JSON object that `jq` reads. The first line of a file is the header; every
/// further line is one committed batch. The `crc` field, first as written, holds the CRC-32C of
/// the line's bytes (without the newline) with the eight hex digits of the checksum left out,
/// so the checksum covers everything else, whatever the formatting.
enum JournalCodec {
    static let formatName: StaticString = "bookmark-index-journal"

    struct Header: Equatable, Sendable {
        var schemaVersion: Int
        var created: Date
        /// When compaction (or a migration or reset) wrote this file; `nil` when it grew from empty.
        var compacted: Date?
        /// A random number naming this file, new with every file written whole: what an index
        /// checkpoint names to say which journal it is of. `nil` in journals written before it.
        var id: UInt64?
    }

    enum Line {
        case header(Header)
        case batch(sequence: Int, changes: [BookmarkChange])
    }

    enum LineError: Error {
        /// The line is well formed but its checksum does not match: a torn or damaged write.
        case checksumMismatch(expected: UInt32, actual: UInt32)
        /// The line is not a record this codec reads.
        case malformed(JSONReadError)
    }

    // MARK: Encoding

    /// Appends the header line, newline included.
    static func appendHeader(_ header: Header, to writer: inout JSONWriter) {
        let start = beginLine(&writer)
        JournalRecords.Header.encodeMembers(of: header, to: &writer, afterOthers: true)
        endLine(&writer, start: start)
    }

    /// Appends one batch line, newline included.
    static func appendBatch(sequence: Int, _ changes: [BookmarkChange], to writer: inout JSONWriter) {
        let start = beginLine(&writer)
        JournalRecords.Batch.Record.encodeMembers(of: .init(sequence: sequence, changes: changes), to: &writer, afterOthers: true)
        endLine(&writer, start: start)
    }

    /// Appends one batch line of `count` changes, each written by `writeChange` (given its
    /// index): the line ``appendBatch(sequence:_:to:)`` writes for the same changes, for a
    /// writer that makes a change's JSON without making the change (``JournalRowWriter``).
    static func appendBatch(sequence: Int, count: Int, to writer: inout JSONWriter, writeChange: (Int, inout JSONWriter) -> Void) {
        let start = beginLine(&writer)
        writer.key("seq", afterComma: true)
        writer.int(sequence)
        writer.key("changes", afterComma: true)
        writer.byte(UInt8(ascii: "["))
        for index in 0..<count {
            if index > 0 { writer.byte(UInt8(ascii: ",")) }
            writeChange(index, &writer)
        }
        writer.byte(UInt8(ascii: "]"))
        endLine(&writer, start: start)
    }

    private static func beginLine(_ writer: inout JSONWriter) -> Int {
        let start = writer.count
        writer.raw("{\"crc\":\"00000000\"")
        return start
    }

    private static func endLine(_ writer: inout JSONWriter, start: Int) {
        writer.byte(UInt8(ascii: "}"))
        let checksumStart = start + 8
        writer.withUnsafeMutableBytes { bytes in
            let crc = checksum(of: UnsafeRawBufferPointer(rebasing: bytes[start...]), skipping: 8..<16)
            for index in 0..<8 {
                bytes[checksumStart + index] = JSONWriter.hexDigits[Int((crc >> (28 - 4 * UInt32(index))) & 0xF)]
            }
        }
        writer.byte(UInt8(ascii: "\n"))
    }

    /// Appends one change record: the record of its `op`.
    static func appendChange(_ change: BookmarkChange, to writer: inout JSONWriter) {
        switch change {
        case .upsert(let bookmark): JournalRecords.Upsert.encode(bookmark, to: &writer)
        case .remove(let key): JournalRecords.Remove.encode(key, to: &writer)
        case .removeAll(let restrict): JournalRecords.RemoveAll.encode(restrict, to: &writer)
        case .setMetadata(let metadata, let restrict): JournalRecords.MetadataChange.Record.encode(.init(metadata: metadata, restrict: restrict), to: &writer)
        }
    }

    // MARK: Checksums

    /// CRC-32C of `line` without the bytes in `skipped`.
    static func checksum(of line: UnsafeRawBufferPointer, skipping skipped: Range<Int>) -> UInt32 {
        let head = CRC32C.update(0, UnsafeRawBufferPointer(rebasing: line[..<skipped.lowerBound]))
        return CRC32C.update(head, UnsafeRawBufferPointer(rebasing: line[skipped.upperBound...]))
    }

    /// Finds the eight hex digits of the line's `crc` field: at bytes 8..<16 as the journal
    /// writes it, or wherever a hand-edited line put it.
    private static func checksumDigits(in line: UnsafeRawBufferPointer) throws(LineError) -> Range<Int> {
        if line.count > 17, UnsafeRawBufferPointer(rebasing: line[0..<8]).equals("{\"crc\":\""), line[16] == UInt8(ascii: "\"") {
            return 8..<16
        }
        var reader = JSONReader(line)
        var found: Range<Int>?
        do {
            try reader.readObject { reader, key in
                if key.equals("crc") {
                    _ = reader.peek()
                    let start = reader.position + 1
                    let value = try reader.readString()
                    guard value.utf8.count == 8, reader.position == start + 9 else {
                        throw reader.error("the crc must be eight hex digits", at: start)
                    }
                    found = start..<(start + 8)
                } else {
                    try reader.skipValue()
                }
            }
            try reader.expectEnd()
        } catch let error as JSONReadError {
            throw .malformed(error)
        } catch {
            throw .malformed(JSONReadError(offset: 0, message: "\(error)"))
        }
        guard let found else { throw .malformed(JSONReadError(offset: 0, message: "the line has no crc field")) }
        return found
    }

    /// Checks the line's checksum.
    static func verifyChecksum(_ line: UnsafeRawBufferPointer) throws(LineError) {
        let digits = try checksumDigits(in: line)
        var expected: UInt32 = 0
        for index in digits {
            guard let digit = hexDigitValue(line[index]) else {
                throw .malformed(JSONReadError(offset: index, message: "the crc must be eight hex digits"))
            }
            expected = expected << 4 | digit
        }
        let actual = checksum(of: line, skipping: digits)
        guard actual == expected else { throw .checksumMismatch(expected: expected, actual: actual) }
    }

    // MARK: Decoding

    /// Reads one line (without its newline): checks its checksum, then decodes it.
    static func decodeLine(_ line: UnsafeRawBufferPointer) throws(LineError) -> Line {
        try verifyChecksum(line)
        do {
            return try decodeVerifiedLine(line)
        } catch let error as JSONReadError {
            throw .malformed(error)
        } catch {
            throw .malformed(JSONReadError(offset: 0, message: "\(error)"))
        }
    }

    /// Decodes a line whose checksum was checked (or that has none, as migrated lines).
    static func decodeVerifiedLine(_ line: UnsafeRawBufferPointer) throws -> Line {
        var cache: DecodingCache?
        return try decodeVerifiedLine(line, cache: &cache)
    }

    /// Decodes a line whose checksum was checked, with (and into) the strings and tags
    /// `cache` remembers from the lines before it.
    static func decodeVerifiedLine(_ line: UnsafeRawBufferPointer, cache: inout DecodingCache?) throws -> Line {
        var reader = JSONReader(line, cache: cache)
        // The reader holds the only copy while it reads, so that remembering never copies it.
        cache = nil
        defer { cache = reader.cache }
        let line: Line
        if try isHeader(reader) {
            line = .header(try JournalRecords.Header.decode(&reader))
        } else {
            let batch = try JournalRecords.Batch.Record.decode(&reader)
            line = .batch(sequence: batch.sequence, changes: batch.changes)
        }
        try reader.expectEnd()
        return line
    }

    /// Whether the line at `reader` is a header (it has a `format`) rather than a batch: read
    /// ahead on a copy of the reader, up to the first member that decides (for the lines the
    /// journal writes, the one after `crc`).
    private static func isHeader(_ reader: JSONReader) throws -> Bool {
        struct Decided: Error { var isHeader: Bool }
        var probe = reader
        do {
            try probe.readObject { reader, key in
                if JournalRecords.Batch.Record.hasMember(key) { throw Decided(isHeader: false) }
                if JournalRecords.Header.hasMember(key) { throw Decided(isHeader: true) }
                try reader.skipValue()
            }
        } catch let decided as Decided {
            return decided.isHeader
        }
        return false
    }

    /// Reads one change record: the record its `op` names.
    static func decodeChange(_ reader: inout JSONReader) throws -> BookmarkChange {
        let start = reader.position
        guard let op = try peekString(JournalRecords.opKey, in: reader) else {
            throw reader.error("the change has no '\(JournalRecords.opKey)'", at: start)
        }
        switch op {
        case "upsert": return .upsert(try JournalRecords.Upsert.decode(&reader))
        case "remove": return .remove(try JournalRecords.Remove.decode(&reader))
        case "removeAll": return .removeAll(try JournalRecords.RemoveAll.decode(&reader))
        case "metadata":
            let change = try JournalRecords.MetadataChange.Record.decode(&reader)
            return .setMetadata(change.metadata, for: change.restrict)
        case let other:
            throw reader.error("unknown change op '\(other)'", at: start)
        }
    }

    /// The string member `key` of the object at `reader`, read ahead on a copy of the reader up
    /// to that member (the first, in the records the journal writes); `nil` when it has none.
    private static func peekString(_ key: StaticString, in reader: JSONReader) throws -> String? {
        struct Found: Error { var value: String }
        var probe = reader
        do {
            try probe.readObject { reader, found in
                if found.equals(key) { throw Found(value: try reader.readString()) }
                try reader.skipValue()
            }
        } catch let found as Found {
            return found.value
        }
        return nil
    }

    /// `id` as the header spells it: 16 lower-case hex digits.
    static func hexID(_ id: UInt64) -> String {
        let digits = String(id, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
