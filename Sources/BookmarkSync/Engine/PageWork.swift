import BookmarkIndex
import Foundation

/// A fetched page's decision: made in the store's turn, on the index as it is when the batch is
/// written, from what the machine handed over when the answer arrived
/// (``SyncStateMachine/pageArrived(facts:now:)``). A pure value: the machine's own state is never
/// copied into the store's turn; the machine takes the ``PageOutcome`` back as an event.
struct PageWork: Sendable {
    let configuration: SyncConfiguration
    /// The job as of the answer.
    var job: SyncStateMachine.Job
    /// The account's pacing saved with the page (`nil`: it has recovered, nothing to keep).
    var pacing: LearnedPacing?
    /// The other list still keeps a pacing that is over: it is cleared with this page, so no
    /// relaunch takes it back.
    var clearsOtherPacing: Bool
    /// The list's record the machine knew, with the payload it was decoded from: used as it is
    /// when the index still holds that payload.
    var knownRecord: (payload: VersionedPayload?, record: ListSyncRecord)?
    /// The account's spend of the day, saved with the page (`nil`: no daily bound).
    var dailySpend: DailyRequestLedger?
    /// The list's total as Pixiv told it during this sync.
    var knownTotal: KnownTotal?

    /// What the page writes (rows, prunes, the list's record and metadata) and the job after it.
    ///
    /// Rows under a live tombstone are skipped. A delta stops at known ground (or the last
    /// page); a full walk saves its cursor with every page and, after the last one, removes the
    /// list's rows it did not see.
    func decide(_ page: BookmarkPage, index: BookmarkIndexState, now: Date) -> (changes: [BookmarkChange], result: PageOutcome) {
        let restrict = job.restrict
        var job = job
        var metadata = index.metadata(for: restrict)
        var record = knownRecord.flatMap { $0.payload == metadata.syncState ? $0.record : nil } ?? ListSyncRecord(metadata)
        record.pause = nil
        record.pacing = pacing
        record.dailySpend = dailySpend
        if let knownTotal { record.lastKnownTotal = knownTotal }
        record.dropExpiredTombstones(now: now, lifetime: configuration.tombstoneLifetime)
        var changes: [BookmarkChange] = []
        let finished: Bool
        switch job.mode {
        case .delta: finished = deltaPage(page, job: &job, metadata: &metadata, record: &record, index: index, now: now, changes: &changes)
        case .full: finished = walkPage(page, job: &job, metadata: &metadata, record: &record, index: index, now: now, changes: &changes)
        }
        if clearsOtherPacing {
            changes += RecordEdit.changes([RecordEdit(restrict.other, pacing: .some(nil))], in: index)
        }
        let stored = record.storedAndRead(in: metadata)
        changes.append(.setMetadata(stored.metadata, for: restrict))
        let written = stored.read.map { (payload: stored.metadata.syncState, record: $0) }
        return (changes, PageOutcome(job: job, finished: finished, writtenRecord: written))
    }
}

/// What a written page did to its job.
struct PageOutcome: Sendable {
    var job: SyncStateMachine.Job
    /// The sync reached its end with this page.
    var finished: Bool
    /// The list's record the page wrote, with its payload, when known: the engine's
    /// ``SyncRecordCache`` takes it so that the next read of the list's facts does not decode
    /// what was just encoded (`JSONDecoder` on every page was 7.7 % of what a sync's engine,
    /// client and journal spent).
    var writtenRecord: (payload: VersionedPayload?, record: ListSyncRecord)? = nil
}

extension Restrict {
    /// The other list.
    var other: Restrict { self == .public ? .private : .public }
}

extension ListSyncRecord {
    /// A complete sync that began at `start` confirmed the bookmarks recorded before it;
    /// those recorded while it ran stay unconfirmed.
    mutating func forgetRecordings(before start: Date) {
        bookmarkedInApp = bookmarkedInApp.filter { $0.value >= start }
    }

    /// Tombstones older than `lifetime` no longer hold.
    mutating func dropExpiredTombstones(now: Date, lifetime: TimeInterval) {
        unbookmarkedInApp = unbookmarkedInApp.filter { now < $0.value + lifetime }
    }
}
