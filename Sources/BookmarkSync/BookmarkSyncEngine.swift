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
    var machine: SyncStateMachine
    /// The index this engine keeps current.
    public nonisolated let store: BookmarksIndexStore
    let source: any BookmarkSource
    let clock: any SyncClock
    /// The rate-limit policy this engine follows.
    public nonisolated let configuration: SyncConfiguration
    /// The account it syncs, as events name it.
    let account: AccountID?
    /// The budget of the address it shares with other accounts, if a host gave one.
    let egress: (any EgressBudget)?
    /// How much later than asked its waits may end, as a fraction of the wait, and the
    /// generator of that jitter.
    var jitter: (fraction: Double, random: SplitMix64)

    /// Where the work loop runs: in ``run()``'s task, or in a task of its own started by an intent.
    var lifecycle = Lifecycle()
    var sleeper: Task<Void, any Error>?
    var idleWaiters: [CheckedContinuation<Void, Never>] = []
    /// The app's bookmarks and unbookmarks waiting for the request stream.
    var writeQueue: [PendingWrite] = []
    /// Waiting for one list's sync to reach a milestone, or to end.
    var listWaiters: [Restrict: [ListWaiter]] = [:]
    var idleListWaiters: [Restrict: [CheckedContinuation<Void, Never>]] = [:]
    let subscribers = Subscribers<SyncStatus>()
    let eventSubscribers = Subscribers<SyncEvent>()
    /// A host's stream, which gets every event too.
    let hostEvents: Subscribers<SyncEvent>?
    /// Told when the work loop starts (`true`) and ends (`false`): a host counts its busy engines.
    let activity: (@Sendable (_ working: Bool) -> Void)?
    var lastStatus: SyncStatus?
    /// The kill switch given when the engine was made; `nil`: as saved with the index.
    let givenIndexingEnabled: Bool?
    /// The saved kill switch has been read (and the given one saved).
    var killSwitchRestored = false
    /// The end of the last cooldown of the shared address, so the status's cooldown it causes
    /// is not reported again as the account's.
    var egressCooldownUntil: Date?
    /// Each list's record, decoded once per change of its stored bytes.
    var records = SyncRecordCache()
    var newest = NewestFacts()

    /// Creates an engine that syncs `store` from `source`.
    ///
    /// - Parameters:
    ///   - store: the index to keep current; its metadata holds the sync times and the cursor.
    ///   - source: where the bookmark lists come from.
    ///   - clock: wall time and sleeping; inject `TestClock` in tests.
    ///   - configuration: the rate-limit policy.
    ///   - indexingEnabled: the kill switch (``setIndexingEnabled(_:)``) as the app knows it,
    ///     saved with the index; `nil` (the default) keeps what was saved last, on when nothing
    ///     was.
    public init(
        store: BookmarksIndexStore,
        source: some BookmarkSource,
        clock: some SyncClock = SystemSyncClock(),
        configuration: SyncConfiguration = SyncConfiguration(),
        indexingEnabled: Bool? = nil
    ) {
        self.init(store: store, source: source, clock: clock, configuration: configuration, account: nil, egress: nil, indexingEnabled: indexingEnabled)
    }

    /// An engine of a host: named `account` in its events (also given to `hostEvents`), taking
    /// each request's turn from `egress`, its waits stretched by up to `jitter` of their length.
    package init(
        store: BookmarksIndexStore, source: any BookmarkSource, clock: any SyncClock, configuration: SyncConfiguration,
        account: AccountID?, egress: (any EgressBudget)?, hostEvents: Subscribers<SyncEvent>? = nil,
        jitter: Double = 0, seed: UInt64 = 0, activity: (@Sendable (_ working: Bool) -> Void)? = nil,
        indexingEnabled: Bool? = nil
    ) {
        self.activity = activity
        self.givenIndexingEnabled = indexingEnabled
        self.store = store
        self.source = source
        self.clock = clock
        self.configuration = configuration
        self.machine = SyncStateMachine(configuration: configuration)
        if indexingEnabled == false { machine.setEnabled(false) }
        self.account = account
        self.egress = egress
        self.hostEvents = hostEvents
        self.jitter = (max(0, jitter), SplitMix64(seed: seed))
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

    func request(_ restrict: Restrict, _ intent: SyncStateMachine.Intent) async -> SyncRequestOutcome {
        let facts = await facts()
        guard lifecycle.acceptsWork else { return .stopped }
        let outcome = machine.request(restrict, intent: intent, facts: facts, now: moment)
        if machine.hasWork, !lifecycle.isWorking {
            startWorking()
        } else if outcome == .started {
            // The worker sleeps for a walk waiting for the day's budget: this sync goes now.
            sleeper?.cancel()
        }
        publish()
        return outcome
    }

    /// The lists as the index holds them now (or as a newer read already saw them).
    func facts() async -> AccountFacts {
        let index = await store.state
        let facts = newest.offer(records.facts(of: index))
        // The pacing and the day's spend an earlier process saved hold from the first read.
        machine.restoreBudget(from: facts, now: moment)
        if !killSwitchRestored {
            killSwitchRestored = true
            let savedOff = Restrict.allCases.contains { facts[$0].record.indexingSwitchedOff }
            if let given = givenIndexingEnabled {
                if given == savedOff { await saveKillSwitch(off: !given) }
            } else if savedOff {
                machine.setEnabled(false)
            }
        }
        return facts
    }

    /// Saves the kill switch in both lists' records; what cannot be written holds in this
    /// process.
    func saveKillSwitch(off: Bool) async {
        let edits = Restrict.allCases.map { restrict in
            var edit = RecordEdit(restrict)
            edit.indexingSwitchedOff = off
            return edit
        }
        _ = try? await store.update { index in (RecordEdit.changes(edits, in: index), ()) }
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
    ///
    /// The switch is saved with the index (in both lists' records): an engine made later, in
    /// this process or after a relaunch, starts with it, unless it is given one.
    public func setIndexingEnabled(_ enabled: Bool) async {
        let saved = await facts()
        machine.setEnabled(enabled)
        if !enabled { sleeper?.cancel() }
        if Restrict.allCases.contains(where: { saved[$0].record.indexingSwitchedOff == enabled }) {
            await saveKillSwitch(off: !enabled)
        }
        _ = await facts()
        publish()
    }

    /// Whether indexing is switched on.
    public var isIndexingEnabled: Bool { machine.isEnabled }

    // MARK: Status

    /// A stream of statuses: the current one first, then one whenever it changes, in
    /// the order they happened.
    ///
    /// Each call returns a new, independent stream; it ends when the consumer stops iterating.
    /// The default buffer keeps every status; a UI that only renders the latest can pass
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
    public var isIdle: Bool { !lifecycle.isWorking }

    /// Returns when no sync is running or waiting (at once when idle).
    ///
    /// With a test clock, drive time with `TestClock.runUntilIdle(_:)` instead, or this waits
    /// for sleeps that never end.
    public func waitUntilIdle() async {
        guard lifecycle.isWorking else { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    /// Now, on the monotonic clock the engine's waits use and on the wall clock.
    var moment: SyncMoment { SyncMoment(instant: clock.instant, date: clock.now) }

    /// The status from the machine and the newest facts read.
    func status() -> SyncStatus {
        machine.status(facts: newest.facts ?? AccountFacts(), now: moment)
    }

    /// Tells every subscriber the status if it changed; returns whether it did.
    @discardableResult
    func publish() -> Bool {
        settleWaiters()
        let status = status()
        guard status != lastStatus else { return false }
        let previous = lastStatus
        lastStatus = status
        subscribers.yield(status)
        for kind in SyncEvent.transitions(from: previous, to: status, egressCooldownUntil: egressCooldownUntil) { emit(kind) }
        return true
    }
}
