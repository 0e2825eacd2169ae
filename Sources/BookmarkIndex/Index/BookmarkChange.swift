/// One change to the index. A batch of changes is applied, and stored, atomically.
public enum BookmarkChange: Sendable, Hashable {
    /// Inserts the bookmark, or replaces the row with the same ``IndexedBookmark/key``
    /// (keeping the earlier ``IndexedBookmark/firstIndexedAt``).
    ///
    /// A placeholder (a bookmark whose ``BookmarkedIllustSnapshot/vanishReason`` is set) never
    /// replaces known content: over a row that is visible, or vanished with content kept, it
    /// takes only the order, ``IndexedBookmark/lastSeenAt``, the earlier first-indexed date and
    /// the reason, and the first such placeholder sets ``IndexedBookmark/vanishedAt`` (to its
    /// own, else to its `lastSeenAt`). Over no row, or a placeholder's, it is stored as given. A
    /// visible bookmark replaces the row whatever it was, with no vanish date.
    case upsert(IndexedBookmark)
    /// Removes the row with this key, if there is one.
    case remove(BookmarkKey)
    /// Removes every row of one list; its metadata is kept.
    case removeAll(Restrict)
    /// Replaces the sync metadata of one list.
    case setMetadata(BookmarkIndexMetadata, for: Restrict)
}
