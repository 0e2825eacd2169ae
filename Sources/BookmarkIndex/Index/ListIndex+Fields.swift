import Foundation

// Reading a row's fields back: its tags, texts, and the whole bookmark.

extension ListIndex {
    func tags(of row: Row) -> ArraySlice<TagRefID> {
        tagRefs[row.tagRange]
    }

    func artistName(of row: Row) -> String {
        string(at: row.textStart + Int(row.titleLength), length: row.artistNameLength)
    }

    /// Calls `body` with the UTF-8 bytes of the row's title and artist name, without copying them.
    func withTexts<Result>(of row: Row, _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        Self.withTexts(of: row, in: text, body)
    }

    /// Calls `body` with the UTF-8 bytes of the title and artist name of `row`, whose texts are
    /// in `text` (its list's arena).
    static func withTexts<Result>(
        of row: Row, in text: [UInt8], _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        text.withUnsafeBufferPointer { text in
            let titleEnd = row.textStart + Int(row.titleLength)
            return body(
                UnsafeBufferPointer(rebasing: text[row.textStart..<titleEnd]),
                UnsafeBufferPointer(rebasing: text[titleEnd..<titleEnd + Int(row.artistNameLength)])
            )
        }
    }

    /// The row as a caller sees it, with `tags` (the table's refs) put back.
    func bookmark(_ row: Row, restrict: Restrict, tags refs: ChunkedArray<ArtworkTag>) -> IndexedBookmark {
        text.withUnsafeBufferPointer { text in
            tagRefs.withUnsafeBufferPointer { tagRefs in
                Self.bookmark(row, restrict: restrict, text: text, tagRefs: tagRefs, refs: refs)
            }
        }
    }

    /// `row` as a caller sees it, its texts read from `text` and its tags from `tagRefs` (the
    /// list's arenas or a page's copy of them), with `refs` (the table's) put back.
    ///
    /// What every row read pays, so it reads the text once, gives Pixiv's three kinds their
    /// shared values without decoding them, and fills the tags in place.
    static func bookmark(
        _ row: Row,
        restrict: Restrict,
        text: UnsafeBufferPointer<UInt8>,
        tagRefs: UnsafeBufferPointer<TagRefID>,
        refs: ChunkedArray<ArtworkTag>
    ) -> IndexedBookmark {
        var offset = row.textStart
        func next(_ length: UInt32) -> UnsafeBufferPointer<UInt8> {
            defer { offset += Int(length) }
            return UnsafeBufferPointer(rebasing: text[offset..<offset + Int(length)])
        }
        let title = String(decoding: next(row.titleLength), as: UTF8.self)
        let artistName = String(decoding: next(row.artistNameLength), as: UTF8.self)
        let thumbnailBytes = next(row.thumbnailLength)
        let thumbnail = row.hasThumbnail ? ThumbnailCode.decode(thumbnailBytes, illustID: row.illustID) : nil
        let type = IllustType(utf8: next(row.typeLength))
        let tags = Array(unsafeUninitializedCapacity: Int(row.tagCount)) { buffer, count in
            for (index, ref) in tagRefs[row.tagRange].enumerated() {
                (buffer.baseAddress! + index).initialize(to: refs[Int(ref)])
            }
            count = Int(row.tagCount)
        }
        let illust = BookmarkedIllustSnapshot(
            id: row.illustID,
            title: title,
            type: type,
            artistID: row.artistID,
            artistName: artistName,
            tags: tags,
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

extension IllustType {
    /// The kind whose raw value is `bytes`, as UTF-8: Pixiv's three without decoding.
    init(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        for known in FacetColumns.Attributes.types where bytes.elementsEqual(known.rawValue.utf8) {
            self = known
            return
        }
        self.init(rawValue: String(decoding: bytes, as: UTF8.self))
    }
}
