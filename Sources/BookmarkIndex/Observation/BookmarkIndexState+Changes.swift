extension BookmarkIndexState {
    /// Applies `changes` as ``apply(_:)-(Sequence<BookmarkChange>)`` does and returns what they
    /// changed, or `nil` when they changed nothing a query can see (the revision advances all
    /// the same).
    ///
    /// The change is derived from the batch, not by comparing the index before and after: only
    /// the keys the batch names can change, so each is compared as a query returns it before
    /// and after the batch (what it replaced against what it became); a
    /// ``BookmarkChange/removeAll(_:)`` also lists the keys its list held. Complexity: O(c · r)
    /// for c changes of rows of size r (their tags and text), plus O(n) for a removal of a
    /// whole list of n rows: about what applying the batch costs.
    mutating func applyReportingChange(_ changes: [BookmarkChange]) -> IndexChange? {
        // What each key the batch names was when it began, and the lists it empties.
        var before: [BookmarkKey: IndexedBookmark?] = [:]
        var metadataBefore: [Restrict: BookmarkIndexMetadata] = [:]
        var emptied: [Restrict: [Int]] = [:]
        for change in changes {
            switch change {
            case .upsert(let bookmark):
                record(bookmark.key, in: &before)
            case .remove(let key):
                record(key, in: &before)
            case .removeAll(let restrict):
                if emptied[restrict] == nil { emptied[restrict] = lists[restrict.listIndex].illustIDs }
            case .setMetadata(_, let restrict):
                if metadataBefore[restrict] == nil { metadataBefore[restrict] = metadata(for: restrict) }
            }
        }

        apply(changes)

        var change = IndexChange(revision: revision)
        for (key, old) in before {
            switch (old, bookmark(for: key)) {
            case (nil, nil): break
            case (nil, _?): change[key.restrict].added.insert(key)
            case (_?, nil): change[key.restrict].removed.insert(key)
            case let (old?, new?) where old != new: change[key.restrict].updated.insert(key)
            case (_?, _?): break
            }
        }
        for (restrict, illustIDs) in emptied {
            for illustID in illustIDs {
                let key = BookmarkKey(illustID: illustID, restrict: restrict)
                // A key the batch also names was compared above; any other is gone.
                if before.index(forKey: key) == nil { change[restrict].removed.insert(key) }
            }
        }
        for (restrict, old) in metadataBefore where old != metadata(for: restrict) {
            change[restrict].metadataChanged = true
        }
        return change.isEmpty ? nil : change
    }

    /// Records what `key` is before the batch, the first time the batch names it.
    private func record(_ key: BookmarkKey, in before: inout [BookmarkKey: IndexedBookmark?]) {
        if before.index(forKey: key) == nil { before[key] = .some(bookmark(for: key)) }
    }
}
