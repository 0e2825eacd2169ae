/// One change to the index. A batch of changes is applied, and stored, atomically.
public enum BookmarkChange: Sendable, Hashable {
    /// Inserts the bookmark, or replaces the row with the same ``IndexedBookmark/key``
    /// (keeping the earlier ``IndexedBookmark/firstIndexedAt``).
    case upsert(IndexedBookmark)
    /// Removes the row with this key, if there is one.
    case remove(BookmarkKey)
    /// Removes every row of one list; its metadata is kept.
    case removeAll(Restrict)
    /// Replaces the sync metadata of one list.
    case setMetadata(BookmarkIndexMetadata, for: Restrict)
}
