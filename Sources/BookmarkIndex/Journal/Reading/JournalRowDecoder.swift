import BookmarkJSON
import Foundation

/// Reads the batch lines of this library's schema straight into ``PreparedRows``: each upsert's
/// row record, texts and tags, with no ``IndexedBookmark`` made on the way.
///
/// The records' descriptions (`JournalRecords`) stay what defines the format; this is a faster
/// way of reading what they write. Whatever it does not expect, it leaves to them: a change that
/// is not an upsert, or one it does not read through (an escape in a tag, a `null` where a value
/// belongs, a member twice, a required member missing) is read again by its description, and a
/// line that is not a plain batch is read whole by the codec, with the codec's errors. Tests
/// decode generated lines of every kind of change and value, and hand-written lines spelled
/// other ways or broken, both ways and compare, and check that this reader knows every member
/// the descriptions have. (The fixtures are of older schemas: their lines are migrated.)
struct JournalRowDecoder {
    /// Thrown inside to give a change or a line back to the descriptions.
    private struct Decline: Error {}

    /// The upsert's members this reader knows, in the order the journal writes them.
    static let upsertKeys: [StaticString] = ["op", "restrict", "order", "first", "seen", "vanishedAt", "illust"]
    /// The illust's members this reader knows, in the order the journal writes them.
    static let illustKeys: [StaticString] = [
        "id", "title", "type", "artistID", "artist", "tags", "thumb", "pages", "width", "height",
        "xRestrict", "aiType", "created", "vanished", "bookmarks", "views",
    ]

    /// The members the journal leaves out when they have no value (the others it always writes).
    private static let optionalUpsertMembers: UInt32 = 1 << 5
    private static let optionalIllustMembers: UInt32 = 1 << 13
    /// Each key as the journal writes it: quoted, with its colon, after a comma but the first.
    private static let writtenUpsertKeys = WrittenKeys(upsertKeys)
    private static let writtenIllustKeys = WrittenKeys(illustKeys)

    /// Keys as the journal writes them, in memory made once and kept, unchanged, for the life
    /// of the process: reading them costs no reference counting, as an array of arrays' would
    /// for every member of every row.
    private struct WrittenKeys: @unchecked Sendable {
        let keys: [UnsafeRawBufferPointer]

        init(_ keys: [StaticString]) {
            self.keys = keys.enumerated().map { index, key in
                let bytes = Array(((index == 0 ? "{\"" : ",\"") + key.description + "\":").utf8)
                let kept = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
                bytes.withUnsafeBytes { kept.copyMemory(from: $0) }
                return UnsafeRawBufferPointer(kept)
            }
        }
    }

    /// Reads the object at `reader` if it is written as the journal writes it: every member of
    /// `keys` in that order (those in `optional` may be left out), no whitespace, calling `read`
    /// with each member's number and the reader at its value. `false` at the first byte that
    /// differs, with the reader somewhere inside the object: the caller reads it again.
    private static func readWritten(
        _ reader: inout JSONReader, keys: WrittenKeys, optional: UInt32, read: (Int, inout JSONReader) throws -> Void
    ) throws -> Bool {
        try keys.keys.withUnsafeBufferPointer { keys in
            for index in keys.indices {
                if reader.consume(keys[index]) {
                    try read(index, &reader)
                } else if optional & 1 << index == 0 {
                    return false
                }
            }
            return withUnsafeBytes(of: UInt8(ascii: "}")) { reader.consume($0) }
        }
    }

    /// An illust's texts, as read, until they go to the arena in its order.
    private var scratch: [UInt8] = []

    /// Decodes the batch `line`, its checksum checked, into `rows`; returns its sequence number,
    /// or `nil` (with `rows` as they were) for a line to be read by the codec instead.
    mutating func decodeBatch(_ line: UnsafeRawBufferPointer, into rows: inout PreparedRows) -> Int? {
        let mark = rows.mark
        var reader = JSONReader(line)
        var sequence: Int?
        var sawChanges = false
        do {
            try reader.readObject { reader, key in
                if key.equals("crc") {
                    try reader.skipValue()
                } else if key.equals("seq"), sequence == nil {
                    sequence = try reader.readInt()
                } else if key.equals("changes"), !sawChanges {
                    sawChanges = true
                    try reader.readArray { reader in try decodeChange(&reader, into: &rows) }
                } else {
                    // A header, a member twice, or one a batch does not have.
                    throw Decline()
                }
            }
            try reader.expectEnd()
            guard let sequence, sawChanges else { throw Decline() }
            return sequence
        } catch {
            rows.rollBack(to: mark)
            return nil
        }
    }

    /// Reads one change: an upsert here, anything else (or an upsert this reader declines) by
    /// the codec.
    private mutating func decodeChange(_ reader: inout JSONReader, into rows: inout PreparedRows) throws {
        _ = reader.peek()
        let start = reader.position
        let mark = rows.mark
        do {
            try decodeUpsert(&reader, into: &rows)
        } catch {
            rows.rollBack(to: mark)
            reader.rewind(to: start)
            rows.append(try JournalCodec.decodeChange(&reader))
        }
    }

    /// An upsert's members, as read.
    private struct UpsertFields {
        var restrict: Restrict?, order: Int64?, first: Double?, seen: Double?, vanishedAt: Double?
        var illust: (row: ListIndex.Row, typeCode: UInt8)?
    }

    /// An illust's members, as read: its texts in ``scratch``, its tags at the end of the rows'.
    private struct IllustFields {
        var id: Int?, reason: VanishReason?
        var title = 0..<0, type: Range<Int>?, artistName = 0..<0, thumbnail: Range<Int>?
        var artistID: Int, pageCount: Int, width: Int, height: Int
        var xRestrict: Int, aiType: Int, totalBookmarks: Int, totalView: Int
        var created: Double
        var hasThumbnail = false
        var tagStart = 0

        /// What members left out read as: the description's empty record's values. Its texts
        /// are empty, it has no tags, thumbnail or vanish reason and its type is an illust
        /// (``unwrittenType``), which the tests of this reader check.
        static let defaults: IllustFields = {
            let empty = JournalRecords.Illust.empty
            return IllustFields(
                artistID: empty.artistID, pageCount: empty.pageCount, width: empty.width, height: empty.height,
                xRestrict: empty.xRestrict, aiType: empty.aiType, totalBookmarks: empty.totalBookmarks,
                totalView: empty.totalView, created: empty.createDate.timeIntervalSinceReferenceDate
            )
        }()
    }

    /// The type of an illust whose `type` is left out.
    static let unwrittenType = IllustType.illust

    private mutating func decodeUpsert(_ reader: inout JSONReader, into rows: inout PreparedRows) throws {
        var fields = UpsertFields()
        let start = reader.position
        let mark = rows.mark
        let written = try Self.readWritten(&reader, keys: Self.writtenUpsertKeys, optional: Self.optionalUpsertMembers) { member, reader in
            try readUpsertMember(member, &reader, into: &fields, rows: &rows)
        }
        if !written {
            // Another order, or spacing: member by member, by key.
            reader.rewind(to: start)
            rows.rollBack(to: mark)
            fields = UpsertFields()
            var read: UInt32 = 0
            var next = 0
            try reader.readObject { reader, key in
                guard let member = Self.member(key, of: Self.upsertKeys, after: &next), read & 1 << member == 0 else { throw Decline() }
                // The op first, as the journal writes it: what says the object is an upsert.
                guard member == 0 || read & 1 != 0 else { throw Decline() }
                read |= 1 << member
                try readUpsertMember(member, &reader, into: &fields, rows: &rows)
            }
        }
        guard let restrict = fields.restrict, let order = fields.order, let first = fields.first, let seen = fields.seen,
              let illust = fields.illust else { throw Decline() }
        var row = illust.row
        row.serverOrder = order
        row.firstIndexedAt = first
        row.lastSeenAt = seen
        // As ``ListIndex/Row/init(_:tagCount:thumbnailLength:)``: a visible work keeps no date.
        if !row.isVisible, let vanishedAt = fields.vanishedAt {
            row.vanishedAt = vanishedAt
            row.flags |= ListIndex.Row.hasVanishedAtFlag
        }
        rows.appendUpsert(row, restrict: restrict, typeCode: illust.typeCode)
    }

    /// Reads the value of the upsert's member number `member` (of ``upsertKeys``).
    private mutating func readUpsertMember(_ member: Int, _ reader: inout JSONReader, into fields: inout UpsertFields, rows: inout PreparedRows) throws {
        switch member {
        case 0: guard reader.readPlainString()?.equals("upsert") == true else { throw Decline() }
        case 1:
            guard let text = reader.readPlainString() else { throw Decline() }
            if text.equals("public") { fields.restrict = .public } else if text.equals("private") { fields.restrict = .private } else { throw Decline() }
        case 2: fields.order = Int64(try reader.readInt())
        case 3: fields.first = try reader.readDouble()
        case 4: fields.seen = try reader.readDouble()
        case 5: fields.vanishedAt = try reader.readDouble()
        default: fields.illust = try decodeIllust(&reader, into: &rows)
        }
    }

    /// Reads an illust: its row (the upsert's own fields still to be set), its texts placed at
    /// the end of `rows`' arena and its tags at the end of its tags; and its kind's code.
    private mutating func decodeIllust(_ reader: inout JSONReader, into rows: inout PreparedRows) throws -> (ListIndex.Row, UInt8) {
        let start = reader.position
        let mark = rows.mark
        var fields = IllustFields.defaults
        fields.tagStart = rows.tags.count
        scratch.removeAll(keepingCapacity: true)
        let written = try Self.readWritten(&reader, keys: Self.writtenIllustKeys, optional: Self.optionalIllustMembers) { member, reader in
            try readIllustMember(member, &reader, into: &fields, rows: &rows)
        }
        if !written {
            reader.rewind(to: start)
            rows.rollBack(to: mark)
            fields = IllustFields.defaults
            fields.tagStart = rows.tags.count
            scratch.removeAll(keepingCapacity: true)
            var read: UInt32 = 0
            var next = 0
            try reader.readObject { reader, key in
                guard let member = Self.member(key, of: Self.illustKeys, after: &next), read & 1 << member == 0 else { throw Decline() }
                read |= 1 << member
                try readIllustMember(member, &reader, into: &fields, rows: &rows)
            }
        }
        return try row(of: fields, into: &rows)
    }

    /// Reads the value of the illust's member number `member` (of ``illustKeys``).
    private mutating func readIllustMember(_ member: Int, _ reader: inout JSONReader, into fields: inout IllustFields, rows: inout PreparedRows) throws {
        switch member {
        case 0: fields.id = try reader.readInt()
        case 1: fields.title = try readText(&reader)
        case 2: fields.type = try readText(&reader)
        case 3: fields.artistID = try reader.readInt()
        case 4: fields.artistName = try readText(&reader)
        case 5:
            try reader.readArray { reader in
                let position = try Self.readTag(&reader, rows: &rows)
                rows.appendTag(position)
            }
        case 6:
            if try reader.readNullIfPresent() {
                fields.hasThumbnail = false
            } else {
                fields.thumbnail = try readText(&reader)
                fields.hasThumbnail = true
            }
        case 7: fields.pageCount = try reader.readInt()
        case 8: fields.width = try reader.readInt()
        case 9: fields.height = try reader.readInt()
        case 10: fields.xRestrict = try reader.readInt()
        case 11: fields.aiType = try reader.readInt()
        case 12: fields.created = try reader.readDouble()
        case 13:
            guard let found = VanishReason(rawValue: try reader.readString()) else { throw Decline() }
            fields.reason = found
        case 14: fields.totalBookmarks = try reader.readInt()
        default: fields.totalView = try reader.readInt()
        }
    }

    /// The row of the illust `fields` read, its texts placed in the arena's order: title,
    /// artist's name, thumbnail code, type.
    private func row(of fields: IllustFields, into rows: inout PreparedRows) throws -> (ListIndex.Row, UInt8) {
        guard let id = fields.id else { throw Decline() }
        let textStart = rows.text.count
        var thumbnailLength = 0, typeLength = 0, typeCode: UInt8 = 0
        scratch.withUnsafeBytes { scratch in
            rows.appendText(UnsafeRawBufferPointer(rebasing: scratch[fields.title]))
            rows.appendText(UnsafeRawBufferPointer(rebasing: scratch[fields.artistName]))
            if let thumbnail = fields.thumbnail {
                thumbnailLength = rows.appendThumbnail(UnsafeRawBufferPointer(rebasing: scratch[thumbnail]), illustID: id)
            }
            if let type = fields.type {
                let bytes = UnsafeRawBufferPointer(rebasing: scratch[type])
                rows.appendText(bytes)
                typeLength = bytes.count
                typeCode = FacetColumns.Attributes.typeCode(ofRawValue: bytes.assumingMemoryBound(to: UInt8.self))
            }
        }
        if fields.type == nil {
            var rawValue = Self.unwrittenType.rawValue
            rawValue.withUTF8 { bytes in
                rows.appendText(UnsafeRawBufferPointer(bytes))
                typeLength = bytes.count
            }
            typeCode = FacetColumns.Attributes.typeCode(of: Self.unwrittenType)
        }
        let row = ListIndex.Row(
            illustID: id, serverOrder: 0, firstIndexedAt: 0, lastSeenAt: 0, createDate: fields.created, vanishedAt: 0,
            artistID: fields.artistID, totalBookmarks: fields.totalBookmarks, pageCount: fields.pageCount,
            width: fields.width, height: fields.height, xRestrict: fields.xRestrict, aiType: fields.aiType,
            textStart: textStart, tagStart: fields.tagStart,
            titleLength: UInt32(fields.title.count), artistNameLength: UInt32(fields.artistName.count),
            thumbnailLength: UInt32(thumbnailLength), typeLength: UInt32(typeLength),
            tagCount: UInt32(rows.tags.count - fields.tagStart), orderStamp: 0,
            flags: ListIndex.Row.isLiveFlag | (fields.hasThumbnail ? ListIndex.Row.hasThumbnailFlag : 0),
            vanishReason: ListIndex.Row.reasonCode(fields.reason),
            totalView: UInt32(clamping: fields.totalView)
        )
        return (row, typeCode)
    }

    /// Reads a string into ``scratch``, checked as the codec checks it; returns where it is.
    private mutating func readText(_ reader: inout JSONReader) throws -> Range<Int> {
        let start = scratch.count
        if let bytes = reader.readPlainString() {
            guard isValidUTF8(bytes) else { throw Decline() }
            scratch.append(contentsOf: bytes)
        } else {
            var string = try reader.readString()
            string.withUTF8 { scratch.append(contentsOf: $0) }
        }
        return start..<scratch.count
    }

    /// Reads a tag, `[name]` or `[name, translation]`, and returns its position in `rows`' tag
    /// list: a tag met before in the same rows is found by its JSON text, without a string made.
    private static func readTag(_ reader: inout JSONReader, rows: inout PreparedRows) throws -> UInt32 {
        guard let (json, name, translation) = reader.readCompactStringPair() else { throw Decline() }
        let hash = tagKey(json)
        if let known = rows.position(ofJSON: json, hash: hash) { return known }
        guard isValidUTF8(name), translation.map(isValidUTF8) ?? true else { throw Decline() }
        let tag = ArtworkTag(
            name: String(decoding: name.assumingMemoryBound(to: UInt8.self), as: UTF8.self),
            translatedName: translation.map { String(decoding: $0.assumingMemoryBound(to: UInt8.self), as: UTF8.self) }
        )
        return rows.add(tag, json: json, jsonHash: hash)
    }

    /// A hash of a tag's JSON text for the rows' table of tags met: its length and its first and
    /// last eight bytes, mixed. Cheaper than hashing every byte, and enough to tell a block's
    /// few thousand tags apart; tags with equal hashes are compared in full.
    static func tagKey(_ json: UnsafeRawBufferPointer) -> UInt64 {
        let count = json.count
        var first: UInt64 = 0, last: UInt64 = 0
        if count >= 8 {
            first = json.loadUnaligned(as: UInt64.self)
            last = json.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        } else {
            for byte in json { first = first << 8 | UInt64(byte) }
        }
        var key = first &* 0x9E37_79B9_7F4A_7C15 ^ (last ^ UInt64(count)) &* 0xC2B2_AE3D_27D4_EB4F
        key ^= key >> 33
        key &*= 0xFF51_AFD7_ED55_8CCD
        key ^= key >> 33
        return key
    }

    /// The index in `keys` of `key`, trying the one after the last found first (`next`, moved
    /// past the one found), as the journal writes them in order.
    private static func member(_ key: UnsafeRawBufferPointer, of keys: [StaticString], after next: inout Int) -> Int? {
        if next < keys.count, key.equals(keys[next]) {
            next += 1
            return next - 1
        }
        guard let index = keys.firstIndex(where: { key.equals($0) }) else { return nil }
        next = index + 1
        return index
    }
}
