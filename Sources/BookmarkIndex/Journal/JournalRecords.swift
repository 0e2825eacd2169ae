import Foundation

/// The journal's records, each described once (see ``JournalRecord``): what DocC's "Journal
/// format" article lists, member by member, in the order they are written.
enum JournalRecords {
    // MARK: Lines

    /// A batch line: `seq` and `changes` (and the `crc` every line has, which the codec writes).
    struct Batch: Sendable {
        var sequence: Int
        var changes: [BookmarkChange]
    }

    static let header = JournalRecord<JournalCodec.Header>("the header", empty: .init(schemaVersion: 0, created: Date(timeIntervalSinceReferenceDate: 0)), [
        .constant("format", JournalCodec.formatName),
        .init("schema", .int, required: true, get: { $0.schemaVersion }, set: { $0.schemaVersion = $1 }),
        .init("created", .date, get: { $0.created }, set: { $0.created = $1 }),
        .init("compacted", .nullable(.date), get: { $0.compacted }, set: { $0.compacted = $1 }),
        // A string: JSON readers may hold numbers as doubles, which cannot carry 64 bits.
        .optional("id", .journalID, get: { $0.id }, set: { $0.id = $1 }),
    ])

    static let batch = JournalRecord<Batch>("the batch", empty: Batch(sequence: 0, changes: []), [
        .init("seq", .int, required: true, get: { $0.sequence }, set: { $0.sequence = $1 }),
        .init("changes", .array(.change), required: true, get: { $0.changes }, set: { $0.changes = $1 }),
    ])

    // MARK: Changes

    /// A change's `op`, which says which record it is.
    static let opKey: StaticString = "op"

    static let upsert = JournalRecord<IndexedBookmark>("the upsert change", empty: IndexedBookmark(
        illust: illust.empty, restrict: .public, serverOrder: 0,
        firstIndexedAt: Date(timeIntervalSinceReferenceDate: 0), lastSeenAt: Date(timeIntervalSinceReferenceDate: 0)
    ), [
        .constant(opKey, "upsert"),
        .init("restrict", .restrict, required: true, get: { $0.restrict }, set: { $0.restrict = $1 }),
        .init("order", .int64, required: true, get: { $0.serverOrder }, set: { $0.serverOrder = $1 }),
        .init("first", .date, required: true, get: { $0.firstIndexedAt }, set: { $0.firstIndexedAt = $1 }),
        .init("seen", .date, required: true, get: { $0.lastSeenAt }, set: { $0.lastSeenAt = $1 }),
        // Schema 2: when the index saw the work vanish, only for a row that has the date.
        .optional("vanishedAt", .date, get: { $0.illust.isVisible ? nil : $0.vanishedAt }, set: { $0.vanishedAt = $1 }),
        .init("illust", .record(illust), required: true, get: { $0.illust }, set: { $0.illust = $1 }),
    ])

    static let remove = JournalRecord<BookmarkKey>("the remove change", empty: BookmarkKey(illustID: 0, restrict: .public), [
        .constant(opKey, "remove"),
        .init("restrict", .restrict, required: true, get: { $0.restrict }, set: { $0.restrict = $1 }),
        .init("id", .int, required: true, get: { $0.illustID }, set: { $0.illustID = $1 }),
    ])

    static let removeAll = JournalRecord<Restrict>("the removeAll change", empty: .public, [
        .constant(opKey, "removeAll"),
        .init("restrict", .restrict, required: true, get: { $0 }, set: { $0 = $1 }),
    ])

    /// A `metadata` change's two parts.
    struct MetadataChange: Sendable {
        var metadata: BookmarkIndexMetadata
        var restrict: Restrict
    }

    static let setMetadata = JournalRecord<MetadataChange>("the metadata change", empty: MetadataChange(metadata: BookmarkIndexMetadata(), restrict: .public), [
        .constant(opKey, "metadata"),
        .init("restrict", .restrict, required: true, get: { $0.restrict }, set: { $0.restrict = $1 }),
        .init("metadata", .record(metadata), required: true, get: { $0.metadata }, set: { $0.metadata = $1 }),
    ])

    // MARK: Their parts

    static let illust = JournalRecord<BookmarkedIllustSnapshot>("the illust", empty: BookmarkedIllustSnapshot(id: 0, title: ""), [
        .init("id", .int, required: true, get: { $0.id }, set: { $0.id = $1 }),
        .init("title", .string, get: { $0.title }, set: { $0.title = $1 }),
        .init("type", .illustType, get: { $0.type }, set: { $0.type = $1 }),
        .init("artistID", .int, get: { $0.artistID }, set: { $0.artistID = $1 }),
        .init("artist", .cachedString, get: { $0.artistName }, set: { $0.artistName = $1 }),
        .init("tags", .array(.tag), get: { $0.tags }, set: { $0.tags = $1 }),
        .init("thumb", .nullable(.string), get: { $0.thumbnailURL }, set: { $0.thumbnailURL = $1 }),
        .init("pages", .int, get: { $0.pageCount }, set: { $0.pageCount = $1 }),
        .init("width", .int, get: { $0.width }, set: { $0.width = $1 }),
        .init("height", .int, get: { $0.height }, set: { $0.height = $1 }),
        .init("xRestrict", .int, get: { $0.xRestrict }, set: { $0.xRestrict = $1 }),
        .init("aiType", .int, get: { $0.aiType }, set: { $0.aiType = $1 }),
        .init("created", .date, get: { $0.createDate }, set: { $0.createDate = $1 }),
        // Schema 2: why the work vanished, only for one that did (schema 1 wrote `visible`).
        .optional("vanished", .vanishReason, get: { $0.vanishReason }, set: { $0.vanishReason = $1 }),
        .init("bookmarks", .int, get: { $0.totalBookmarks }, set: { $0.totalBookmarks = $1 }),
    ])

    static let metadata = JournalRecord<BookmarkIndexMetadata>("the metadata", empty: BookmarkIndexMetadata(), [
        .init("schema", .int, get: { $0.schemaVersion }, set: { $0.schemaVersion = $1 }),
        .init("lastFull", .nullable(.date), get: { $0.lastFullSync }, set: { $0.lastFullSync = $1 }),
        .init("lastDelta", .nullable(.date), get: { $0.lastDeltaSync }, set: { $0.lastDeltaSync = $1 }),
        .init("cursor", .nullable(.record(cursor)), get: { $0.fullSyncCursor }, set: { $0.fullSyncCursor = $1 }),
        // Written only when there are some, so most metadata reads as it always has.
        .init("unbookmarked", .inAppRecords, omittedWhen: { $0.isEmpty }, get: { $0.unbookmarkedInApp }, set: { $0.unbookmarkedInApp = $1 }),
        .init("bookmarked", .inAppRecords, omittedWhen: { $0.isEmpty }, get: { $0.bookmarkedInApp }, set: { $0.bookmarkedInApp = $1 }),
        .optional("pause", .record(pause), get: { $0.pause }, set: { $0.pause = $1 }),
    ])

    static let cursor = JournalRecord<FullSyncCursor>("the cursor", empty: FullSyncCursor(
        nextPage: "", startedAt: Date(timeIntervalSinceReferenceDate: 0), pagesFetched: 0, nextServerOrder: 0
    ), [
        .init("next", .string, required: true, get: { $0.nextPage }, set: { $0.nextPage = $1 }),
        .init("started", .date, required: true, get: { $0.startedAt }, set: { $0.startedAt = $1 }),
        .init("pages", .int, required: true, get: { $0.pagesFetched }, set: { $0.pagesFetched = $1 }),
        .init("order", .int64, required: true, get: { $0.nextServerOrder }, set: { $0.nextServerOrder = $1 }),
        .optional("first", .int64, get: { $0.firstServerOrder }, set: { $0.firstServerOrder = $1 }),
    ])

    static let pause = JournalRecord<ListPause>("the pause", empty: ListPause(until: Date(timeIntervalSinceReferenceDate: 0), code: "", message: ""), [
        .init("until", .date, required: true, get: { $0.until }, set: { $0.until = $1 }),
        .init("code", .string, required: true, get: { $0.code }, set: { $0.code = $1 }),
        .init("message", .string, required: true, get: { $0.message }, set: { $0.message = $1 }),
    ])
}

// MARK: The journal's values

extension JournalCoding where Field == Date {
    /// Seconds since Foundation's reference date, which read back exactly.
    static var date: Self {
        Self(write: { $1.double($0.timeIntervalSinceReferenceDate) }, read: { Date(timeIntervalSinceReferenceDate: try $0.readDouble()) })
    }
}

extension JournalCoding where Field == Restrict {
    static var restrict: Self {
        Self(write: { $1.string($0.rawValue) }, read: { reader in
            let start = reader.position
            let text = try reader.readString()
            guard let restrict = Restrict(rawValue: text) else {
                throw reader.error("restrict must be \"public\" or \"private\", not \"\(text)\"", at: start)
            }
            return restrict
        })
    }
}

extension JournalCoding where Field == VanishReason {
    /// The reason's raw value: `"deleted"`, `"myPixivOnly"`, `"sanityLimited"`, `"unviewable"`
    /// or `"unknown"`.
    static var vanishReason: Self {
        Self(write: { $1.string($0.rawValue) }, read: { reader in
            let start = reader.position
            let text = try reader.readString()
            guard let reason = VanishReason(rawValue: text) else {
                throw reader.error("'\(text)' is not a reason a work vanishes for (\(VanishReason.allCases.map(\.rawValue).joined(separator: ", ")))", at: start)
            }
            return reason
        })
    }
}

extension JournalCoding where Field == IllustType {
    static var illustType: Self {
        Self(write: { $1.string($0.rawValue) }, read: { IllustType(rawValue: try $0.readCachedString()) })
    }
}

extension JournalCoding where Field == TagRef {
    /// `[name]` or `[name, translated name]` (a `null` translation reads as none).
    static var tag: Self {
        Self(
            write: { tag, writer in
                writer.byte(UInt8(ascii: "["))
                writer.string(tag.name)
                if let translated = tag.translatedName {
                    writer.byte(UInt8(ascii: ","))
                    writer.string(translated)
                }
                writer.byte(UInt8(ascii: "]"))
            },
            read: { reader in
                let start = reader.position
                var parts: [String?] = []
                try reader.readArray { reader in
                    parts.append(try reader.readNullIfPresent() ? nil : try reader.readCachedString())
                }
                guard (1...2).contains(parts.count), let name = parts[0] else {
                    throw reader.error("a tag is [name] or [name, translated name]", at: start)
                }
                return TagRef(name: name, translatedName: parts.count == 2 ? parts[1] : nil)
            }
        )
    }
}

extension JournalCoding where Field == [Int: Date] {
    /// The sync engine's in-app records: `[[illust ID, date], ...]` in ID order.
    static var inAppRecords: Self {
        Self(
            write: { records, writer in
                writer.byte(UInt8(ascii: "["))
                for (index, id) in records.keys.sorted().enumerated() {
                    writer.raw(index == 0 ? "[" : ",[")
                    writer.int(id)
                    writer.byte(UInt8(ascii: ","))
                    writer.double(records[id]!.timeIntervalSinceReferenceDate)
                    writer.byte(UInt8(ascii: "]"))
                }
                writer.byte(UInt8(ascii: "]"))
            },
            read: { reader in
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
        )
    }
}

extension JournalCoding where Field == UInt64 {
    /// A header's `id`: 16 lower-case hex digits.
    static var journalID: Self {
        Self(write: { $1.string(JournalCodec.hexID($0)) }, read: { reader in
            let start = reader.position
            let text = try reader.readString()
            guard text.utf8.count == 16, let value = UInt64(text, radix: 16) else {
                throw JSONReadError(offset: start, message: "the header's id '\(text)' is not 16 hex digits")
            }
            return value
        })
    }
}

extension JournalCoding where Field == BookmarkChange {
    /// A change: the record its `op` names.
    static var change: Self {
        Self(write: { JournalCodec.appendChange($0, to: &$1) }, read: { try JournalCodec.decodeChange(&$0) })
    }
}
