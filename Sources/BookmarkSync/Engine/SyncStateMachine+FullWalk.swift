import BookmarkIndex
import Foundation

extension SyncStateMachine {
    /// A full walk starts at page 1 (after the list's total), or resumes its saved cursor.
    ///
    /// A new walk places its rows above every row present when it began, in page order: the
    /// pages walked so far are on top, as on Pixiv, and the rows it has not reached yet keep
    /// their old order below them, at every moment of the walk, paused or not.
    func startWalk(_ job: inout Job, record: ListSyncRecord, list: ListFacts, now: SyncMoment) {
        job.needsTotal = true
        if let cursor = record.fullWalkPosition {
            job.walk = cursor
            job.pagesFetched = cursor.pagesFetched
            job.next = .nextPage(cursor.nextPage, job.restrict)
            job.resumingCursor = true
        } else {
            let bounds = list.orderBounds
            // Rows written with orders near Int64's top (only an app's own upserts can) leave no
            // room above them: such a walk goes below the oldest, as walks of earlier versions did.
            let roomAbove = (bounds?.newest ?? 0) <= Int64.max - ListSyncRecord.orderRoom
            let first = roomAbove
                ? ServerOrder.deltaOrder(index: 0, above: bounds?.newest)
                : ServerOrder.walkOrder(index: 0, below: bounds?.oldest)
            job.walk = FullWalkPosition(
                nextPage: "", startedAt: now.date, pagesFetched: 0,
                nextServerOrder: first, firstServerOrder: first, placesRowsAbove: roomAbove
            )
            job.next = .firstPage(job.restrict)
        }
    }
}

extension PageWork {
    /// A full walk's page: its rows at the walk's next orders, the cursor saved with them; after
    /// the last page, the rows the walk did not see are pruned.
    ///
    /// - Returns: whether the walk is finished.
    func walkPage(
        _ page: BookmarkPage, job: inout SyncStateMachine.Job, metadata: inout BookmarkIndexMetadata, record: inout ListSyncRecord,
        index: BookmarkIndexState, now: Date, changes: inout [BookmarkChange]
    ) -> Bool {
        let restrict = job.restrict
        guard var walk = job.walk else { preconditionFailure("a full job always has a walk") }
        walk.groundAfterFirstPage = KnownGround.after(page, current: walk.groundAfterFirstPage, now: now)
        let tombstoned = record.unbookmarkedInApp
        let moves = MovesBetweenLists(into: restrict, index: index)
        var seen = Set<Int>()
        for illust in page.illusts {
            let key = BookmarkKey(illustID: illust.id, restrict: restrict)
            seen.insert(illust.id)
            if tombstoned[key.illustID] != nil { continue }
            changes.append(.upsert(IndexedBookmark(
                illust: illust, restrict: restrict, serverOrder: walk.nextServerOrder,
                firstIndexedAt: index.placement(of: key)?.firstIndexedAt ?? now, lastSeenAt: now
            )))
            changes += moves.removal(of: illust.id)
            walk.nextServerOrder = walk.nextServerOrder.saturatingAdd(-1)
            job.latest = illust
        }
        walk.pagesFetched = job.pagesFetched
        if let token = page.nextPage {
            walk.nextPage = token
            record.fullWalkPosition = walk
            job.next = .nextPage(token, restrict)
            job.walk = walk
            return false
        }
        index.forEachPlacement(in: restrict) { placement in
            if isPrunable(placement, walk: walk, seenOnLastPage: seen, recordedInApp: record.bookmarkedInApp) {
                changes.append(.remove(BookmarkKey(illustID: placement.illustID, restrict: restrict)))
            }
        }
        record.fullWalkPosition = nil
        // A delta completed while the walk waited for the day's budget left the newer proof.
        let deltaDuringWalk = metadata.lastDeltaSync.map { $0 >= walk.startedAt } ?? false
        if !(deltaDuringWalk && record.knownGround != nil) { record.knownGround = walk.groundAfterFirstPage }
        metadata.lastFullSync = now
        record.unbookmarkedInApp = record.unbookmarkedInApp.filter { $0.value >= walk.startedAt }
        record.forgetRecordings(before: walk.startedAt)
        // A complete walk supersedes an interrupted delta.
        record.deltaCursor = nil
        return true
    }

    /// Whether a walk that just completed did not see the row at `placement`, and nobody put it
    /// there since.
    ///
    /// A walk of this version places its rows above every row present when it began: a row
    /// below its orders is one it did not see, a row above them one the app recorded while it
    /// ran, whatever the clock did meanwhile. Walks begun by earlier versions placed theirs
    /// below the oldest: there a row outside the walk's orders is pruned when it was not seen,
    /// or written by the app, since the walk began.
    private func isPrunable(_ placement: BookmarkPlacement, walk: FullWalkPosition, seenOnLastPage: Set<Int>, recordedInApp: [Int: Date]) -> Bool {
        guard !seenOnLastPage.contains(placement.illustID), recordedInApp[placement.illustID] == nil else { return false }
        if walk.placesRowsAbove {
            return placement.serverOrder <= walk.nextServerOrder
        }
        guard placement.lastSeenAt < walk.startedAt else { return false }
        guard let first = walk.firstServerOrder else { return true }
        return !(walk.nextServerOrder < placement.serverOrder && placement.serverOrder <= first)
    }
}
