import BookmarkIndex
import Foundation

/// The app's own bookmarks and unbookmarks, as pure decisions made in the store's turn on the
/// index as it is then.
struct InAppRecordings: Sendable {
    let configuration: SyncConfiguration

    /// The app bookmarked `illust` (the POST already succeeded): the row to write, on top of
    /// its list or in its place when already there, and the list's metadata recording it (not
    /// ground a sync confirmed) and lifting any tombstone. A work the other list holds moves:
    /// its row there goes, under a tombstone, so that a page of the other list fetched before
    /// Pixiv saw the move cannot bring it back.
    func recordBookmark(_ illust: BookmarkedIllustSnapshot, restrict: Restrict, index: BookmarkIndexState, now: Date) -> [BookmarkChange] {
        let key = BookmarkKey(illustID: illust.id, restrict: restrict)
        let metadata = index.metadata(for: restrict)
        var record = ListSyncRecord(metadata)
        record.unbookmarkedInApp[illust.id] = nil
        record.bookmarkedInApp[illust.id] = now
        let existing = index.placement(of: key)
        let order = existing?.serverOrder ?? ServerOrder.newest(above: index.serverOrderBounds(in: restrict)?.newest)
        var changes: [BookmarkChange] = [
            .upsert(IndexedBookmark(
                illust: illust, restrict: restrict, serverOrder: order,
                firstIndexedAt: existing?.firstIndexedAt ?? now, lastSeenAt: now
            )),
            .setMetadata(record.stored(in: metadata), for: restrict),
        ]
        let other = BookmarkKey(illustID: illust.id, restrict: restrict == .public ? .private : .public)
        if index.contains(other) { changes += recordUnbookmark(other, index: index, now: now) }
        return changes
    }

    /// The app removed the bookmark `key`: the change to write, and a tombstone in the list's
    /// metadata so a page fetched around now cannot re-add it for
    /// ``SyncConfiguration/tombstoneLifetime``.
    func recordUnbookmark(_ key: BookmarkKey, index: BookmarkIndexState, now: Date) -> [BookmarkChange] {
        let metadata = index.metadata(for: key.restrict)
        var record = ListSyncRecord(metadata)
        record.dropExpiredTombstones(now: now, lifetime: configuration.tombstoneLifetime)
        record.unbookmarkedInApp[key.illustID] = now
        record.bookmarkedInApp[key.illustID] = nil
        return [.remove(key), .setMetadata(record.stored(in: metadata), for: key.restrict)]
    }
}

extension InAppRecordings {
    /// What the index held of one work before the app's change: its rows and what each list's
    /// record said of it, so that a refused POST puts them back.
    struct Undo: Sendable {
        var illustID: Int
        var rows: [Restrict: IndexedBookmark] = [:]
        var bookmarkedAt: [Restrict: Date] = [:]
        var tombstones: [Restrict: Date] = [:]

        init(illustID: Int, index: BookmarkIndexState) {
            self.illustID = illustID
            for restrict in Restrict.allCases {
                rows[restrict] = index.bookmark(for: BookmarkKey(illustID: illustID, restrict: restrict))
                let record = ListSyncRecord(index.metadata(for: restrict))
                bookmarkedAt[restrict] = record.bookmarkedInApp[illustID]
                tombstones[restrict] = record.unbookmarkedInApp[illustID]
            }
        }

        /// The batch that puts the work back as it was in `index`: its rows and what each
        /// list's record said of it. Nothing else of the lists changes.
        func changes(in index: BookmarkIndexState) -> [BookmarkChange] {
            var changes: [BookmarkChange] = []
            for restrict in Restrict.allCases {
                let key = BookmarkKey(illustID: illustID, restrict: restrict)
                if let row = rows[restrict] {
                    changes.append(.upsert(row))
                } else if index.contains(key) {
                    changes.append(.remove(key))
                }
                let metadata = index.metadata(for: restrict)
                var record = ListSyncRecord(metadata)
                guard record.bookmarkedInApp[illustID] != bookmarkedAt[restrict] || record.unbookmarkedInApp[illustID] != tombstones[restrict] else { continue }
                record.bookmarkedInApp[illustID] = bookmarkedAt[restrict]
                record.unbookmarkedInApp[illustID] = tombstones[restrict]
                changes.append(.setMetadata(record.stored(in: metadata), for: restrict))
            }
            return changes
        }
    }
}
