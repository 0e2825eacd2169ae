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
        /// Where each ref's bytes end: ref `i`'s are `ends[i - 1]..<ends[i]` (from 0 for the first).
        fileprivate var ends: [Int] = []

        init(_ refs: [ArtworkTag]) {
            var writer = JSONWriter(capacity: 32 * refs.count)
            ends.reserveCapacity(refs.count)
            for ref in refs {
                JournalTagCoding().write(ref, to: &writer)
                ends.append(writer.count)
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
        writer.key("order", afterComma: true)
        writer.int(row.serverOrder)
        writer.key("first", afterComma: true)
        writer.double(row.firstIndexedAt)
        writer.key("seen", afterComma: true)
        writer.double(row.lastSeenAt)
        if !row.isVisible, row.hasVanishedAt {
            writer.key("vanishedAt", afterComma: true)
            writer.double(row.vanishedAt)
        }
        writer.key("illust", afterComma: true)
        appendIllust(row, to: &writer)
        writer.byte(UInt8(ascii: "}"))
    }

    /// Appends `row`'s illust, as ``JournalRecords/Illust`` describes it.
    private func appendIllust(_ row: ListIndex.Row, to writer: inout JSONWriter) {
        list.text.withUnsafeBytes { text in
            var offset = row.textStart
            func next(_ length: UInt32) -> UnsafeRawBufferPointer {
                defer { offset += Int(length) }
                return UnsafeRawBufferPointer(rebasing: text[offset..<offset + Int(length)])
            }
            let (title, artistName, thumbnail, type) = (next(row.titleLength), next(row.artistNameLength), next(row.thumbnailLength), next(row.typeLength))
            writer.byte(UInt8(ascii: "{"))
            writer.key("id", afterComma: false)
            writer.int(row.illustID)
            writer.key("title", afterComma: true)
            writer.string(utf8: title)
            writer.key("type", afterComma: true)
            writer.string(utf8: type)
            writer.key("artistID", afterComma: true)
            writer.int(row.artistID)
            writer.key("artist", afterComma: true)
            writer.string(utf8: artistName)
            writer.key("tags", afterComma: true)
            appendTags(row, to: &writer)
            writer.key("thumb", afterComma: true)
            if row.hasThumbnail {
                ThumbnailCode.withURL(thumbnail.assumingMemoryBound(to: UInt8.self), illustID: row.illustID) { writer.string(utf8: $0) }
            } else {
                writer.raw("null")
            }
        }
        writer.key("pages", afterComma: true)
        writer.int(row.pageCount)
        writer.key("width", afterComma: true)
        writer.int(row.width)
        writer.key("height", afterComma: true)
        writer.int(row.height)
        writer.key("xRestrict", afterComma: true)
        writer.int(row.xRestrict)
        writer.key("aiType", afterComma: true)
        writer.int(row.aiType)
        writer.key("created", afterComma: true)
        writer.double(row.createDate)
        if let reason = row.reason {
            writer.key("vanished", afterComma: true)
            writer.string(reason.rawValue)
        }
        writer.key("bookmarks", afterComma: true)
        writer.int(row.totalBookmarks)
        writer.key("views", afterComma: true)
        writer.int(Int(row.totalView))
        writer.byte(UInt8(ascii: "}"))
    }

    private func appendTags(_ row: ListIndex.Row, to writer: inout JSONWriter) {
        writer.byte(UInt8(ascii: "["))
        list.tagRefs.withUnsafeBufferPointer { refs in
            tags.bytes.withUnsafeBytes { bytes in
                tags.ends.withUnsafeBufferPointer { ends in
                    for (index, ref) in refs[row.tagRange].enumerated() {
                        if index > 0 { writer.byte(UInt8(ascii: ",")) }
                        let start = ref == 0 ? 0 : ends[Int(ref) - 1]
                        writer.raw(UnsafeRawBufferPointer(rebasing: bytes[start..<ends[Int(ref)]]))
                    }
                }
            }
        }
        writer.byte(UInt8(ascii: "]"))
    }
}
