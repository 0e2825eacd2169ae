import BookmarkIndex
import Foundation

/// Where a delta stands: what it has placed and where it goes on, so one interrupted by a
/// failure, a pause or a restart resumes instead of starting over.
struct DeltaCursor: Sendable, Hashable, Decodable {
    private enum CodingKeys: String, CodingKey {
        case nextPage = "next", newestAtStart = "newest", newRows = "placed", startedAt = "started"
        case groundAfterFirstPage = "ground"
    }

    /// The page to fetch next (Pixiv's `next_url` as given).
    var nextPage: String
    /// The newest order in the list when the delta began: the rows it reads go above it.
    var newestAtStart: Int64?
    /// Rows placed so far.
    var newRows: Int
    /// When the delta began: in-app records from before then are confirmed when it ends.
    var startedAt: Date
    /// The known ground the delta leaves behind when it completes: from its first page, lowered
    /// past a transient placeholder (``KnownGround/after(_:current:now:)``).
    var groundAfterFirstPage: KnownGround?
}

extension SyncStateMachine {
    /// A delta starts at page 1, or where an interrupted one stopped.
    func startDelta(_ job: inout Job, record: ListSyncRecord, list: ListFacts, now: SyncMoment) {
        if let cursor = record.deltaCursor {
            job.delta = cursor
            job.startedAt = cursor.startedAt
            job.next = .nextPage(cursor.nextPage, job.restrict)
            job.resumingCursor = true
        } else {
            job.delta = DeltaCursor(nextPage: "", newestAtStart: list.orderBounds?.newest, newRows: 0, startedAt: now.date)
            job.next = .firstPage(job.restrict)
        }
    }
}

extension PageWork {
    /// A delta's page: its rows on top of the list in page order (new works, works bookmarked
    /// again and known works alike: the pages a delta reads are the top of Pixiv's list, and
    /// every row below them was placed by an earlier sync); the delta ends once a page's cursor
    /// reaches the known ground the last complete sync proved (``KnownGround``), or at the last
    /// page. A work the other list holds leaves it (Pixiv keeps one bookmark per work).
    ///
    /// - Returns: whether the delta is finished.
    func deltaPage(
        _ page: BookmarkPage, job: inout SyncStateMachine.Job, metadata: inout BookmarkIndexMetadata, record: inout ListSyncRecord,
        index: BookmarkIndexState, now: Date, changes: inout [BookmarkChange]
    ) -> Bool {
        let restrict = job.restrict
        guard var delta = job.delta else { preconditionFailure("a delta job always has its cursor") }
        let isFirstPage = delta.groundAfterFirstPage == nil
        delta.groundAfterFirstPage = KnownGround.after(page, current: delta.groundAfterFirstPage, now: now)
        let tombstoned = record.unbookmarkedInApp
        let illusts = page.illusts.filter { tombstoned[$0.id] == nil }
        let ground = record.groundForDelta(lastDeltaSync: metadata.lastDeltaSync)
        let reachedGround = ground.map { $0.isReached(by: page) } ?? (page.nextPage == nil)
        // A delta that ends on a first page that is the index's top as it stands (nothing
        // changed) keeps its orders; one that reads on places every page anew, in order.
        let unchanged = isFirstPage && reachedGround && delta.newRows == 0
            && index.bookmarks(in: restrict, matching: BookmarkFilter(visibility: .all), limit: illusts.count).map(\.illust.id) == illusts.map(\.id)
        let moves = MovesBetweenLists(into: restrict, index: index)
        for illust in illusts {
            let key = BookmarkKey(illustID: illust.id, restrict: restrict)
            let existing = index.placement(of: key)
            let order: Int64
            if unchanged, let existing {
                order = existing.serverOrder
            } else {
                order = ServerOrder.deltaOrder(index: delta.newRows, above: delta.newestAtStart)
                delta.newRows = delta.newRows.saturatingAdd(1)
            }
            changes.append(.upsert(IndexedBookmark(
                illust: illust, restrict: restrict, serverOrder: order,
                firstIndexedAt: existing?.firstIndexedAt ?? now, lastSeenAt: now
            )))
            changes += moves.removal(of: illust.id)
            job.latest = illust
        }
        guard !reachedGround, let token = page.nextPage else {
            metadata.lastDeltaSync = now
            record.forgetRecordings(before: delta.startedAt)
            record.deltaCursor = nil
            // The proof's ground moves up to the new top: the next unchanged delta is one request.
            record.knownGround = delta.groundAfterFirstPage
            return true
        }
        delta.nextPage = token
        job.delta = delta
        job.next = .nextPage(token, restrict)
        record.deltaCursor = delta
        return false
    }
}
