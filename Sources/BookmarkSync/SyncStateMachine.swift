import BookmarkIndex
import Foundation

/// Every decision of the sync engine, as a pure value: which mode a sync runs in, what to fetch
/// next and when, what a fetched page writes, when a walk stops and what it prunes, when to back
/// off or pause, which list runs next, and what the status says.
///
/// It never reads a clock or the store: every event carries `now` and, where needed, a snapshot
/// of the index (a copy-on-write value). ``BookmarkSyncEngine`` performs what it returns.
struct SyncStateMachine: Sendable {
    /// Why a sync was asked for.
    enum Intent: Sendable, Hashable {
        /// The Bookmarks screen appeared: full when due, else delta, subject to cooldown.
        case auto
        /// The user asked to refresh: always a full walk.
        case manual
    }

    /// One request to the source.
    enum Fetch: Sendable, Hashable {
        case total(Restrict)
        case firstPage(Restrict)
        case nextPage(String, Restrict)

        var restrict: Restrict {
            switch self {
            case .total(let restrict), .firstPage(let restrict), .nextPage(_, let restrict): restrict
            }
        }
    }

    /// What the engine should do next.
    enum Action: Sendable, Hashable {
        /// Perform this request, then report ``SyncStateMachine/pageFetched(_:index:now:)``,
        /// ``SyncStateMachine/totalFetched(_:now:)`` or ``SyncStateMachine/fetchFailed(_:now:)``.
        case fetch(Fetch)
        /// Sleep until this time, then ask again.
        case wait(until: Date)
        /// Nothing to do until the next user intent.
        case idle
    }

    private struct Job: Sendable {
        var restrict: Restrict
        var intent: Intent
        var mode: SyncMode = .delta
        var next: Fetch?
        var needsTotal = false
        var pagesFetched = 0
        /// Full walk: the cursor as of the last page.
        var walk: FullSyncCursor?
        /// Delta: the newest order when the delta began, and new rows so far.
        var newestAtStart: Int64?
        var newRows = 0
        var retryAt: Date?
        var attempt = 0
        var inFlight = false
        var cancelled = false
        var latest: BookmarkedIllustSnapshot?
        /// When the job started fetching.
        var startedAt: Date?
        /// A full walk resumed from a saved cursor that has not yet fetched a page.
        var resumingCursor = false
    }

    private struct ListState: Sendable {
        var consecutiveFailures = 0
        var pausedUntil: Date?
        var pauseReason: BookmarkSyncError?
        var failure: BookmarkSyncError?
        var knownTotal: Int?
        /// The saved cursor failed in a way retrying will not fix (another host, a bad token):
        /// the next full walk starts over instead of resuming it.
        var cursorRejected = false
    }

    let configuration: SyncConfiguration
    private(set) var isEnabled = true
    private var active: Job?
    private var queue: [Job] = []
    private var lists: [Restrict: ListState] = [.public: ListState(), .private: ListState()]
    // The app's own bookmarks and unbookmarks (tombstones) are kept in each list's metadata
    // (BookmarkIndexMetadata.bookmarkedInApp / unbookmarkedInApp), so they survive a restart.
    private var lastRequestEnd: Date?
    /// Until when the server asked, with a `Retry-After`, not to be asked again: its limits are
    /// the account's, so no request of either list goes out before then.
    private var accountWaitUntil: Date?

    init(configuration: SyncConfiguration = SyncConfiguration()) {
        self.configuration = configuration
    }

    /// Whether a sync is running or waiting: `false` means only a user intent starts work.
    var hasWork: Bool { active != nil || !queue.isEmpty }

    // MARK: User intent

    /// A user intent to sync `restrict`. Decides whether it runs, queues, or is refused.
    mutating func request(_ restrict: Restrict, intent: Intent, index: BookmarkIndexState, now: Date) -> SyncRequestOutcome {
        guard isEnabled else { return .disabled }
        // A pause recorded in the index (by this process or one before it) holds too.
        if lists[restrict]?.pausedUntil == nil, let pause = index.metadata(for: restrict).pause, now < pause.until {
            lists[restrict]?.pausedUntil = pause.until
            lists[restrict]?.pauseReason = BookmarkSyncError(.named(pause.code), pause.message)
        }
        if let until = lists[restrict]?.pausedUntil {
            if now < until { return .paused(until: until) }
            lists[restrict]?.pausedUntil = nil
            lists[restrict]?.pauseReason = nil
            lists[restrict]?.consecutiveFailures = 0
        }
        if let running = active, running.restrict == restrict, !running.cancelled {
            // A refresh asked for during a delta runs as a full walk after it; anything else
            // is what is already running.
            guard intent == .manual, running.mode == .delta,
                  !queue.contains(where: { $0.restrict == restrict }) else {
                if intent == .manual, let queued = queue.firstIndex(where: { $0.restrict == restrict }) {
                    queue[queued].intent = .manual
                }
                return .alreadyScheduled
            }
            // A delta does not change the last full sync, so the refresh's cooldown is the
            // same now as when it would start.
            if case .coolingDown(let until) = plan(.manual, metadata: index.metadata(for: restrict), now: now) {
                return .coolingDown(until: until)
            }
            queue.append(Job(restrict: restrict, intent: .manual))
            return .queued
        }
        if let queued = queue.firstIndex(where: { $0.restrict == restrict }) {
            if intent == .manual { queue[queued].intent = .manual }
            return .alreadyScheduled
        }
        if case .coolingDown(let until) = plan(intent, metadata: index.metadata(for: restrict), now: now) {
            return .coolingDown(until: until)
        }
        lists[restrict]?.failure = nil
        let job = Job(restrict: restrict, intent: intent)
        guard active == nil, queue.isEmpty else {
            queue.append(job)
            return .queued
        }
        active = start(job, index: index, now: now)
        return .started
    }

    private enum Plan: Equatable {
        case run(SyncMode)
        case coolingDown(until: Date)
    }

    /// Auto: full when never fully synced, a walk is unfinished, or the last full sync is older
    /// than the maximum age; else delta, unless within the cooldown. Manual: full, unless a
    /// full sync finished within the refresh cooldown.
    private func plan(_ intent: Intent, metadata: BookmarkIndexMetadata, now: Date) -> Plan {
        switch intent {
        case .manual:
            if metadata.fullSyncCursor == nil, let last = metadata.lastFullSync,
               now < last + configuration.refreshCooldown {
                return .coolingDown(until: last + configuration.refreshCooldown)
            }
            return .run(.full)
        case .auto:
            guard metadata.fullSyncCursor == nil, let lastFull = metadata.lastFullSync,
                  now.timeIntervalSince(lastFull) <= configuration.fullSyncMaxAge
            else { return .run(.full) }
            let lastSync = max(lastFull, metadata.lastDeltaSync ?? lastFull)
            if now < lastSync + configuration.deltaCooldown {
                return .coolingDown(until: lastSync + configuration.deltaCooldown)
            }
            return .run(.delta)
        }
    }

    // MARK: Driving the request stream

    /// What to do next: start the next queued sync, wait out a backoff or the request spacing,
    /// or fetch.
    mutating func nextAction(index: BookmarkIndexState, now: Date) -> Action {
        guard isEnabled else {
            active = nil
            queue.removeAll()
            return .idle
        }
        if active == nil {
            while active == nil, !queue.isEmpty {
                let job = queue.removeFirst()
                active = start(job, index: index, now: now)
            }
        }
        guard var job = active else { return .idle }
        precondition(!job.inFlight, "nextAction while a request is in flight")
        if let retryAt = job.retryAt, now < retryAt { return .wait(until: retryAt) }
        if let until = accountWaitUntil {
            // A wall clock stepped back must not stretch the wait past the longest pause.
            let wait = min(until, now + configuration.maximumPause)
            accountWaitUntil = wait
            if now < wait {
                job.retryAt = wait
                active = job
                return .wait(until: wait)
            }
            accountWaitUntil = nil
        }
        // A wall clock stepped back must not turn the spacing into a wait as long as the step.
        if let last = lastRequestEnd, last > now { lastRequestEnd = now }
        if let last = lastRequestEnd, now < last + configuration.minimumRequestSpacing {
            return .wait(until: last + configuration.minimumRequestSpacing)
        }
        let fetch: Fetch = job.needsTotal ? .total(job.restrict) : (job.next ?? .firstPage(job.restrict))
        job.inFlight = true
        job.retryAt = nil
        active = job
        return .fetch(fetch)
    }

    private mutating func start(_ queued: Job, index: BookmarkIndexState, now: Date) -> Job? {
        var metadata = index.metadata(for: queued.restrict)
        if lists[queued.restrict]?.cursorRejected == true { metadata.fullSyncCursor = nil }
        if let until = lists[queued.restrict]?.pausedUntil, now < until { return nil }
        guard case .run(let mode) = plan(queued.intent, metadata: metadata, now: now) else { return nil }
        lists[queued.restrict]?.failure = nil
        var job = queued
        job.mode = mode
        job.startedAt = now
        switch mode {
        case .delta:
            job.newestAtStart = index.serverOrderBounds(in: job.restrict)?.newest
            job.next = .firstPage(job.restrict)
        case .full:
            job.needsTotal = true
            if let cursor = metadata.fullSyncCursor {
                job.walk = cursor
                job.pagesFetched = cursor.pagesFetched
                job.next = .nextPage(cursor.nextPage, job.restrict)
                job.resumingCursor = true
            } else {
                let oldest = index.serverOrderBounds(in: job.restrict)?.oldest
                let first = ServerOrder.walkOrder(index: 0, below: oldest)
                job.walk = FullSyncCursor(
                    nextPage: "", startedAt: now, pagesFetched: 0,
                    nextServerOrder: first, firstServerOrder: first
                )
                job.next = .firstPage(job.restrict)
            }
        }
        return job
    }

    // MARK: Results

    /// The source answered a ``Fetch/total(_:)`` request.
    mutating func totalFetched(_ total: Int?, now: Date) {
        guard var job = finishRequest(now: now) else { return }
        lists[job.restrict]?.consecutiveFailures = 0
        job.needsTotal = false
        if let total { lists[job.restrict]?.knownTotal = total }
        active = job
    }

    /// The source returned `page`; returns the one batch to write (rows, prunes, metadata).
    ///
    /// `index` is the index as it is now. Rows under a live tombstone are skipped. A delta stops
    /// at the first page holding an ID the index has (or the last page); a full walk saves
    /// its cursor with every page and, after the last one, removes the list's rows not seen
    /// since the walk began.
    mutating func pageFetched(_ page: BookmarkPage, index: BookmarkIndexState, now: Date) -> [BookmarkChange] {
        guard var job = finishRequest(now: now) else { return [] }
        let restrict = job.restrict
        lists[restrict]?.consecutiveFailures = 0
        job.pagesFetched += 1
        job.resumingCursor = false
        var metadata = index.metadata(for: restrict)
        metadata.pause = nil
        dropExpiredTombstones(&metadata, now: now)
        let tombstoned = metadata.unbookmarkedInApp
        let recordedInApp = metadata.bookmarkedInApp
        var changes: [BookmarkChange] = []
        var finished = false

        switch job.mode {
        case .delta:
            // Known ground is a row a *complete* sync saw. Rows an interrupted delta wrote, or
            // the app recorded, since then are not: stopping at them could leave the works
            // below them (fetched by no one yet) out until the next full walk.
            let completed = max(metadata.lastFullSync ?? .distantPast, metadata.lastDeltaSync ?? .distantPast)
            func knownGround(_ key: BookmarkKey) -> IndexedBookmark? {
                guard let existing = index.bookmark(for: key), existing.lastSeenAt <= completed,
                      recordedInApp[key.illustID] == nil else { return nil }
                return existing
            }
            // Rows from the top of the page down to the last one that is new, unconfirmed or out
            // of order (a work bookmarked again on the web moves to the top) are placed on top
            // in page order; the known rows below them keep their places.
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
                // A tombstoned work is skipped, and is no sign the delta has reached known
                // ground: the app may have unbookmarked a work the index never held.
                if tombstoned[key.illustID] != nil { continue }
                let existing = index.bookmark(for: key)
                let known = knownGround(key)
                let order: Int64
                if let known, position > lastToPlace {
                    // Known ground in its place: the delta has reached what it knew.
                    sawKnown = true
                    order = known.serverOrder
                } else {
                    order = ServerOrder.deltaOrder(index: job.newRows, above: job.newestAtStart)
                    job.newRows += 1
                }
                let firstIndexed = existing?.firstIndexedAt ?? now
                changes.append(.upsert(IndexedBookmark(
                    illust: illust, restrict: restrict, serverOrder: order, firstIndexedAt: firstIndexed, lastSeenAt: now
                )))
                job.latest = illust
            }
            if sawKnown || page.nextPage == nil {
                metadata.lastDeltaSync = now
                forgetRecordings(&metadata, before: job.startedAt ?? now)
                finished = true
            } else if let token = page.nextPage {
                job.next = .nextPage(token, restrict)
            }

        case .full:
            guard var walk = job.walk else { preconditionFailure("a full job always has a walk") }
            // This page's batch saves the walk's own cursor over any rejected one.
            lists[restrict]?.cursorRejected = false
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
            } else {
                // Rows this walk wrote are at or below its first order, whatever the clock did
                // meanwhile: only rows above it, not seen since the walk began, are pruned.
                for row in index.allBookmarks(in: restrict)
                where row.lastSeenAt < walk.startedAt && !seen.contains(row.illust.id)
                    && walk.firstServerOrder.map({ row.serverOrder > $0 }) ?? true {
                    changes.append(.remove(row.key))
                }
                metadata.fullSyncCursor = nil
                metadata.lastFullSync = now
                metadata.unbookmarkedInApp = metadata.unbookmarkedInApp.filter { $0.value >= walk.startedAt }
                forgetRecordings(&metadata, before: walk.startedAt)
                finished = true
            }
        }
        changes.append(.setMetadata(metadata, for: restrict))
        active = finished ? nil : job
        return changes
    }

    /// The request failed. Retryable failures back off (doubling, capped, `Retry-After` wins
    /// when longer) and pause the list after too many in a row, or at once when the server's
    /// `Retry-After` is as long as a pause; others end the sync and show. A `Retry-After` also
    /// holds every request of the other list until then: the server's limits are the account's.
    ///
    /// With `index`, a pause is also returned as the list's metadata to write, so that it holds
    /// across a restart.
    @discardableResult
    mutating func fetchFailed(_ error: BookmarkSyncError, index: BookmarkIndexState? = nil, now: Date) -> [BookmarkChange] {
        guard var job = finishRequest(now: now) else { return [] }
        var error = error
        if error.code == .blocked {
            // A block is waited out like a long Retry-After: it holds the account and pauses the list.
            error.retryAfter = max(error.retryAfter ?? 0, configuration.blockedWait)
        }
        let restrict = job.restrict
        guard error.isRetryable else {
            // A saved cursor that fails this way would fail again: the next walk starts over.
            if job.resumingCursor { lists[restrict]?.cursorRejected = true }
            fail(restrict, error)
            return []
        }
        let failures = (lists[restrict]?.consecutiveFailures ?? 0) + 1
        lists[restrict]?.consecutiveFailures = failures
        if let retryAfter = error.retryAfter, retryAfter > 0 {
            accountWaitUntil = max(accountWaitUntil ?? now, now + min(retryAfter, configuration.maximumPause))
        }
        if failures >= configuration.failuresBeforePause || error.retryAfter.map({ $0 > 0 && $0 >= configuration.pauseDuration }) ?? false {
            let until = now + configuration.pause(retryAfter: error.retryAfter)
            lists[restrict]?.pausedUntil = until
            lists[restrict]?.pauseReason = error
            lists[restrict]?.consecutiveFailures = 0
            active = nil
            // Nothing of this list runs during the pause, not even a refresh queued behind it.
            queue.removeAll { $0.restrict == restrict }
            guard var metadata = index?.metadata(for: restrict) else { return [] }
            metadata.pause = ListPause(until: until, code: error.code.description, message: error.message)
            return [.setMetadata(metadata, for: restrict)]
        }
        job.attempt = failures
        job.retryAt = now + configuration.backoff(attempt: failures, retryAfter: error.retryAfter)
        active = job
        return []
    }

    /// Writing a page's batch failed: the sync ends (its saved cursor is where it was).
    mutating func writeFailed(_ error: BookmarkSyncError, restrict: Restrict) {
        fail(restrict, error)
    }

    private mutating func fail(_ restrict: Restrict, _ error: BookmarkSyncError) {
        lists[restrict]?.failure = error
        lists[restrict]?.consecutiveFailures = 0
        if active?.restrict == restrict { active = nil }
        // A failure retrying would not fix ends this list's work until the next user intent.
        queue.removeAll { $0.restrict == restrict }
    }

    /// Marks the in-flight request answered; `nil` when its sync was cancelled meanwhile.
    private mutating func finishRequest(now: Date) -> Job? {
        lastRequestEnd = now
        guard var job = active, job.inFlight else { return nil }
        job.inFlight = false
        if job.cancelled {
            active = nil
            return nil
        }
        active = job
        return job
    }

    // MARK: Kill switch

    /// Switches indexing on or off. Off: the queue is dropped and a running sync stops (the
    /// answer to a request in flight is discarded; a walk's saved cursor stays for later).
    mutating func setEnabled(_ enabled: Bool) {
        isEnabled = enabled
        guard !enabled else { return }
        queue.removeAll()
        if var job = active {
            if job.inFlight {
                job.cancelled = true
                active = job
            } else {
                active = nil
            }
        }
    }

    // MARK: In-app mutations

    /// The app bookmarked `illust` (the POST already succeeded): the row to write, on top of
    /// its list or in its place when already there, and the list's metadata recording it (not
    /// ground a sync confirmed) and lifting any tombstone.
    mutating func recordBookmark(_ illust: BookmarkedIllustSnapshot, restrict: Restrict, index: BookmarkIndexState, now: Date) -> [BookmarkChange] {
        let key = BookmarkKey(illustID: illust.id, restrict: restrict)
        var metadata = index.metadata(for: restrict)
        metadata.unbookmarkedInApp[illust.id] = nil
        metadata.bookmarkedInApp[illust.id] = now
        let existing = index.bookmark(for: key)
        let order = existing?.serverOrder ?? ServerOrder.newest(above: index.serverOrderBounds(in: restrict)?.newest)
        return [
            .upsert(IndexedBookmark(
                illust: illust, restrict: restrict, serverOrder: order,
                firstIndexedAt: existing?.firstIndexedAt ?? now, lastSeenAt: now
            )),
            .setMetadata(metadata, for: restrict),
        ]
    }

    /// The app removed the bookmark `key`: the change to write, and a tombstone in the list's
    /// metadata so a page fetched around now cannot re-add it for
    /// ``SyncConfiguration/tombstoneLifetime``.
    mutating func recordUnbookmark(_ key: BookmarkKey, index: BookmarkIndexState, now: Date) -> [BookmarkChange] {
        var metadata = index.metadata(for: key.restrict)
        dropExpiredTombstones(&metadata, now: now)
        metadata.unbookmarkedInApp[key.illustID] = now
        metadata.bookmarkedInApp[key.illustID] = nil
        return [.remove(key), .setMetadata(metadata, for: key.restrict)]
    }

    /// Whether `key` is under a live tombstone in `index`.
    func isTombstoned(_ key: BookmarkKey, index: BookmarkIndexState, now: Date) -> Bool {
        guard let createdAt = index.metadata(for: key.restrict).unbookmarkedInApp[key.illustID] else { return false }
        return now < createdAt + configuration.tombstoneLifetime
    }

    /// A complete sync that began at `start` confirmed the bookmarks recorded before it;
    /// those recorded while it ran stay unconfirmed.
    private func forgetRecordings(_ metadata: inout BookmarkIndexMetadata, before start: Date) {
        metadata.bookmarkedInApp = metadata.bookmarkedInApp.filter { $0.value >= start }
    }

    private func dropExpiredTombstones(_ metadata: inout BookmarkIndexMetadata, now: Date) {
        metadata.unbookmarkedInApp = metadata.unbookmarkedInApp.filter { now < $0.value + configuration.tombstoneLifetime }
    }

    // MARK: Status

    /// One row per list, as of `now`.
    func status(index: BookmarkIndexState, now: Date) -> SyncStatus {
        SyncStatus(
            publicList: status(of: .public, index: index, now: now),
            privateList: status(of: .private, index: index, now: now)
        )
    }

    private func status(of restrict: Restrict, index: BookmarkIndexState, now: Date) -> ListSyncStatus {
        guard isEnabled else { return .disabled }
        let list = lists[restrict] ?? ListState()
        if let job = active, job.restrict == restrict, !job.cancelled {
            if let retryAt = job.retryAt, now < retryAt {
                return .backingOff(until: retryAt, attempt: job.attempt)
            }
            return .syncing(SyncProgress(
                mode: job.mode, pagesFetched: job.pagesFetched, indexedCount: index.count(in: restrict),
                knownTotal: list.knownTotal, latestIllust: job.latest
            ))
        }
        if queue.contains(where: { $0.restrict == restrict }) { return .queued }
        if let until = list.pausedUntil, now < until, let reason = list.pauseReason {
            return .paused(until: until, reason: reason)
        }
        if let failure = list.failure { return .failed(failure) }
        let metadata = index.metadata(for: restrict)
        if let pause = metadata.pause, now < pause.until {
            return .paused(until: pause.until, reason: BookmarkSyncError(.named(pause.code), pause.message))
        }
        return .idle(lastFullSync: metadata.lastFullSync, lastDeltaSync: metadata.lastDeltaSync)
    }
}
