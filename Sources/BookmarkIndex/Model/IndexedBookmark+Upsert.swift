extension IndexedBookmark {
    /// The row the index stores when this bookmark is upserted over `existing` (the row with the
    /// same key, if any): the rule ``BookmarkChange/upsert(_:)`` states, for a storage that keeps
    /// rows rather than batches.
    ///
    /// A placeholder never replaces known content (a visible row, or a vanished one whose content
    /// was kept): it takes only the order, `lastSeenAt`, the earlier `firstIndexedAt` and the
    /// reason, and the first such placeholder sets `vanishedAt`. Anything else replaces the row,
    /// keeping the earlier `firstIndexedAt`; a visible bookmark has no `vanishedAt`.
    public func upserted(over existing: IndexedBookmark?) -> IndexedBookmark {
        if !illust.isVisible, let existing, existing.illust.isVisible || existing.vanishedAt != nil {
            var row = existing
            row.serverOrder = serverOrder
            row.firstIndexedAt = min(existing.firstIndexedAt, firstIndexedAt)
            row.lastSeenAt = lastSeenAt
            row.illust.vanishReason = illust.vanishReason
            if existing.vanishedAt == nil { row.vanishedAt = vanishedAt ?? lastSeenAt }
            return row
        }
        var row = self
        if illust.isVisible { row.vanishedAt = nil }
        if let existing { row.firstIndexedAt = min(existing.firstIndexedAt, firstIndexedAt) }
        return row
    }
}
