import BookmarkJSON
import Foundation

/// Writes a list's rows as the journal's upsert changes straight from the list's arenas:
/// compaction's encoder.
///
/// The bytes are those ``JournalCodec/appendChange(_:to:)`` writes for the row made into an
/// ``IndexedBookmark`` (``ListIndex/bookmark(_:restrict:tags:)``), member for member in the
/// order ``JournalRecords/Upsert`` and ``JournalRecords/Illust`` describe, which a test checks
/// over generated lists. Making each bookmark first — its strings, its tag array, its
/// thumbnail URL — and releasing it again was most of compaction's CPU (3.4–4.3 µs a row at
/// 500,000, on both threads); here a title or an artist name is copied from the text arena, a
/// tag is the bytes it was encoded to once for the whole compaction, and a thumbnail's URL is
/// made in a temporary buffer.
struct JournalRowWriter: Sendable {
    private let list: ListIndex
    private let restrict: Restrict
    private let tags: EncodedTags

    /// Every tag of the tag table, as ``JournalTagCoding`` writes it, end to end.
    struct EncodedTags: Sendable {
        fileprivate var bytes: [UInt8] = []
        /// Where each ref's bytes are: ref `i`'s are `offsets[i]..<offsets[i + 1]`.
        fileprivate var offsets: [Int] = [0]

        init(_ refs: some Collection<ArtworkTag>) {
            var writer = JSONWriter(capacity: 32 * refs.count)
            offsets.reserveCapacity(refs.count + 1)
            for ref in refs {
                JournalTagCoding().write(ref, to: &writer)
                offsets.append(writer.count)
            }
            bytes = writer.takeBytes()
        }
    }

    /// A writer of the rows of `restrict`'s list in `state`, with `tags` encoded from
    /// `state.tags.refs`.
    init(_ state: BookmarkIndexState, restrict: Restrict, tags: EncodedTags) {
        list = state.lists[restrict.listIndex]
        self.restrict = restrict
        self.tags = tags
    }

    /// Appends the batch line of `rows`' upserts, numbered `sequence`.
    func appendBatch(sequence: Int, rows: ArraySlice<ListIndex.Row>, to writer: inout JSONWriter) {
        JournalCodec.appendBatch(sequence: sequence, count: rows.count, to: &writer) { index, writer in
            appendUpsert(rows[rows.startIndex + index], to: &writer)
        }
    }

    /// Appends `row`'s upsert change, as ``JournalRecords/Upsert`` describes it.
    func appendUpsert(_ row: ListIndex.Row, to writer: inout JSONWriter) {
        writer.byte(UInt8(ascii: "{"))
        writer.key(JournalRecords.opKey, afterComma: false)
        writer.raw("\"upsert\"")
        writer.key("restrict", afterComma: true)
        writer.string(restrict.rawValue)
        writer.member("order", row.serverOrder)
        writer.member("first", row.firstIndexedAt)
        writer.member("seen", row.lastSeenAt)
        if !row.isVisible, row.hasVanishedAt { writer.member("vanishedAt", row.vanishedAt) }
        writer.key("illust", afterComma: true)
        appendIllust(row, to: &writer)
        writer.byte(UInt8(ascii: "}"))
    }

    /// Appends `row`'s illust, as ``JournalRecords/Illust`` describes it.
    private func appendIllust(_ row: ListIndex.Row, to writer: inout JSONWriter) {
        writer.byte(UInt8(ascii: "{"))
        writer.key("id", afterComma: false)
        writer.int(row.illustID)
        list.text.withUnsafeBytes { text in
            var offset = row.textStart
            func next(_ length: UInt32) -> UnsafeRawBufferPointer {
                defer { offset += Int(length) }
                return UnsafeRawBufferPointer(rebasing: text[offset..<offset + Int(length)])
            }
            let (title, artistName, thumbnail, type) = (next(row.titleLength), next(row.artistNameLength), next(row.thumbnailLength), next(row.typeLength))
            writer.member("title", utf8: title)
            writer.member("type", utf8: type)
            writer.member("artistID", row.artistID)
            writer.member("artist", utf8: artistName)
            writer.key("tags", afterComma: true)
            appendTags(row, to: &writer)
            if row.hasThumbnail {
                ThumbnailCode.withURL(thumbnail.assumingMemoryBound(to: UInt8.self), illustID: row.illustID) { writer.member("thumb", utf8: $0) }
            } else {
                writer.key("thumb", afterComma: true)
                writer.raw("null")
            }
        }
        writer.member("pages", row.pageCount)
        writer.member("width", row.width)
        writer.member("height", row.height)
        writer.member("xRestrict", row.xRestrict)
        writer.member("aiType", row.aiType)
        writer.member("created", row.createDate)
        if let reason = row.reason {
            writer.key("vanished", afterComma: true)
            writer.string(reason.rawValue)
        }
        writer.member("bookmarks", row.totalBookmarks)
        writer.member("views", Int(row.totalView))
        writer.byte(UInt8(ascii: "}"))
    }

    private func appendTags(_ row: ListIndex.Row, to writer: inout JSONWriter) {
        writer.byte(UInt8(ascii: "["))
        list.tagRefs.withUnsafeBufferPointer { refs in
            tags.bytes.withUnsafeBytes { bytes in
                tags.offsets.withUnsafeBufferPointer { offsets in
                    for (index, ref) in refs[row.tagRange].enumerated() {
                        if index > 0 { writer.byte(UInt8(ascii: ",")) }
                        writer.raw(UnsafeRawBufferPointer(rebasing: bytes[offsets[Int(ref)]..<offsets[Int(ref) + 1]]))
                    }
                }
            }
        }
        writer.byte(UInt8(ascii: "]"))
    }
}

private extension JSONWriter {
    /// `,"key":` and `value` (an `int`, an `int64`, a date's `double`, a string's UTF-8), as a
    /// record's member after the first.
    mutating func member(_ key: StaticString, _ value: Int) {
        self.key(key, afterComma: true)
        int(value)
    }

    mutating func member(_ key: StaticString, _ value: Int64) {
        self.key(key, afterComma: true)
        int(value)
    }

    mutating func member(_ key: StaticString, _ value: Double) {
        self.key(key, afterComma: true)
        double(value)
    }

    mutating func member(_ key: StaticString, utf8: UnsafeRawBufferPointer) {
        self.key(key, afterComma: true)
        string(utf8: utf8)
    }
}
