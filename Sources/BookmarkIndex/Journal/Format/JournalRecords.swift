import BookmarkJSON
import Foundation

/// The journal's records, each described once (see ``JournalRecord``): what DocC's "Journal
/// format" article lists, member by member, in the order they are written.
enum JournalRecords {
    // MARK: Lines

    /// The first line of a journal (after the `crc` every line has, which the codec writes).
    enum Header: JournalRecord {
        static let name = "the header"
        static var empty: JournalCodec.Header { .init(schemaVersion: 0, created: Date(timeIntervalSinceReferenceDate: 0)) }
        static func describe<Visitor: JournalRecordVisitor<JournalCodec.Header>>(_ visitor: inout Visitor) throws {
            try visitor.constant("format", JournalCodec.formatName)
            try visitor.member("schema", .int, required: true, get: { $0.schemaVersion }, set: { $0.schemaVersion = $1 })
            try visitor.member("created", .date, get: { $0.created }, set: { $0.created = $1 })
            try visitor.member("compacted", .nullable(.date), get: { $0.compacted }, set: { $0.compacted = $1 })
            // A string: JSON readers may hold numbers as doubles, which cannot carry 64 bits.
            try visitor.optional("id", .journalID, get: { $0.id }, set: { $0.id = $1 })
        }
    }

    /// A batch line: `seq` and `changes`.
    struct Batch {
        var sequence: Int
        var changes: [BookmarkChange]

        enum Record: JournalRecord {
            static let name = "the batch"
            static var empty: Batch { Batch(sequence: 0, changes: []) }
            static func describe<Visitor: JournalRecordVisitor<Batch>>(_ visitor: inout Visitor) throws {
                try visitor.member("seq", .int, required: true, get: { $0.sequence }, set: { $0.sequence = $1 })
                try visitor.member("changes", .array(.change), required: true, get: { $0.changes }, set: { $0.changes = $1 })
            }
        }
    }

    // MARK: Changes

    /// A change's `op`, which says which record it is.
    static let opKey: StaticString = "op"

    enum Upsert: JournalRecord {
        static let name = "the upsert change"
        static var empty: IndexedBookmark {
            IndexedBookmark(
                illust: Illust.empty, restrict: .public, serverOrder: 0,
                firstIndexedAt: Date(timeIntervalSinceReferenceDate: 0), lastSeenAt: Date(timeIntervalSinceReferenceDate: 0)
            )
        }
        static func describe<Visitor: JournalRecordVisitor<IndexedBookmark>>(_ visitor: inout Visitor) throws {
            try visitor.constant(opKey, "upsert")
            try visitor.member("restrict", .restrict, required: true, get: { $0.restrict }, set: { $0.restrict = $1 })
            try visitor.member("order", .int64, required: true, get: { $0.serverOrder }, set: { $0.serverOrder = $1 })
            try visitor.member("first", .date, required: true, get: { $0.firstIndexedAt }, set: { $0.firstIndexedAt = $1 })
            try visitor.member("seen", .date, required: true, get: { $0.lastSeenAt }, set: { $0.lastSeenAt = $1 })
            // Schema 2: when the index saw the work vanish, only for a vanished row that has the date.
            try visitor.optional("vanishedAt", .date, get: { $0.illust.isVisible ? nil : $0.vanishedAt }, set: { $0.vanishedAt = $1 })
            try visitor.member("illust", .record(Illust.self), required: true, get: { $0.illust }, set: { $0.illust = $1 })
        }
    }

    enum Remove: JournalRecord {
        static let name = "the remove change"
        static var empty: BookmarkKey { BookmarkKey(illustID: 0, restrict: .public) }
        static func describe<Visitor: JournalRecordVisitor<BookmarkKey>>(_ visitor: inout Visitor) throws {
            try visitor.constant(opKey, "remove")
            try visitor.member("restrict", .restrict, required: true, get: { $0.restrict }, set: { $0.restrict = $1 })
            try visitor.member("id", .int, required: true, get: { $0.illustID }, set: { $0.illustID = $1 })
        }
    }

    enum RemoveAll: JournalRecord {
        static let name = "the removeAll change"
        static var empty: Restrict { .public }
        static func describe<Visitor: JournalRecordVisitor<Restrict>>(_ visitor: inout Visitor) throws {
            try visitor.constant(opKey, "removeAll")
            try visitor.member("restrict", .restrict, required: true, get: { $0 }, set: { $0 = $1 })
        }
    }

    /// A `metadata` change's two parts.
    struct MetadataChange {
        var metadata: BookmarkIndexMetadata
        var restrict: Restrict

        enum Record: JournalRecord {
            static let name = "the metadata change"
            static var empty: MetadataChange { MetadataChange(metadata: BookmarkIndexMetadata(), restrict: .public) }
            static func describe<Visitor: JournalRecordVisitor<MetadataChange>>(_ visitor: inout Visitor) throws {
                try visitor.constant(opKey, "metadata")
                try visitor.member("restrict", .restrict, required: true, get: { $0.restrict }, set: { $0.restrict = $1 })
                try visitor.member("metadata", .record(Metadata.self), required: true, get: { $0.metadata }, set: { $0.metadata = $1 })
            }
        }
    }

    // MARK: Their parts

    enum Illust: JournalRecord {
        static let name = "the illust"
        static var empty: BookmarkedIllustSnapshot { BookmarkedIllustSnapshot(id: 0, title: "") }
        static func describe<Visitor: JournalRecordVisitor<BookmarkedIllustSnapshot>>(_ visitor: inout Visitor) throws {
            try visitor.member("id", .int, required: true, get: { $0.id }, set: { $0.id = $1 })
            try visitor.member("title", .string, get: { $0.title }, set: { $0.title = $1 })
            try visitor.member("type", .illustType, get: { $0.type }, set: { $0.type = $1 })
            try visitor.member("artistID", .int, get: { $0.artistID }, set: { $0.artistID = $1 })
            try visitor.member("artist", .cachedString, get: { $0.artistName }, set: { $0.artistName = $1 })
            try visitor.member("tags", .array(.tag), get: { $0.tags }, set: { $0.tags = $1 })
            try visitor.member("thumb", .nullable(.string), get: { $0.thumbnailURL }, set: { $0.thumbnailURL = $1 })
            try visitor.member("pages", .int, get: { $0.pageCount }, set: { $0.pageCount = $1 })
            try visitor.member("width", .int, get: { $0.width }, set: { $0.width = $1 })
            try visitor.member("height", .int, get: { $0.height }, set: { $0.height = $1 })
            try visitor.member("xRestrict", .int, get: { $0.xRestrict }, set: { $0.xRestrict = $1 })
            try visitor.member("aiType", .int, get: { $0.aiType }, set: { $0.aiType = $1 })
            try visitor.member("created", .date, get: { $0.createDate }, set: { $0.createDate = $1 })
            // Schema 2: why the work vanished, only for one that did (schema 1 wrote `visible`).
            try visitor.optional("vanished", .vanishReason, get: { $0.vanishReason }, set: { $0.vanishReason = $1 })
            try visitor.member("bookmarks", .int, get: { $0.totalBookmarks }, set: { $0.totalBookmarks = $1 })
            // Schema 5: the view count (absent before: read as 0, unknown).
            try visitor.member("views", .int, get: { $0.totalView }, set: { $0.totalView = $1 })
        }
    }

    enum Metadata: JournalRecord {
        static let name = "the metadata"
        static var empty: BookmarkIndexMetadata { BookmarkIndexMetadata() }
        static func describe<Visitor: JournalRecordVisitor<BookmarkIndexMetadata>>(_ visitor: inout Visitor) throws {
            try visitor.member("schema", .int, get: { $0.schemaVersion }, set: { $0.schemaVersion = $1 })
            try visitor.member("lastFull", .nullable(.date), get: { $0.lastFullSync }, set: { $0.lastFullSync = $1 })
            try visitor.member("lastDelta", .nullable(.date), get: { $0.lastDeltaSync }, set: { $0.lastDeltaSync = $1 })
            // Schema 3: the sync engine's record, kept as it wrote it (schema 2 had its parts here:
            // `cursor`, `unbookmarked`, `bookmarked`, `pause`).
            try visitor.optional("sync", .payload, get: { $0.syncState }, set: { $0.syncState = $1 })
        }
    }

}

// MARK: The journal's values

/// Seconds since Foundation's reference date, which read back exactly.
struct JournalDateCoding: JournalValueCoding {
    func write(_ value: Date, to writer: inout JSONWriter) { writer.double(value.timeIntervalSinceReferenceDate) }
    func read(_ reader: inout JSONReader) throws -> Date { Date(timeIntervalSinceReferenceDate: try reader.readDouble()) }
}

struct JournalRestrictCoding: JournalValueCoding {
    func write(_ value: Restrict, to writer: inout JSONWriter) { writer.string(value.rawValue) }
    func read(_ reader: inout JSONReader) throws -> Restrict {
        let start = reader.position
        let text = try reader.readString()
        guard let restrict = Restrict(rawValue: text) else {
            throw reader.error("restrict must be \"public\" or \"private\", not \"\(text)\"", at: start)
        }
        return restrict
    }
}

/// The reason's raw value: `"deleted"`, `"myPixivOnly"`, `"sanityLimited"`, `"unviewable"` or `"unknown"`.
struct JournalVanishReasonCoding: JournalValueCoding {
    func write(_ value: VanishReason, to writer: inout JSONWriter) { writer.string(value.rawValue) }
    func read(_ reader: inout JSONReader) throws -> VanishReason {
        let start = reader.position
        let text = try reader.readString()
        guard let reason = VanishReason(rawValue: text) else {
            throw reader.error("'\(text)' is not a reason a work vanishes for (\(VanishReason.allCases.map(\.rawValue).joined(separator: ", ")))", at: start)
        }
        return reason
    }
}

struct JournalIllustTypeCoding: JournalValueCoding {
    func write(_ value: IllustType, to writer: inout JSONWriter) { writer.string(value.rawValue) }
    func read(_ reader: inout JSONReader) throws -> IllustType { IllustType(rawValue: try reader.readCachedString()) }
}

/// `[name]` or `[name, translated name]` (a `null` translation reads as none).
struct JournalTagCoding: JournalValueCoding {
    func write(_ tag: ArtworkTag, to writer: inout JSONWriter) {
        writer.byte(UInt8(ascii: "["))
        writer.string(tag.name)
        if let translated = tag.translatedName {
            writer.byte(UInt8(ascii: ","))
            writer.string(translated)
        }
        writer.byte(UInt8(ascii: "]"))
    }

    /// With a cache (as when the journal's blocks are decoded), a tag seen before in the same
    /// block comes from it, its bytes compared instead of read again.
    func read(_ reader: inout JSONReader) throws -> ArtworkTag {
        let start = reader.position
        var name: String?, translation: String?, count = 0
        try reader.readCachedStringArray { part in
            if count == 0 { name = part } else { translation = part }
            count += 1
        }
        guard (1...2).contains(count), let name else {
            throw reader.error("a tag is [name] or [name, translated name]", at: start)
        }
        return ArtworkTag(name: name, translatedName: translation)
    }
}

/// A ``VersionedPayload``: `{"v": version, "state": <its JSON, as it is>, "stale": true}` (the
/// last only when stale). The JSON was checked when the payload was made, and is checked again
/// when read.
struct JournalPayloadCoding: JournalValueCoding {
    func write(_ payload: VersionedPayload, to writer: inout JSONWriter) {
        writer.raw("{\"v\":")
        writer.int(payload.version)
        writer.raw(",\"state\":")
        payload.json.withUnsafeBytes { writer.raw($0) }
        if payload.isStale { writer.raw(",\"stale\":true") }
        writer.byte(UInt8(ascii: "}"))
    }

    func read(_ reader: inout JSONReader) throws -> VersionedPayload {
        let start = reader.position
        var version: Int?, json: Data?, stale = false
        try reader.readObject { reader, key in
            switch String(decoding: key, as: UTF8.self) {
            case "v": version = try reader.readInt()
            case "state":
                reader.skipWhitespace()
                let from = reader.position
                try reader.skipValue()
                json = Data(reader.bytes[from..<reader.position])
            case "stale": stale = try reader.readBool()
            default: try reader.skipValue()
            }
        }
        guard let version, let json else { throw reader.error("a sync record is {\"v\": version, \"state\": …}", at: start) }
        guard String(bytes: json, encoding: .utf8) != nil else { throw reader.error("a sync record's state is not valid UTF-8", at: start) }
        return VersionedPayload(version: version, checkedJSON: json, isStale: stale)
    }
}

/// A header's `id`: 16 lower-case hex digits.
struct JournalIDCoding: JournalValueCoding {
    func write(_ value: UInt64, to writer: inout JSONWriter) { writer.string(JournalCodec.hexID(value)) }
    func read(_ reader: inout JSONReader) throws -> UInt64 {
        let start = reader.position
        let text = try reader.readString()
        guard text.utf8.count == 16, let value = UInt64(text, radix: 16) else {
            throw JSONReadError(offset: start, message: "the header's id '\(text)' is not 16 hex digits")
        }
        return value
    }
}

/// A change: the record its `op` names.
struct JournalChangeCoding: JournalValueCoding {
    func write(_ value: BookmarkChange, to writer: inout JSONWriter) { JournalCodec.appendChange(value, to: &writer) }
    func read(_ reader: inout JSONReader) throws -> BookmarkChange { try JournalCodec.decodeChange(&reader) }
}

extension JournalValueCoding where Self == JournalDateCoding { static var date: Self { Self() } }
extension JournalValueCoding where Self == JournalRestrictCoding { static var restrict: Self { Self() } }
extension JournalValueCoding where Self == JournalVanishReasonCoding { static var vanishReason: Self { Self() } }
extension JournalValueCoding where Self == JournalIllustTypeCoding { static var illustType: Self { Self() } }
extension JournalValueCoding where Self == JournalTagCoding { static var tag: Self { Self() } }
extension JournalValueCoding where Self == JournalPayloadCoding { static var payload: Self { Self() } }
extension JournalValueCoding where Self == JournalIDCoding { static var journalID: Self { Self() } }
extension JournalValueCoding where Self == JournalChangeCoding { static var change: Self { Self() } }
