import BookmarkJSON
import Foundation

/// Changes in the form the index keeps its rows in: each upsert as its row record, its texts
/// end to end in the arena's order, and its tags as positions in a list of the distinct tags
/// seen.
///
/// What a journal's blocks are decoded into on the pool's threads, so that the one thread that
/// applies them in order (``BookmarkIndexState/apply(_:changes:tagRefs:)``) only interns the
/// tags it has not met and places rows; and what a batch of ``BookmarkChange``s becomes on its
/// way into the index (``append(_:)``), so that rows are written one way only.
struct PreparedRows: Sendable {
    enum Change: Sendable {
        case upsert(Upsert)
        case remove(BookmarkKey)
        case removeAll(Restrict)
        case setMetadata(BookmarkIndexMetadata, Restrict)
    }

    /// An upsert: the row, its ``ListIndex/Row/textStart`` in ``text`` and its
    /// ``ListIndex/Row/tagStart`` in ``tags``; its list; its kind's code
    /// (``FacetColumns/Attributes/typeCode(of:)``).
    struct Upsert: Sendable {
        var row: ListIndex.Row
        var restrict: Restrict
        var typeCode: UInt8
    }

    /// Some of the changes: one batch of a journal, as its line's decoding left it.
    struct Batch: Sendable {
        var rows: PreparedRows
        var changes: Range<Int>
    }

    /// Where everything appended so far ends: what a change read in part rolls back to.
    struct Mark {
        fileprivate var changes: Int
        fileprivate var text: Int
        fileprivate var tags: Int
    }

    /// Which rows these are (a block's offset in its journal): a reader that met them before
    /// knows their tags' positions already.
    let origin: Int
    private(set) var changes: [Change] = []
    private(set) var text: [UInt8] = []
    /// Each upsert's tags, as positions in ``tagList``.
    private(set) var tags: [UInt32] = []
    /// The distinct tags, in the order they were first met (a tag met both as a value and as
    /// JSON may be listed twice: both intern to the same tag).
    private(set) var tagList: [ArtworkTag] = []
    /// Each listed tag's ``TagTable/hash(_:)``, for interning it.
    private(set) var tagHashes: [UInt64] = []
    /// Tags met as values, by their ``TagTable/hash(_:)``: positions in ``byValuePositions``.
    private var byValue = HashIndex()
    private var byValuePositions: [UInt32] = []
    /// Tags met as the JSON the journal writes, by a hash of that text: positions in
    /// ``byJSONEntries``, which say where the text is in ``tagJSON`` and the tag's position.
    private var byJSON = HashIndex()
    private var byJSONEntries: [(json: Range<Int>, position: UInt32)] = []
    private var tagJSON: [UInt8] = []

    init(origin: Int = -1) {
        self.origin = origin
    }

    /// Rows of `origin` with room for what about `bytes` of a journal's lines hold (a row is
    /// some 500 bytes of a line, 50 of them text and 8 tags).
    init(origin: Int, reservingFor bytes: Int) {
        self.origin = origin
        changes.reserveCapacity(bytes / 512)
        text.reserveCapacity(bytes / 8)
        tags.reserveCapacity(bytes / 64)
    }

    /// The changes in `changes`, prepared. When they are contiguous (an array: a page of a
    /// sync, an import's batch), the arrays are made the size they need once rather than grown
    /// a doubling at a time.
    init(_ changes: some Sequence<BookmarkChange>) {
        self.init()
        changes.withContiguousStorageIfAvailable { reserveCapacity(for: $0) }
        for change in changes { append(change) }
    }

    /// Makes room for `changes`: their texts (at most), their tags and their distinct tags.
    private mutating func reserveCapacity(for changes: UnsafeBufferPointer<BookmarkChange>) {
        var textBytes = 0, tagCount = 0
        for case .upsert(let bookmark) in changes {
            let illust = bookmark.illust
            // The UTF-8 counts of native strings are stored, not counted; a thumbnail's code
            // is its URL and a marker byte at the most.
            textBytes += illust.title.utf8.count + illust.artistName.utf8.count + illust.type.rawValue.utf8.count
                + (illust.thumbnailURL.map { $0.utf8.count + 1 } ?? 0)
            tagCount += illust.tags.count
        }
        self.changes.reserveCapacity(changes.count)
        text.reserveCapacity(textBytes)
        tags.reserveCapacity(tagCount)
        tagList.reserveCapacity(tagCount)
        tagHashes.reserveCapacity(tagCount)
        byValue = HashIndex(capacity: tagCount)
        byValuePositions.reserveCapacity(tagCount)
    }

    var mark: Mark { Mark(changes: changes.count, text: text.count, tags: tags.count) }

    /// Forgets what was appended after `mark` (tags met meanwhile stay listed, unused).
    mutating func rollBack(to mark: Mark) {
        changes.removeSubrange(mark.changes...)
        text.removeSubrange(mark.text...)
        tags.removeSubrange(mark.tags...)
    }

    // MARK: Appending

    mutating func append(_ change: BookmarkChange) {
        switch change {
        case .upsert(let bookmark): appendUpsert(bookmark)
        case .remove(let key): changes.append(.remove(key))
        case .removeAll(let restrict): changes.append(.removeAll(restrict))
        case .setMetadata(let metadata, let restrict): changes.append(.setMetadata(metadata, restrict))
        }
    }

    private mutating func appendUpsert(_ bookmark: IndexedBookmark) {
        let illust = bookmark.illust
        let textStart = text.count
        appendText(illust.title)
        appendText(illust.artistName)
        var thumbnailLength = 0
        if var url = illust.thumbnailURL {
            thumbnailLength = url.withUTF8 { appendThumbnail(UnsafeRawBufferPointer($0), illustID: illust.id) }
        }
        appendText(illust.type.rawValue)
        let tagStart = tags.count
        for tag in illust.tags { tags.append(position(of: tag)) }
        var row = ListIndex.Row(bookmark, tagCount: illust.tags.count, thumbnailLength: thumbnailLength)
        row.textStart = textStart
        row.tagStart = tagStart
        changes.append(.upsert(Upsert(row: row, restrict: bookmark.restrict, typeCode: FacetColumns.Attributes.typeCode(of: illust.type))))
    }

    private mutating func appendText(_ string: String) {
        var string = string
        string.withUTF8 { appendText(UnsafeRawBufferPointer($0)) }
    }

    /// Appends an upsert whose texts and tags were appended last, from `row`'s
    /// ``ListIndex/Row/textStart`` and ``ListIndex/Row/tagStart``.
    mutating func appendUpsert(_ row: ListIndex.Row, restrict: Restrict, typeCode: UInt8) {
        assert(row.textStart + row.textLength == text.count && row.tagStart + Int(row.tagCount) == tags.count)
        changes.append(.upsert(Upsert(row: row, restrict: restrict, typeCode: typeCode)))
    }

    mutating func appendText(_ bytes: UnsafeRawBufferPointer) {
        text.append(contentsOf: bytes)
    }

    /// Appends the code of the thumbnail URL `url` of illust `illustID`; returns its length.
    mutating func appendThumbnail(_ url: UnsafeRawBufferPointer, illustID: Int) -> Int {
        let start = text.count
        ThumbnailCode.append(url.assumingMemoryBound(to: UInt8.self), illustID: illustID, to: &text)
        return text.count - start
    }

    mutating func appendTag(_ position: UInt32) {
        tags.append(position)
    }

    // MARK: Tags

    /// The position of `tag` in ``tagList``, listed now if it is new.
    mutating func position(of tag: ArtworkTag) -> UInt32 {
        let hash = TagTable.hash(tag)
        if let known = byValue.find(hash, where: { TagTable.sameBytes(tagList[Int(byValuePositions[$0])], tag) }) {
            return byValuePositions[known]
        }
        let position = add(tag, hash: hash)
        byValue.insert(hash)
        byValuePositions.append(position)
        return position
    }

    /// The position in ``tagList`` of the tag written as `json` (the journal's compact array),
    /// whose hash (the reader's, the same for the same text) is `hash`, if it was met written so.
    func position(ofJSON json: UnsafeRawBufferPointer, hash: UInt64) -> UInt32? {
        tagJSON.withUnsafeBytes { listed in
            byJSON.find(hash) { bytesEqual(UnsafeRawBufferPointer(rebasing: listed[byJSONEntries[$0].json]), json) }
        }.map { byJSONEntries[$0].position }
    }

    /// Lists `tag`, met as `json` (whose hash is `jsonHash`) and not listed so yet; returns its
    /// position.
    mutating func add(_ tag: ArtworkTag, json: UnsafeRawBufferPointer, jsonHash: UInt64) -> UInt32 {
        let position = add(tag, hash: TagTable.hash(tag))
        let start = tagJSON.count
        tagJSON.append(contentsOf: json)
        byJSON.insert(jsonHash)
        byJSONEntries.append((start..<tagJSON.count, position))
        return position
    }

    private mutating func add(_ tag: ArtworkTag, hash: UInt64) -> UInt32 {
        tagList.append(tag)
        tagHashes.append(hash)
        return UInt32(tagList.count - 1)
    }
}
