import BookmarkIndex
@testable import BookmarkSync
import Foundation

/// Drives the machine from a whole index, the way the engine does: the facts it reads are the
/// index's, a page goes through `pageArrived`, `PageWork.decide` and `pageWritten`, and a
/// failure's record edits become the batch the engine writes.
extension SyncStateMachine {
    mutating func request(_ restrict: Restrict, intent: Intent, index: BookmarkIndexState, now: Date) -> SyncRequestOutcome {
        request(restrict, intent: intent, facts: AccountFacts(index), now: now)
    }

    mutating func nextAction(index: BookmarkIndexState, now: Date) -> Action {
        nextAction(facts: AccountFacts(index), now: now)
    }

    func status(index: BookmarkIndexState, now: Date) -> SyncStatus {
        status(facts: AccountFacts(index), now: now)
    }

    /// The page answered and its batch written: returns the batch.
    mutating func pageFetched(_ page: BookmarkPage, index: BookmarkIndexState, now: Date) -> [BookmarkChange] {
        guard case .write(let work) = pageArrived(facts: AccountFacts(index), now: now) else { return [] }
        let (changes, outcome) = work.decide(page, index: index, now: now)
        pageWritten(outcome, now: now)
        return changes
    }

    /// The request failed: returns the batch that keeps what the failure decided.
    mutating func fetchFailed(_ error: BookmarkSyncError, index: BookmarkIndexState, now: Date) -> [BookmarkChange] {
        RecordEdit.changes(fetchFailed(error, now: now), in: index)
    }

    func recordBookmark(_ illust: BookmarkedIllustSnapshot, restrict: Restrict, index: BookmarkIndexState, now: Date) -> [BookmarkChange] {
        InAppRecordings(configuration: configuration).recordBookmark(illust, restrict: restrict, index: index, now: now)
    }

    func recordUnbookmark(_ key: BookmarkKey, index: BookmarkIndexState, now: Date) -> [BookmarkChange] {
        InAppRecordings(configuration: configuration).recordUnbookmark(key, index: index, now: now)
    }

    /// Whether `key` is under a live tombstone in `index`.
    func isTombstoned(_ key: BookmarkKey, index: BookmarkIndexState, now: Date) -> Bool {
        guard let createdAt = ListSyncRecord(index.metadata(for: key.restrict)).unbookmarkedInApp[key.illustID] else { return false }
        return now < createdAt + configuration.tombstoneLifetime
    }
}
