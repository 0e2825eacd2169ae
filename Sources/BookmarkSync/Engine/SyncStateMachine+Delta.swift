import BookmarkIndex
import Foundation

/// Where a delta stands: what it has placed and where it goes on, so one interrupted by a
/// failure, a pause or a restart resumes instead of starting over.
struct DeltaCursor: Sendable, Hashable, Codable {
    private enum CodingKeys: String, CodingKey {
        case nextPage = "next", newestAtStart = "newest", newRows = "placed", startedAt = "started"
    }

    /// The page to fetch next (Pixiv's `next_url` as given).
    var nextPage: String
    /// The newest order in the list when the delta began: new rows go above it.
    var newestAtStart: Int64?
    /// New rows placed so far.
    var newRows: Int
    /// When the delta began: in-app records from before then are confirmed when it ends.
    var startedAt: Date
}

extension SyncStateMachine {
    /// A delta starts at page 1, or where an interrupted one stopped.
    mutating func startDelta(_ job: inout Job, record: ListSyncRecord, index: BookmarkIndexState, now: Date) {
        if let cursor = record.deltaCursor {
            job.delta = cursor
            job.startedAt = cursor.startedAt
            job.next = .nextPage(cursor.nextPage, job.restrict)
            job.resumingCursor = true
        } else {
            job.delta = DeltaCursor(nextPage: "", newestAtStart: index.serverOrderBounds(in: job.restrict)?.newest, newRows: 0, startedAt: now)
            job.next = .firstPage(job.restrict)
        }
    }

    /// A delta's page: new rows on top in page order, known rows kept in place; the delta ends at
    /// known ground a complete sync saw, or at the last page.
    ///
    /// - Returns: whether the delta is finished.
    mutating func deltaPage(
        _ page: BookmarkPage, job: inout Job, metadata: inout BookmarkIndexMetadata, record: inout ListSyncRecord,
        index: BookmarkIndexState, now: Date, changes: inout [BookmarkChange]
    ) -> Bool {
        let restrict = job.restrict
        guard var delta = job.delta else { preconditionFailure("a delta job always has its cursor") }
        // This page's batch saves the delta's own position over any rejected one.
        memory[restrict]?.cursorRejected = false
        let tombstoned = record.unbookmarkedInApp
        let recordedInApp = record.bookmarkedInApp
        // Known ground is a row a *complete* sync saw. Rows an interrupted delta wrote, or the
        // app recorded, since then are not: stopping at them could leave the works below them
        // (fetched by no one yet) out until the next full walk.
        let completed = max(metadata.lastFullSync ?? .distantPast, metadata.lastDeltaSync ?? .distantPast)
        func knownGround(_ key: BookmarkKey) -> IndexedBookmark? {
            guard let existing = index.bookmark(for: key), existing.lastSeenAt <= completed,
                  recordedInApp[key.illustID] == nil else { return nil }
            return existing
        }
        // Rows from the top of the page down to the last one that is new, unconfirmed or out of
        // order (a work bookmarked again on the web moves to the top) are placed on top in page
        // order; the known rows below them keep their places.
        var lastToPlace = -1
        var keptOrderBelow = Int64.min
        for (position, illust) in page.illusts.enumerated().reversed() {
            let key = BookmarkKey(illustID: illust.id, restrict: restrict)
            if tombstoned[key.illustID] != nil { continue }
            if let known = knownGround(key), known.serverOrder > keptOrderBelow {
                keptOrderBelow = known.serverOrder
            } else if lastToPlace < 0 {
                lastToPlace = position
            }
        }
        var sawKnown = false
        for (position, illust) in page.illusts.enumerated() {
            let key = BookmarkKey(illustID: illust.id, restrict: restrict)
            // A tombstoned work is skipped, and is no sign the delta has reached known ground:
            // the app may have unbookmarked a work the index never held.
            if tombstoned[key.illustID] != nil { continue }
            let order: Int64
            if let known = knownGround(key), position > lastToPlace {
                // Known ground in its place: the delta has reached what it knew.
                sawKnown = true
                order = known.serverOrder
            } else {
                order = ServerOrder.deltaOrder(index: delta.newRows, above: delta.newestAtStart)
                delta.newRows = delta.newRows.saturatingAdd(1)
            }
            changes.append(.upsert(IndexedBookmark(
                illust: illust, restrict: restrict, serverOrder: order,
                firstIndexedAt: index.bookmark(for: key)?.firstIndexedAt ?? now, lastSeenAt: now
            )))
            job.latest = illust
        }
        guard !sawKnown, let token = page.nextPage else {
            metadata.lastDeltaSync = now
            forgetRecordings(&record, before: delta.startedAt)
            record.deltaCursor = nil
            return true
        }
        delta.nextPage = token
        job.delta = delta
        job.next = .nextPage(token, restrict)
        record.deltaCursor = delta
        return false
    }
}
