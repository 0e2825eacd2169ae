import BookmarkIndex
import Foundation

extension SyncStateMachine {
    /// A full walk starts at page 1 (after the list's total), or resumes its saved cursor.
    ///
    /// A new walk places its rows above every row present when it began, in page order: the
    /// pages walked so far are on top, as on Pixiv, and the rows it has not reached yet keep
    /// their old order below them, at every moment of the walk, paused or not.
    mutating func startWalk(_ job: inout Job, metadata: BookmarkIndexMetadata, index: BookmarkIndexState, now: Date) {
        job.needsTotal = true
        if let cursor = metadata.fullSyncCursor {
            job.walk = cursor
            job.pagesFetched = cursor.pagesFetched
            job.next = .nextPage(cursor.nextPage, job.restrict)
            job.resumingCursor = true
        } else {
            let first = ServerOrder.deltaOrder(index: 0, above: index.serverOrderBounds(in: job.restrict)?.newest)
            job.walk = FullSyncCursor(
                nextPage: "", startedAt: now, pagesFetched: 0,
                nextServerOrder: first, firstServerOrder: first
            )
            job.next = .firstPage(job.restrict)
        }
    }

    /// A full walk's page: its rows at the walk's next orders, the cursor saved with them; after
    /// the last page, the rows the walk did not see are pruned.
    ///
    /// - Returns: whether the walk is finished.
    mutating func walkPage(
        _ page: BookmarkPage, job: inout Job, metadata: inout BookmarkIndexMetadata,
        index: BookmarkIndexState, now: Date, changes: inout [BookmarkChange]
    ) -> Bool {
        let restrict = job.restrict
        guard var walk = job.walk else { preconditionFailure("a full job always has a walk") }
        // This page's batch saves the walk's own cursor over any rejected one.
        memory[restrict]?.cursorRejected = false
        let tombstoned = metadata.unbookmarkedInApp
        var seen = Set<Int>()
        for illust in page.illusts {
            let key = BookmarkKey(illustID: illust.id, restrict: restrict)
            seen.insert(illust.id)
            if tombstoned[key.illustID] != nil { continue }
            changes.append(.upsert(IndexedBookmark(
                illust: illust, restrict: restrict, serverOrder: walk.nextServerOrder,
                firstIndexedAt: index.bookmark(for: key)?.firstIndexedAt ?? now, lastSeenAt: now
            )))
            walk.nextServerOrder -= 1
            job.latest = illust
        }
        walk.pagesFetched = job.pagesFetched
        if let token = page.nextPage {
            walk.nextPage = token
            metadata.fullSyncCursor = walk
            job.next = .nextPage(token, restrict)
            job.walk = walk
            return false
        }
        for row in index.allBookmarks(in: restrict) where isPrunable(row, walk: walk, seenOnLastPage: seen) {
            changes.append(.remove(row.key))
        }
        metadata.fullSyncCursor = nil
        metadata.lastFullSync = now
        metadata.unbookmarkedInApp = metadata.unbookmarkedInApp.filter { $0.value >= walk.startedAt }
        forgetRecordings(&metadata, before: walk.startedAt)
        // A complete walk supersedes an interrupted delta.
        memory[restrict]?.deltaCursor = nil
        return true
    }

    /// Whether a walk that just completed did not see `row`: it is outside the orders the walk
    /// gave (every row the walk wrote is in `nextServerOrder < order ≤ firstServerOrder`,
    /// whatever the clock did meanwhile) and was not seen, or written by the app, since the
    /// walk began.
    private func isPrunable(_ row: IndexedBookmark, walk: FullSyncCursor, seenOnLastPage: Set<Int>) -> Bool {
        guard row.lastSeenAt < walk.startedAt, !seenOnLastPage.contains(row.illust.id) else { return false }
        guard let first = walk.firstServerOrder else { return true }
        return !(walk.nextServerOrder < row.serverOrder && row.serverOrder <= first)
    }
}
