import Foundation

// Reading a row's fields back: its tags, texts, and the whole bookmark.

extension ListIndex {
    func tags(of row: Row) -> ArraySlice<TagRefID> {
        tagRefs[row.tagRange]
    }

    func title(of row: Row) -> String {
        string(at: row.textStart, length: row.titleLength)
    }

    func artistName(of row: Row) -> String {
        string(at: row.textStart + Int(row.titleLength), length: row.artistNameLength)
    }

    /// Calls `body` with the UTF-8 bytes of the row's title and artist name, without copying them.
    func withTexts<Result>(of row: Row, _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        text.withUnsafeBufferPointer { text in
            let titleEnd = row.textStart + Int(row.titleLength)
            return body(
                UnsafeBufferPointer(rebasing: text[row.textStart..<titleEnd]),
                UnsafeBufferPointer(rebasing: text[titleEnd..<titleEnd + Int(row.artistNameLength)])
            )
        }
    }

    /// The row as a caller sees it, with `tags` (the table's refs) put back.
    func bookmark(_ row: Row, restrict: Restrict, tags refs: [ArtworkTag]) -> IndexedBookmark {
        var offset = row.textStart + Int(row.titleLength) + Int(row.artistNameLength)
        let thumbnail = row.hasThumbnail ? string(at: offset, length: row.thumbnailLength) : nil
        offset += Int(row.thumbnailLength)
        let illust = BookmarkedIllustSnapshot(
            id: row.illustID,
            title: title(of: row),
            type: IllustType(rawValue: string(at: offset, length: row.typeLength)),
            artistID: row.artistID,
            artistName: artistName(of: row),
            tags: tagRefs[row.tagRange].map { refs[Int($0)] },
            thumbnailURL: thumbnail,
            pageCount: row.pageCount,
            width: row.width,
            height: row.height,
            xRestrict: row.xRestrict,
            aiType: row.aiType,
            createDate: Date(timeIntervalSinceReferenceDate: row.createDate),
            vanishReason: row.reason,
            totalBookmarks: row.totalBookmarks,
            totalView: Int(row.totalView)
        )
        return IndexedBookmark(
            illust: illust,
            restrict: restrict,
            serverOrder: row.serverOrder,
            firstIndexedAt: Date(timeIntervalSinceReferenceDate: row.firstIndexedAt),
            lastSeenAt: Date(timeIntervalSinceReferenceDate: row.lastSeenAt),
            vanishedAt: row.hasVanishedAt ? Date(timeIntervalSinceReferenceDate: row.vanishedAt) : nil
        )
    }

    private func string(at offset: Int, length: UInt32) -> String {
        text.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[offset..<offset + Int(length)]), as: UTF8.self) }
    }
}
