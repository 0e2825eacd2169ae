/// The whole index as a value: both lists, their tag histograms, inverted tag indexes, server
/// order and sync metadata.
///
/// `BookmarkIndexState` is a pure value type: applying changes, one with
/// ``apply(_:)-(BookmarkChange)`` or a batch with ``apply(_:)-(Sequence<BookmarkChange>)``, is
/// the only way to change it, and it keeps every derived structure current as it goes, so reads
/// never rebuild anything.
/// ``BookmarksIndexStore`` owns one and makes every batch durable before applying it; use the
/// state directly for tests, tools and off-actor reads (``BookmarksIndexStore/state``). Copies are cheap until written
/// (copy-on-write).
public struct BookmarkIndexState: Sendable {
    var tags = TagTable()
    var lists: [ListIndex] = [ListIndex(), ListIndex()]
    var metadataByList: [BookmarkIndexMetadata] = [BookmarkIndexMetadata(), BookmarkIndexMetadata()]
    /// How many batches have been applied to this value since it was empty (a store's reset
    /// carries the count on): of two states of one store, the one with the higher revision
    /// is the newer.
    public internal(set) var revision: UInt64 = 0

    /// An empty index.
    public init() {}

    /// An empty index whose lists choose their sort leaders with `sortLeaderCapacity` rows
    /// (see ``SortLeaders``): for tests that drive the sets through every state with few rows.
    init(sortLeaderCapacity: Int) {
        lists = [ListIndex(leaderCapacity: sortLeaderCapacity), ListIndex(leaderCapacity: sortLeaderCapacity)]
    }

    /// Applies `changes` in order. An upsert of a placeholder keeps what the index knew of the
    /// work (see ``BookmarkChange/upsert(_:)``), whatever wrote it.
    ///
    /// Complexity: O(t) per upsert or remove of a row with t tags, amortized; O(n) for
    /// ``BookmarkChange/removeAll(_:)`` of a list of n rows.
    public mutating func apply(_ changes: some Sequence<BookmarkChange>) {
        let prepared = PreparedRows(changes)
        var tagRefs: [TagRefID] = []
        apply(prepared, changes: prepared.changes.indices, tagRefs: &tagRefs)
    }

    /// Applies one change.
    public mutating func apply(_ change: BookmarkChange) {
        apply(CollectionOfOne(change))
    }

    /// The sync metadata of `restrict`'s list.
    public func metadata(for restrict: Restrict) -> BookmarkIndexMetadata {
        metadataByList[restrict.listIndex]
    }

    /// The number of bookmarks in `restrict`'s list, visible or vanished, as Pixiv counts a
    /// list (its placeholders included). O(1). For one visibility, `count(in:matching:)` with a
    /// filter of that ``BookmarkFilter/visibility``, also O(1).
    public func count(in restrict: Restrict) -> Int {
        lists[restrict.listIndex].count
    }

    /// The bookmarks of both lists: the rows a journal written whole holds. O(1).
    var rowCount: Int {
        lists.reduce(0) { $0 + $1.count }
    }

    /// Whether the index has the bookmark `key`. O(1).
    public func contains(_ key: BookmarkKey) -> Bool {
        lists[key.restrict.listIndex].row(illustID: key.illustID) != nil
    }

    /// The bookmark `key`, or `nil`. O(1).
    public func bookmark(for key: BookmarkKey) -> IndexedBookmark? {
        lists[key.restrict.listIndex].row(illustID: key.illustID).map { materialize($0, in: key.restrict) }
    }

    /// The largest and smallest ``IndexedBookmark/serverOrder`` of `restrict`'s list, or `nil`
    /// when it is empty; what ``ServerOrder``'s functions take (the sync engine's business).
    package func serverOrderBounds(in restrict: Restrict) -> (newest: Int64, oldest: Int64)? {
        lists[restrict.listIndex].orderBounds
    }

    /// Every bookmark of `restrict`'s list, visible or vanished, newest first. O(n).
    public func allBookmarks(in restrict: Restrict) -> [IndexedBookmark] {
        rowsNewestFirst(in: restrict).map { materialize($0, in: restrict) }
    }
}

extension BookmarkIndexState {
    /// The rows of `restrict`'s list, visible or vanished, newest first (each becomes a bookmark
    /// by ``materialize(_:in:)``). O(n).
    func rowsNewestFirst(in restrict: Restrict) -> [ListIndex.Row] {
        var rows: [ListIndex.Row] = []
        rows.reserveCapacity(count(in: restrict))
        lists[restrict.listIndex].forEachNewestFirst { row, _ in
            rows.append(row)
            return true
        }
        return rows
    }

    /// The row of `restrict`'s list as a caller sees it.
    func materialize(_ row: ListIndex.Row, in restrict: Restrict) -> IndexedBookmark {
        lists[restrict.listIndex].bookmark(row, restrict: restrict, tags: tags.refs)
    }

    /// `rows` of `restrict`'s list as a page holds them: copied out, built when read.
    func rows(_ rows: some Collection<ListIndex.Row>, in restrict: Restrict) -> BookmarkRows {
        BookmarkRows(rows, of: lists[restrict.listIndex], restrict: restrict, refs: tags.refs)
    }

    /// The rows in `slots` of `restrict`'s list as a page holds them.
    func rows(atSlots slots: [Int32], in restrict: Restrict) -> BookmarkRows {
        let rows = lists[restrict.listIndex].slots.withUnsafeBufferPointer { rows in slots.map { rows[Int($0)] } }
        return self.rows(rows, in: restrict)
    }
}

extension BookmarkIndexState {
    /// Whether `other` holds the same bookmarks, in the same order, with the same metadata:
    /// what every query reads, whatever the internal layout.
    func hasSameContent(as other: BookmarkIndexState) -> Bool {
        Restrict.allCases.allSatisfy { restrict in
            metadata(for: restrict) == other.metadata(for: restrict)
                && count(in: restrict) == other.count(in: restrict)
                && allBookmarks(in: restrict) == other.allBookmarks(in: restrict)
        }
    }
}

extension Restrict {
    var listIndex: Int {
        switch self {
        case .public: 0
        case .private: 1
        }
    }
}
