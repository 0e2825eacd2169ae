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
/// decode every fixture and generated journals both ways and compare, and check that this
/// reader knows every member the descriptions have.
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

    /// What an illust's members leave unset reads as: the description's empty record.
    private static let empty = JournalRecords.Illust.empty

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

    private mutating func decodeUpsert(_ reader: inout JSONReader, into rows: inout PreparedRows) throws {
        var restrict: Restrict?, order: Int64?, first: Double?, seen: Double?, vanishedAt: Double?
        var row: ListIndex.Row?, typeCode: UInt8 = 0
        var read: UInt32 = 0
        var next = 0
        try reader.readObject { reader, key in
            guard let member = Self.member(key, of: Self.upsertKeys, after: &next), read & 1 << member == 0 else { throw Decline() }
            // The op first, as the journal writes it: what says the object is an upsert.
            guard member == 0 || read & 1 != 0 else { throw Decline() }
            read |= 1 << member
            switch member {
            case 0: guard reader.readPlainString()?.equals("upsert") == true else { throw Decline() }
            case 1:
                guard let text = reader.readPlainString() else { throw Decline() }
                if text.equals("public") { restrict = .public } else if text.equals("private") { restrict = .private } else { throw Decline() }
            case 2: order = Int64(try reader.readInt())
            case 3: first = try reader.readDouble()
            case 4: seen = try reader.readDouble()
            case 5: vanishedAt = try reader.readDouble()
            default: (row, typeCode) = try decodeIllust(&reader, into: &rows)
            }
        }
        guard let restrict, let order, let first, let seen, var row else { throw Decline() }
        row.serverOrder = order
        row.firstIndexedAt = first
        row.lastSeenAt = seen
        // As ``ListIndex/Row/init(_:tagCount:thumbnailLength:)``: a visible work keeps no date.
        if !row.isVisible, let vanishedAt {
            row.vanishedAt = vanishedAt
            row.flags |= ListIndex.Row.hasVanishedAtFlag
        }
        rows.appendUpsert(row, restrict: restrict, typeCode: typeCode)
    }

    /// Reads an illust: its row (the upsert's own fields still to be set), its texts placed at
    /// the end of `rows`' arena and its tags at the end of its tags; and its kind's code.
    private mutating func decodeIllust(_ reader: inout JSONReader, into rows: inout PreparedRows) throws -> (ListIndex.Row, UInt8) {
        let empty = Self.empty
        var id: Int?, reason: VanishReason?
        var title = 0..<0, type: Range<Int>?, artistName = 0..<0, thumbnail: Range<Int>?
        var artistID = empty.artistID, pageCount = empty.pageCount, width = empty.width, height = empty.height
        var xRestrict = empty.xRestrict, aiType = empty.aiType, totalBookmarks = empty.totalBookmarks, totalView = empty.totalView
        var created = empty.createDate.timeIntervalSinceReferenceDate
        var hasThumbnail = empty.thumbnailURL != nil
        let tagStart = rows.tags.count
        var read: UInt32 = 0
        var next = 0
        scratch.removeAll(keepingCapacity: true)
        try reader.readObject { reader, key in
            guard let member = Self.member(key, of: Self.illustKeys, after: &next), read & 1 << member == 0 else { throw Decline() }
            read |= 1 << member
            switch member {
            case 0: id = try reader.readInt()
            case 1: title = try readText(&reader)
            case 2: type = try readText(&reader)
            case 3: artistID = try reader.readInt()
            case 4: artistName = try readText(&reader)
            case 5:
                try reader.readArray { reader in
                    let position = try Self.readTag(&reader, rows: &rows)
                    rows.appendTag(position)
                }
            case 6:
                if try reader.readNullIfPresent() {
                    hasThumbnail = false
                } else {
                    thumbnail = try readText(&reader)
                    hasThumbnail = true
                }
            case 7: pageCount = try reader.readInt()
            case 8: width = try reader.readInt()
            case 9: height = try reader.readInt()
            case 10: xRestrict = try reader.readInt()
            case 11: aiType = try reader.readInt()
            case 12: created = try reader.readDouble()
            case 13:
                guard let found = VanishReason(rawValue: try reader.readString()) else { throw Decline() }
                reason = found
            case 14: totalBookmarks = try reader.readInt()
            default: totalView = try reader.readInt()
            }
        }
        guard let id, empty.title.isEmpty, empty.artistName.isEmpty, empty.thumbnailURL == nil, empty.tags.isEmpty, empty.vanishReason == nil else {
            throw Decline()
        }

        // The texts in the arena's order: title, artist's name, thumbnail code, type.
        let textStart = rows.text.count
        var thumbnailLength = 0, typeLength = 0, typeCode: UInt8 = 0
        scratch.withUnsafeBytes { scratch in
            rows.appendText(UnsafeRawBufferPointer(rebasing: scratch[title]))
            rows.appendText(UnsafeRawBufferPointer(rebasing: scratch[artistName]))
            if let thumbnail { thumbnailLength = rows.appendThumbnail(UnsafeRawBufferPointer(rebasing: scratch[thumbnail]), illustID: id) }
            if let type {
                let bytes = UnsafeRawBufferPointer(rebasing: scratch[type])
                rows.appendText(bytes)
                typeLength = bytes.count
                typeCode = FacetColumns.Attributes.typeCode(ofRawValue: bytes.assumingMemoryBound(to: UInt8.self))
            }
        }
        if type == nil {
            var rawValue = empty.type.rawValue
            rawValue.withUTF8 { bytes in
                rows.appendText(UnsafeRawBufferPointer(bytes))
                typeLength = bytes.count
            }
            typeCode = FacetColumns.Attributes.typeCode(of: empty.type)
        }
        let row = ListIndex.Row(
            illustID: id, serverOrder: 0, firstIndexedAt: 0, lastSeenAt: 0, createDate: created, vanishedAt: 0,
            artistID: artistID, totalBookmarks: totalBookmarks, pageCount: pageCount,
            width: width, height: height, xRestrict: xRestrict, aiType: aiType,
            textStart: textStart, tagStart: tagStart,
            titleLength: UInt32(title.count), artistNameLength: UInt32(artistName.count),
            thumbnailLength: UInt32(thumbnailLength), typeLength: UInt32(typeLength),
            tagCount: UInt32(rows.tags.count - tagStart), orderStamp: 0,
            flags: ListIndex.Row.isLiveFlag | (hasThumbnail ? ListIndex.Row.hasThumbnailFlag : 0),
            vanishReason: ListIndex.Row.reasonCode(reason),
            totalView: UInt32(clamping: totalView)
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
        let hash = XXH64.hash(json)
        if let known = rows.position(ofJSON: json, hash: hash) { return known }
        guard isValidUTF8(name), translation.map(isValidUTF8) ?? true else { throw Decline() }
        let tag = ArtworkTag(
            name: String(decoding: name.assumingMemoryBound(to: UInt8.self), as: UTF8.self),
            translatedName: translation.map { String(decoding: $0.assumingMemoryBound(to: UInt8.self), as: UTF8.self) }
        )
        return rows.add(tag, json: json, jsonHash: hash)
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
