import BookmarkIndex
@testable import BookmarkSync
import Foundation

/// Tests speak in dates: a date's moment has the wall clock at that date and the monotonic clock
/// as far past a fixed origin as the date is past a fixed epoch, so the two move together
/// (a test of a stepped wall clock builds its moments itself).
let testEpoch = Date(timeIntervalSince1970: 1_780_000_000)
let testOrigin = ContinuousClock.now

extension Date {
    /// In whole microseconds past the epoch: what dates near today can tell apart.
    var moment: SyncMoment {
        let micros = Int64((timeIntervalSince(testEpoch) * 1e6).rounded())
        return SyncMoment(instant: testOrigin.advanced(by: .microseconds(micros)), date: self)
    }
}

/// What the machine said to do next, with a wait's instant told as a date on the test's
/// timeline (equal within a microsecond: the clocks round differently).
enum TestAction: Equatable, CustomStringConvertible {
    case fetch(SyncStateMachine.Fetch)
    case write
    case wait(until: Date)
    case idle

    init(_ action: SyncStateMachine.Action) {
        switch action {
        case .fetch(let fetch): self = .fetch(fetch)
        case .write: self = .write
        case .wait(let until): self = .wait(until: testEpoch + (until - testOrigin).seconds)
        case .idle: self = .idle
        }
    }

    static func == (a: TestAction, b: TestAction) -> Bool {
        switch (a, b) {
        case (.fetch(let x), .fetch(let y)): x == y
        case (.write, .write): true
        case (.wait(let x), .wait(let y)): abs(x.timeIntervalSince(y)) < 1e-6
        case (.idle, .idle): true
        default: false
        }
    }

    var description: String {
        switch self {
        case .fetch(let fetch): "fetch(\(fetch))"
        case .write: "write"
        case .wait(let until): "wait(until: \(until.timeIntervalSince(testEpoch)) s after the epoch)"
        case .idle: "idle"
        }
    }
}

/// Drives the machine from a whole index and dates, the way the engine does: the facts it reads
/// are the index's, a page goes through `pageArrived`, `PageWork.decide` and `pageWritten`, and
/// a failure's record edits become the batch the engine writes.
extension SyncStateMachine {
    mutating func request(_ restrict: Restrict, intent: Intent, index: BookmarkIndexState, now: Date) -> SyncRequestOutcome {
        request(restrict, intent: intent, facts: AccountFacts(index), now: now.moment)
    }

    mutating func nextAction(index: BookmarkIndexState, now: Date) -> TestAction {
        TestAction(nextAction(facts: AccountFacts(index), now: now.moment))
    }

    func status(index: BookmarkIndexState, now: Date) -> SyncStatus {
        status(facts: AccountFacts(index), now: now.moment)
    }

    mutating func totalFetched(_ total: Int?, now: Date) {
        totalFetched(total, now: now.moment)
    }

    mutating func pageArrived(facts: AccountFacts, now: Date) -> PageArrival {
        pageArrived(facts: facts, now: now.moment)
    }

    mutating func pageWritten(_ outcome: PageOutcome, now: Date) {
        pageWritten(outcome, now: now.moment)
    }

    /// The page answered and its batch written: returns the batch.
    mutating func pageFetched(_ page: BookmarkPage, index: BookmarkIndexState, now: Date) -> [BookmarkChange] {
        guard case .write(let work) = pageArrived(facts: AccountFacts(index), now: now.moment) else { return [] }
        let (changes, outcome) = work.decide(page, index: index, now: now)
        pageWritten(outcome, now: now.moment)
        return changes
    }

    /// The request failed: returns the record edits that keep what the failure decided.
    @discardableResult
    mutating func fetchFailed(_ error: BookmarkSyncError, now: Date) -> [RecordEdit] {
        fetchFailed(error, now: now.moment)
    }

    // With moments: a test of a stepped wall clock.

    mutating func nextAction(index: BookmarkIndexState, moment: SyncMoment) -> TestAction {
        TestAction(nextAction(facts: AccountFacts(index), now: moment))
    }

    func status(index: BookmarkIndexState, moment: SyncMoment) -> SyncStatus {
        status(facts: AccountFacts(index), now: moment)
    }

    mutating func pageFetched(_ page: BookmarkPage, index: BookmarkIndexState, moment: SyncMoment) -> [BookmarkChange] {
        guard case .write(let work) = pageArrived(facts: AccountFacts(index), now: moment) else { return [] }
        let (changes, outcome) = work.decide(page, index: index, now: moment.date)
        pageWritten(outcome, now: moment)
        return changes
    }

    /// The request failed: returns the batch that keeps what the failure decided.
    mutating func fetchFailed(_ error: BookmarkSyncError, index: BookmarkIndexState, now: Date) -> [BookmarkChange] {
        RecordEdit.changes(fetchFailed(error, now: now.moment), in: index)
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
