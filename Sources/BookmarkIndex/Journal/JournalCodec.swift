import Foundation

/// The journal's purpose-built encoder and decoder: the records of DocC's "Journal format"
/// article, written and read byte by byte, with no intermediate tree.
///
/// Every line is one JSON object that `jq` reads. The first line of a file is the header; every
/// further line is one committed batch. The `crc` field, first as written, holds the CRC-32C of
/// the line's bytes (without the newline) with the eight hex digits of the checksum left out,
/// so the checksum covers everything else, whatever the formatting.
enum JournalCodec {
    static let formatName = "bookmark-index-journal"

    struct Header: Equatable, Sendable {
        var schemaVersion: Int
        var created: Date
        /// When compaction (or a migration or reset) wrote this file; `nil` when it grew from empty.
        var compacted: Date?
        /// A random number naming this file, new with every file written whole: what an index
        /// snapshot names to say which journal it is of. `nil` in journals written before it.
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
        writer.raw(",\"format\":")
        writer.string(formatName)
        writer.raw(",\"schema\":")
        writer.int(header.schemaVersion)
        writer.raw(",\"created\":")
        writer.double(header.created.timeIntervalSinceReferenceDate)
        writer.raw(",\"compacted\":")
        if let compacted = header.compacted { writer.double(compacted.timeIntervalSinceReferenceDate) } else { writer.raw("null") }
        if let id = header.id {
            // A string: JSON readers may hold numbers as doubles, which cannot carry 64 bits.
            writer.raw(",\"id\":")
            writer.string(hexID(id))
        }
        endLine(&writer, start: start)
    }

    /// Appends one batch line, newline included.
    static func appendBatch(sequence: Int, _ changes: some Collection<BookmarkChange>, to writer: inout JSONWriter) {
        let start = beginLine(&writer)
        writer.raw(",\"seq\":")
        writer.int(sequence)
        writer.raw(",\"changes\":[")
        var first = true
        for change in changes {
            if !first { writer.byte(UInt8(ascii: ",")) }
            first = false
            appendChange(change, to: &writer)
        }
        writer.byte(UInt8(ascii: "]"))
        endLine(&writer, start: start)
    }

    private static func beginLine(_ writer: inout JSONWriter) -> Int {
        let start = writer.bytes.count
        writer.raw("{\"crc\":\"00000000\"")
        return start
    }

    private static func endLine(_ writer: inout JSONWriter, start: Int) {
        writer.byte(UInt8(ascii: "}"))
        let checksumStart = start + 8
        let crc = writer.bytes.withUnsafeBytes { bytes in
            checksum(of: UnsafeRawBufferPointer(rebasing: bytes[start...]), skipping: 8..<16)
        }
        for index in 0..<8 {
            writer.bytes[checksumStart + index] = JSONWriter.hexDigits[Int((crc >> (28 - 4 * UInt32(index))) & 0xF)]
        }
        writer.byte(UInt8(ascii: "\n"))
    }

    static func appendChange(_ change: BookmarkChange, to writer: inout JSONWriter) {
        switch change {
        case .upsert(let bookmark):
            writer.raw("{\"op\":\"upsert\",\"restrict\":")
            writer.string(bookmark.restrict.rawValue)
            writer.raw(",\"order\":")
            writer.int(bookmark.serverOrder)
            writer.raw(",\"first\":")
            writer.double(bookmark.firstIndexedAt.timeIntervalSinceReferenceDate)
            writer.raw(",\"seen\":")
            writer.double(bookmark.lastSeenAt.timeIntervalSinceReferenceDate)
            writer.raw(",\"illust\":")
            appendIllust(bookmark.illust, to: &writer)
            writer.byte(UInt8(ascii: "}"))
        case .remove(let key):
            writer.raw("{\"op\":\"remove\",\"restrict\":")
            writer.string(key.restrict.rawValue)
            writer.raw(",\"id\":")
            writer.int(key.illustID)
            writer.byte(UInt8(ascii: "}"))
        case .removeAll(let restrict):
            writer.raw("{\"op\":\"removeAll\",\"restrict\":")
            writer.string(restrict.rawValue)
            writer.byte(UInt8(ascii: "}"))
        case .setMetadata(let metadata, let restrict):
            writer.raw("{\"op\":\"metadata\",\"restrict\":")
            writer.string(restrict.rawValue)
            writer.raw(",\"metadata\":{\"schema\":")
            writer.int(metadata.schemaVersion)
            writer.raw(",\"lastFull\":")
            appendOptionalDate(metadata.lastFullSync, to: &writer)
            writer.raw(",\"lastDelta\":")
            appendOptionalDate(metadata.lastDeltaSync, to: &writer)
            writer.raw(",\"cursor\":")
            if let cursor = metadata.fullSyncCursor {
                writer.raw("{\"next\":")
                writer.string(cursor.nextPage)
                writer.raw(",\"started\":")
                writer.double(cursor.startedAt.timeIntervalSinceReferenceDate)
                writer.raw(",\"pages\":")
                writer.int(cursor.pagesFetched)
                writer.raw(",\"order\":")
                writer.int(cursor.nextServerOrder)
                if let first = cursor.firstServerOrder {
                    writer.raw(",\"first\":")
                    writer.int(first)
                }
                writer.byte(UInt8(ascii: "}"))
            } else {
                writer.raw("null")
            }
            // Written only when there are some, so most metadata reads as it always has.
            appendInAppRecords("unbookmarked", metadata.unbookmarkedInApp, to: &writer)
            appendInAppRecords("bookmarked", metadata.bookmarkedInApp, to: &writer)
            if let pause = metadata.pause {
                writer.raw(",\"pause\":{\"until\":")
                writer.double(pause.until.timeIntervalSinceReferenceDate)
                writer.raw(",\"code\":")
                writer.string(pause.code)
                writer.raw(",\"message\":")
                writer.string(pause.message)
                writer.byte(UInt8(ascii: "}"))
            }
            writer.raw("}}")
        }
    }

    /// `,"<key>":[[illust ID, date], ...]` in ID order, or nothing for no records.
    private static func appendInAppRecords(_ key: StaticString, _ records: [Int: Date], to writer: inout JSONWriter) {
        guard !records.isEmpty else { return }
        writer.raw(",\"")
        writer.raw(key)
        writer.raw("\":[")
        for (index, id) in records.keys.sorted().enumerated() {
            writer.raw(index == 0 ? "[" : ",[")
            writer.int(id)
            writer.byte(UInt8(ascii: ","))
            writer.double(records[id]!.timeIntervalSinceReferenceDate)
            writer.byte(UInt8(ascii: "]"))
        }
        writer.byte(UInt8(ascii: "]"))
    }

    private static func appendOptionalDate(_ date: Date?, to writer: inout JSONWriter) {
        if let date { writer.double(date.timeIntervalSinceReferenceDate) } else { writer.raw("null") }
    }

    private static func appendIllust(_ illust: BookmarkedIllustSnapshot, to writer: inout JSONWriter) {
        writer.raw("{\"id\":")
        writer.int(illust.id)
        writer.raw(",\"title\":")
        writer.string(illust.title)
        writer.raw(",\"type\":")
        writer.string(illust.type.rawValue)
        writer.raw(",\"artistID\":")
        writer.int(illust.artistID)
        writer.raw(",\"artist\":")
        writer.string(illust.artistName)
        writer.raw(",\"tags\":[")
        for (index, tag) in illust.tags.enumerated() {
            if index > 0 { writer.byte(UInt8(ascii: ",")) }
            writer.byte(UInt8(ascii: "["))
            writer.string(tag.name)
            if let translated = tag.translatedName {
                writer.byte(UInt8(ascii: ","))
                writer.string(translated)
            }
            writer.byte(UInt8(ascii: "]"))
        }
        writer.raw("],\"thumb\":")
        writer.optionalString(illust.thumbnailURL)
        writer.raw(",\"pages\":")
        writer.int(illust.pageCount)
        writer.raw(",\"width\":")
        writer.int(illust.width)
        writer.raw(",\"height\":")
        writer.int(illust.height)
        writer.raw(",\"xRestrict\":")
        writer.int(illust.xRestrict)
        writer.raw(",\"aiType\":")
        writer.int(illust.aiType)
        writer.raw(",\"created\":")
        writer.double(illust.createDate.timeIntervalSinceReferenceDate)
        writer.raw(",\"visible\":")
        writer.bool(illust.isVisible)
        writer.raw(",\"bookmarks\":")
        writer.int(illust.totalBookmarks)
        writer.byte(UInt8(ascii: "}"))
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
    static func decodeVerifiedLine(_ line: UnsafeRawBufferPointer, strings: StringCache? = nil) throws -> Line {
        var reader = JSONReader(line, strings: strings)
        var format: String?
        var schema: Int?
        var created: Date?
        var compacted: Date?
        var id: UInt64?
        var sequence: Int?
        var changes: [BookmarkChange]?
        try reader.readObject { reader, key in
            if key.equals("seq") {
                sequence = try reader.readInt()
            } else if key.equals("changes") {
                var list: [BookmarkChange] = []
                try reader.readArray { list.append(try decodeChange(&$0)) }
                changes = list
            } else if key.equals("format") {
                format = try reader.readString()
            } else if key.equals("schema") {
                schema = try reader.readInt()
            } else if key.equals("created") {
                created = try readDate(&reader)
            } else if key.equals("compacted") {
                compacted = try reader.readNullIfPresent() ? nil : try readDate(&reader)
            } else if key.equals("id") {
                let start = reader.position
                let text = try reader.readString()
                guard text.utf8.count == 16, let value = UInt64(text, radix: 16) else {
                    throw JSONReadError(offset: start, message: "the header's id '\(text)' is not 16 hex digits")
                }
                id = value
            } else {
                try reader.skipValue()
            }
        }
        try reader.expectEnd()
        if let format {
            guard format == formatName else {
                throw JSONReadError(offset: 0, message: "the header names format '\(format)', not '\(formatName)'")
            }
            guard let schema else { throw JSONReadError(offset: 0, message: "the header has no schema") }
            return .header(Header(schemaVersion: schema, created: created ?? Date(timeIntervalSinceReferenceDate: 0), compacted: compacted, id: id))
        }
        guard let sequence else { throw JSONReadError(offset: 0, message: "the batch has no seq") }
        guard let changes else { throw JSONReadError(offset: 0, message: "the batch has no changes") }
        return .batch(sequence: sequence, changes: changes)
    }

    /// `id` as the header spells it: 16 lower-case hex digits.
    static func hexID(_ id: UInt64) -> String {
        let digits = String(id, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    private static func readDate(_ reader: inout JSONReader) throws -> Date {
        Date(timeIntervalSinceReferenceDate: try reader.readDouble())
    }

    private static func readRestrict(_ reader: inout JSONReader) throws -> Restrict {
        let start = reader.position
        let text = try reader.readString()
        guard let restrict = Restrict(rawValue: text) else {
            throw reader.error("restrict must be \"public\" or \"private\", not \"\(text)\"", at: start)
        }
        return restrict
    }

    static func decodeChange(_ reader: inout JSONReader) throws -> BookmarkChange {
        let start = reader.position
        var op: String?
        var restrict: Restrict?
        var order: Int64?
        var first: Date?
        var seen: Date?
        var illust: BookmarkedIllustSnapshot?
        var id: Int?
        var metadata: BookmarkIndexMetadata?
        try reader.readObject { reader, key in
            if key.equals("op") { op = try reader.readString() }
            else if key.equals("restrict") { restrict = try readRestrict(&reader) }
            else if key.equals("order") { order = Int64(try reader.readInt()) }
            else if key.equals("first") { first = try readDate(&reader) }
            else if key.equals("seen") { seen = try readDate(&reader) }
            else if key.equals("illust") { illust = try decodeIllust(&reader) }
            else if key.equals("id") { id = try reader.readInt() }
            else if key.equals("metadata") { metadata = try decodeMetadata(&reader) }
            else { try reader.skipValue() }
        }
        func require<T>(_ value: T?, _ name: String) throws -> T {
            guard let value else { throw reader.error("the \(op ?? "") change has no '\(name)'", at: start) }
            return value
        }
        switch try require(op, "op") {
        case "upsert":
            return .upsert(IndexedBookmark(
                illust: try require(illust, "illust"), restrict: try require(restrict, "restrict"),
                serverOrder: try require(order, "order"), firstIndexedAt: try require(first, "first"),
                lastSeenAt: try require(seen, "seen")
            ))
        case "remove":
            return .remove(BookmarkKey(illustID: try require(id, "id"), restrict: try require(restrict, "restrict")))
        case "removeAll":
            return .removeAll(try require(restrict, "restrict"))
        case "metadata":
            return .setMetadata(try require(metadata, "metadata"), for: try require(restrict, "restrict"))
        case let other:
            throw reader.error("unknown change op '\(other)'", at: start)
        }
    }

    private static func decodeMetadata(_ reader: inout JSONReader) throws -> BookmarkIndexMetadata {
        var metadata = BookmarkIndexMetadata()
        try reader.readObject { reader, key in
            if key.equals("schema") { metadata.schemaVersion = try reader.readInt() }
            else if key.equals("lastFull") { metadata.lastFullSync = try reader.readNullIfPresent() ? nil : try readDate(&reader) }
            else if key.equals("lastDelta") { metadata.lastDeltaSync = try reader.readNullIfPresent() ? nil : try readDate(&reader) }
            else if key.equals("cursor") {
                if try reader.readNullIfPresent() { return }
                let start = reader.position
                var next: String?, started: Date?, pages: Int?, order: Int?, first: Int?
                try reader.readObject { reader, key in
                    if key.equals("next") { next = try reader.readString() }
                    else if key.equals("started") { started = try readDate(&reader) }
                    else if key.equals("pages") { pages = try reader.readInt() }
                    else if key.equals("order") { order = try reader.readInt() }
                    else if key.equals("first") { first = try reader.readInt() }
                    else { try reader.skipValue() }
                }
                guard let next, let started, let pages, let order else {
                    throw reader.error("the cursor needs next, started, pages and order", at: start)
                }
                metadata.fullSyncCursor = FullSyncCursor(
                    nextPage: next, startedAt: started, pagesFetched: pages,
                    nextServerOrder: Int64(order), firstServerOrder: first.map(Int64.init)
                )
            }
            else if key.equals("unbookmarked") { metadata.unbookmarkedInApp = try readInAppRecords(&reader) }
            else if key.equals("bookmarked") { metadata.bookmarkedInApp = try readInAppRecords(&reader) }
            else if key.equals("pause") {
                let start = reader.position
                var until: Date?, code: String?, message: String?
                try reader.readObject { reader, key in
                    if key.equals("until") { until = try readDate(&reader) }
                    else if key.equals("code") { code = try reader.readString() }
                    else if key.equals("message") { message = try reader.readString() }
                    else { try reader.skipValue() }
                }
                guard let until, let code, let message else { throw reader.error("a pause needs until, code and message", at: start) }
                metadata.pause = ListPause(until: until, code: code, message: message)
            }
            else { try reader.skipValue() }
        }
        return metadata
    }

    private static func readInAppRecords(_ reader: inout JSONReader) throws -> [Int: Date] {
        var records: [Int: Date] = [:]
        try reader.readArray { reader in
            let start = reader.position
            var id: Int?, date: Double?, count = 0
            try reader.readArray { reader in
                switch count {
                case 0: id = try reader.readInt()
                case 1: date = try reader.readDouble()
                default: try reader.skipValue()
                }
                count += 1
            }
            guard count == 2, let id, let date else {
                throw reader.error("an in-app record is [illust ID, date]", at: start)
            }
            records[id] = Date(timeIntervalSinceReferenceDate: date)
        }
        return records
    }

    private static func decodeIllust(_ reader: inout JSONReader) throws -> BookmarkedIllustSnapshot {
        let start = reader.position
        var id: Int?
        var illust = BookmarkedIllustSnapshot(id: 0, title: "")
        try reader.readObject { reader, key in
            if key.equals("id") { id = try reader.readInt() }
            else if key.equals("title") { illust.title = try reader.readString() }
            else if key.equals("type") { illust.type = IllustType(rawValue: try reader.readCachedString()) }
            else if key.equals("artistID") { illust.artistID = try reader.readInt() }
            else if key.equals("artist") { illust.artistName = try reader.readCachedString() }
            else if key.equals("tags") {
                try reader.readArray { reader in
                    let tagStart = reader.position
                    var parts: [String?] = []
                    try reader.readArray { reader in
                        parts.append(try reader.readNullIfPresent() ? nil : try reader.readCachedString())
                    }
                    guard (1...2).contains(parts.count), let name = parts[0] else {
                        throw reader.error("a tag is [name] or [name, translated name]", at: tagStart)
                    }
                    illust.tags.append(TagRef(name: name, translatedName: parts.count == 2 ? parts[1] : nil))
                }
            }
            else if key.equals("thumb") { illust.thumbnailURL = try reader.readOptionalString() }
            else if key.equals("pages") { illust.pageCount = try reader.readInt() }
            else if key.equals("width") { illust.width = try reader.readInt() }
            else if key.equals("height") { illust.height = try reader.readInt() }
            else if key.equals("xRestrict") { illust.xRestrict = try reader.readInt() }
            else if key.equals("aiType") { illust.aiType = try reader.readInt() }
            else if key.equals("created") { illust.createDate = try readDate(&reader) }
            else if key.equals("visible") { illust.isVisible = try reader.readBool() }
            else if key.equals("bookmarks") { illust.totalBookmarks = try reader.readInt() }
            else { try reader.skipValue() }
        }
        guard let id else { throw reader.error("the illust has no id", at: start) }
        illust.id = id
        return illust
    }
}
