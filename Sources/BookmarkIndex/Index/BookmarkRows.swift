/// The bookmarks of a page, in the page's order, each made into an ``IndexedBookmark`` when it
/// is read.
///
/// A page read from the index (``BookmarkFeedPage/bookmarks``) holds its rows as the index keeps
/// them: a fixed-size record each, with the bytes of their titles, artist names and thumbnail
/// URLs and the numbers of their tags copied out when the page was read. Reading a page is then
/// finding its rows and copying them, and each bookmark costs its strings and tag array (about
/// half a microsecond) only when it is read: a screen builds the rows it shows, and a feed that
/// holds thousands of rows keeps a few hundred bytes a row rather than that many values with
/// their strings and arrays.
///
/// The page is a value, as of its read: later writes to the store never change it, and holding
/// it never makes them copy the index (it shares only the tag table's pairs, which grow in
/// chunks). Each read of an element builds it again, so a loop that reads every element more
/// than once reads it into an array first. ``keys`` gives the rows' keys without building the
/// bookmarks, for a list's identities:
///
/// ```swift
/// let page = await store.bookmarks(in: .public, matching: filter, after: nil, limit: 30)
/// for bookmark in page.bookmarks { print(bookmark.illust.title) }
/// let ids = page.bookmarks.keys.map(\.illustID)     // no bookmark built
/// ```
///
/// Two values are equal when they hold equal bookmarks in the same order, however they hold them.
public struct BookmarkRows: RandomAccessCollection, Sendable, Hashable, ExpressibleByArrayLiteral, CustomStringConvertible {
    private enum Storage: Sendable {
        case values([IndexedBookmark])
        case rows(CopiedRows)
    }

    private var storage: Storage

    /// Holds `bookmarks`, as they are: for tests, previews, and pages made outside the index.
    public init(_ bookmarks: some Sequence<IndexedBookmark>) {
        storage = .values(Array(bookmarks))
    }

    /// Holds the bookmarks listed.
    public init(arrayLiteral bookmarks: IndexedBookmark...) {
        storage = .values(bookmarks)
    }

    /// Holds `rows` of `list` (a list of `restrict`), their texts and tags copied out of the
    /// list's arenas; `refs` is the tag table's pairs.
    init(_ rows: some Collection<ListIndex.Row>, of list: ListIndex, restrict: Restrict, refs: ChunkedArray<ArtworkTag>) {
        storage = .rows(CopiedRows(rows, of: list, restrict: restrict, refs: refs))
    }

    public var startIndex: Int { 0 }

    public var endIndex: Int {
        switch storage {
        case .values(let bookmarks): bookmarks.count
        case .rows(let copied): copied.rows.count
        }
    }

    /// The bookmark at `position`, built from its row on each read.
    public subscript(position: Int) -> IndexedBookmark {
        switch storage {
        case .values(let bookmarks): bookmarks[position]
        case .rows(let copied): copied.bookmark(at: position)
        }
    }

    /// The rows' keys, in order, read without building the bookmarks.
    public var keys: [BookmarkKey] {
        switch storage {
        case .values(let bookmarks): bookmarks.map(\.key)
        case .rows(let copied): copied.rows.map { BookmarkKey(illustID: $0.illustID, restrict: copied.restrict) }
        }
    }

    public static func == (lhs: BookmarkRows, rhs: BookmarkRows) -> Bool {
        lhs.count == rhs.count && lhs.elementsEqual(rhs)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for bookmark in self { hasher.combine(bookmark) }
    }

    /// The bookmarks, as an array prints them.
    public var description: String { Array(self).description }
}

extension BookmarkRows {
    /// Rows copied out of a list: the records, rebased onto copies of just their texts and tags.
    fileprivate struct CopiedRows: Sendable {
        let restrict: Restrict
        let rows: [ListIndex.Row]
        let text: [UInt8]
        let tagRefs: [TagRefID]
        let refs: ChunkedArray<ArtworkTag>

        init(_ source: some Collection<ListIndex.Row>, of list: ListIndex, restrict: Restrict, refs: ChunkedArray<ArtworkTag>) {
            var rows = Array(source)
            var (textCount, tagCount) = (0, 0)
            for row in rows {
                textCount += row.textLength
                tagCount += Int(row.tagCount)
            }
            self.text = Self.copy(textCount, from: list.text, rows, range: \.textRange)
            self.tagRefs = Self.copy(tagCount, from: list.tagRefs, rows, range: \.tagRange)
            // Each row's bytes now lie where the ones before it end.
            var (textEnd, tagEnd) = (0, 0)
            for index in rows.indices {
                rows[index].textStart = textEnd
                rows[index].tagStart = tagEnd
                textEnd += rows[index].textLength
                tagEnd += Int(rows[index].tagCount)
            }
            self.restrict = restrict
            self.rows = rows
            self.refs = refs
        }

        /// The elements of `arena` in each row's `range`, end to end: `count` of them.
        private static func copy<Element: BitwiseCopyable>(
            _ count: Int, from arena: [Element], _ rows: [ListIndex.Row], range: (ListIndex.Row) -> Range<Int>
        ) -> [Element] {
            Array(unsafeUninitializedCapacity: count) { copy, initialized in
                arena.withUnsafeBufferPointer { arena in
                    var end = 0
                    for row in rows {
                        let range = range(row)
                        guard !range.isEmpty else { continue }
                        precondition(range.upperBound <= arena.count && end + range.count <= count, "a row's bytes lie outside its list's arena")
                        (copy.baseAddress! + end).initialize(from: arena.baseAddress! + range.lowerBound, count: range.count)
                        end += range.count
                    }
                }
                initialized = count
            }
        }

        func bookmark(at position: Int) -> IndexedBookmark {
            text.withUnsafeBufferPointer { text in
                tagRefs.withUnsafeBufferPointer { tagRefs in
                    ListIndex.bookmark(rows[position], restrict: restrict, text: text, tagRefs: tagRefs, refs: refs)
                }
            }
        }
    }
}
