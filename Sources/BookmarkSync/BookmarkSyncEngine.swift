import BookmarkIndex
import Foundation

/// Keeps a `BookmarksIndexStore` in step with a user's bookmark lists, without ever getting
/// the account rate-limited.
///
/// Only user intent starts work: call ``startAutoSync(for:)`` when the Bookmarks screen
/// appears, ``refresh(_:)`` when the user pulls to refresh; the engine has no timer that fetches
/// on its own. Both lists share one request stream: one request at a time, at least
/// ``SyncConfiguration/minimumRequestSpacing`` apart, and the other list waits in a queue.
/// The account's budget allows a burst at that floor, then a sustained pace; a rate-limit
/// answer cools the account down and slows the pace; failures back off and pause; all as
/// ``SyncConfiguration`` says. ``statusUpdates(bufferingPolicy:)``
/// tells a UI what is happening.
///
/// ```swift
/// let engine = BookmarkSyncEngine(store: store, source: PixivBookmarkSource(client: client, userID: id))
/// await engine.startAutoSync(for: .public)
/// ```
///
/// The engine is an actor and owns nothing but a pure decision core, the store, the source and
/// the clock; every decision is made by the core, which owns its state: the engine performs the
/// action each event returns and reports the result as the next event. It writes one fetched
/// page as one store batch,
/// and saves a full walk's cursor with it, so a walk interrupted by a failure or a restart
/// resumes where it stopped.
public actor BookmarkSyncEngine {
    private var machine: SyncStateMachine
    private let store: BookmarksIndexStore
    private let source: any BookmarkSource
    private let clock: any SyncClock
    /// The rate-limit policy this engine follows.
    public nonisolated let configuration: SyncConfiguration

    private var worker: Task<Void, Never>?
    private var sleeper: Task<Void, any Error>?
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    private let subscribers = Subscribers<SyncStatus>()
    private var lastStatus: SyncStatus?
    /// Each list's record, decoded once per change of its stored bytes.
    private var records = SyncRecordCache()
    private var newest = NewestFacts()

    /// Creates an engine that syncs `store` from `source`.
    ///
    /// - Parameters:
    ///   - store: the index to keep current; its metadata holds the sync times and the cursor.
    ///   - source: where the bookmark lists come from.
    ///   - clock: wall time and sleeping; inject `TestClock` in tests.
    ///   - configuration: the rate-limit policy.
    public init(
        store: BookmarksIndexStore,
        source: some BookmarkSource,
        clock: some SyncClock = SystemSyncClock(),
        configuration: SyncConfiguration = SyncConfiguration()
    ) {
        self.store = store
        self.source = source
        self.clock = clock
        self.configuration = configuration
        self.machine = SyncStateMachine(configuration: configuration)
    }


    // MARK: User intent

    /// Syncs `restrict`'s list the way a screen appearing should: a full walk when the list was
    /// never fully synced, a walk is unfinished, or the last full sync is older than
    /// ``SyncConfiguration/fullSyncMaxAge``; otherwise a delta, unless the list synced within
    /// ``SyncConfiguration/deltaCooldown``.
    ///
    /// Returns at once; the sync runs in the background (watch ``statusUpdates(bufferingPolicy:)``
    /// or await ``waitUntilIdle()``).
    @discardableResult
    public func startAutoSync(for restrict: Restrict) async -> SyncRequestOutcome {
        await request(restrict, .auto)
    }

    /// Walks all of `restrict`'s list (a manual refresh): new rows are added, rows removed on
    /// the web are pruned once the walk completes. Refused within
    /// ``SyncConfiguration/refreshCooldown`` of the last full sync.
    @discardableResult
    public func refresh(_ restrict: Restrict) async -> SyncRequestOutcome {
        await request(restrict, .manual)
    }

    private func request(_ restrict: Restrict, _ intent: SyncStateMachine.Intent) async -> SyncRequestOutcome {
        let outcome = machine.request(restrict, intent: intent, facts: await facts(), now: moment)
        if machine.hasWork, worker == nil {
            worker = Task { await self.run() }
        } else if outcome == .started {
            // The worker sleeps for a walk waiting for the day's budget: this sync goes now.
            sleeper?.cancel()
        }
        publish()
        return outcome
    }

    /// The lists as the index holds them now (or as a newer read already saw them).
    private func facts() async -> AccountFacts {
        let index = await store.snapshot
        let facts = newest.offer(records.facts(of: index))
        // The pacing and the day's spend an earlier process saved hold from the first read.
        machine.restoreBudget(from: facts, now: moment)
        return facts
    }

    /// What a full walk of `restrict`'s list would cost if it started now: requests, and about
    /// how long at the current pace and within the day's budget
    /// (``SyncConfiguration/dailyRequestLimit``). Sends no request.
    ///
    /// The bookmark count is `bookmarkCount` when given, else Pixiv's total as the last walk
    /// read it, else the rows the index holds; `nil` when none of these is known (a list never
    /// walked: pass the count the app knows, such as the profile's public bookmark total).
    public func fullWalkCost(of restrict: Restrict, bookmarkCount: Int? = nil) async -> FullWalkCost? {
        let facts = await facts()
        return machine.fullWalkCost(of: restrict, bookmarkCount: bookmarkCount, list: facts[restrict], now: moment)
    }

    // MARK: In-app mutations

    /// Records a bookmark the app just made (its POST already succeeded): the row appears at
    /// once, on top of `restrict`'s list, with the illust's tags.
    ///
    /// - Throws: `BookmarkIndexError` when the store cannot write.
    public func recordBookmark(_ illust: BookmarkedIllustSnapshot, restrict: Restrict) async throws {
        let (recordings, now) = (InAppRecordings(configuration: configuration), clock.now)
        try await store.update { index in (recordings.recordBookmark(illust, restrict: restrict, index: index, now: now), ()) }
        _ = await facts()
        publish()
    }

    /// Records an unbookmark the app just made: the row disappears at once, and for
    /// ``SyncConfiguration/tombstoneLifetime`` no fetched page can re-add it (a full sync that
    /// begins later clears the tombstone when it completes). The tombstone is written with the
    /// removal, in the list's metadata, so it outlives a restart.
    ///
    /// - Throws: `BookmarkIndexError` when the store cannot write.
    public func recordUnbookmark(illustID: Int, restrict: Restrict) async throws {
        let (recordings, now) = (InAppRecordings(configuration: configuration), clock.now)
        let key = BookmarkKey(illustID: illustID, restrict: restrict)
        try await store.update { index in (recordings.recordUnbookmark(key, index: index, now: now), ()) }
        _ = await facts()
        publish()
    }

    // MARK: Kill switch

    /// Switches indexing on or off. Off: nothing is fetched, queued syncs are dropped, a running
    /// sync stops (the answer to a request in flight is discarded, unless it is already being
    /// written, which completes with its cursor), and every status
    /// row says ``ListSyncStatus/disabled``. On again: nothing starts until the next user intent.
    public func setIndexingEnabled(_ enabled: Bool) async {
        machine.setEnabled(enabled)
        if !enabled { sleeper?.cancel() }
        _ = await facts()
        publish()
    }

    /// Whether indexing is switched on.
    public var isIndexingEnabled: Bool { machine.isEnabled }

    // MARK: Status

    /// A stream of status snapshots: the current one first, then one whenever it changes, in
    /// the order they happened.
    ///
    /// Each call returns a new, independent stream; it ends when the consumer stops iterating.
    /// The default buffer keeps every snapshot; a UI that only renders the latest can pass
    /// `.bufferingNewest(1)`.
    public func statusUpdates(
        bufferingPolicy: AsyncStream<SyncStatus>.Continuation.BufferingPolicy = .unbounded
    ) async -> AsyncStream<SyncStatus> {
        if newest.facts == nil { _ = await facts() }
        // From here to the first status, nothing suspends: no status can come between the
        // subscription and the current one, and none computed from an older index follows it.
        let (stream, continuation) = subscribers.subscribe(bufferingPolicy: bufferingPolicy)
        if !publish() { continuation.yield(lastStatus ?? status()) }
        return stream
    }

    /// The status as of now.
    public func currentStatus() async -> SyncStatus {
        _ = await facts()
        return status()
    }

    /// Whether no sync is running or waiting.
    public var isIdle: Bool { worker == nil }

    /// Returns when no sync is running or waiting (at once when idle).
    ///
    /// With a test clock, drive time with `TestClock.runUntilIdle(_:)` instead, or this waits
    /// for sleeps that never end.
    public func waitUntilIdle() async {
        guard worker != nil else { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    /// Now, on the monotonic clock the engine's waits use and on the wall clock.
    private var moment: SyncMoment { SyncMoment(instant: clock.instant, date: clock.now) }

    /// The status from the machine and the newest facts read.
    private func status() -> SyncStatus {
        machine.status(facts: newest.facts ?? AccountFacts(), now: moment)
    }

    /// Tells every subscriber the status if it changed; returns whether it did.
    @discardableResult
    private func publish() -> Bool {
        let status = status()
        guard status != lastStatus else { return false }
        lastStatus = status
        subscribers.yield(status)
        return true
    }

    // MARK: The request stream

    /// The single worker: asks the machine what to do and does it, until it says idle.
    private func run() async {
        while true {
            let action = machine.nextAction(facts: await facts(), now: moment)
            publish()
            switch action {
            case .idle:
                worker = nil
                let waiters = idleWaiters
                idleWaiters.removeAll()
                for waiter in waiters { waiter.resume() }
                return
            case .wait(let deadline):
                await sleep(until: deadline)
            case .fetch(let fetch):
                await perform(fetch)
            }
        }
    }

    private func sleep(until deadline: ContinuousClock.Instant) async {
        let clock = self.clock
        let task = Task { try await clock.sleep(until: deadline) }
        sleeper = task
        _ = await task.result
        sleeper = nil
    }

    private func perform(_ fetch: SyncStateMachine.Fetch) async {
        let restrict = fetch.restrict
        let page: BookmarkPage
        do {
            switch fetch {
            case .total:
                let total = try await source.totalCount(of: restrict)
                machine.totalFetched(total, now: moment)
                return
            case .firstPage:
                page = try await source.firstPage(of: restrict)
            case .nextPage(let token, _):
                page = try await source.nextPage(token, of: restrict)
            }
        } catch {
            await failed(BookmarkSyncError(classifying: error))
            return
        }
        guard case .write(let work) = machine.pageArrived(facts: await facts(), now: moment) else {
            // The kill switch abandoned this request: its answer is discarded.
            return
        }
        // The page is decided in the store's turn, on the index as it is when written.
        let now = clock.now
        do {
            // What the page persists (when rows were seen, tombstones) is dated by the wall clock.
            let outcome = try await store.update { index in work.decide(page, index: index, now: now) }
            machine.pageWritten(outcome, now: moment)
        } catch {
            machine.writeFailed(
                BookmarkSyncError(.storage, "Writing a page of the \(restrict) list to the index failed.", underlying: error),
                restrict: restrict, now: moment
            )
        }
    }

    /// Tells the machine the request failed, and writes what it decided to keep (a pause, the
    /// learned pacing, a rejected cursor forgotten), so that a restart keeps it. What cannot be
    /// written still holds in this process.
    private func failed(_ error: BookmarkSyncError) async {
        let edits = machine.fetchFailed(error, now: moment)
        guard !edits.isEmpty else { return }
        _ = try? await store.update { index in (RecordEdit.changes(edits, in: index), ()) }
    }
}
