import BookmarkIndex
import Foundation

/// Every decision of the sync engine, as a pure value: which mode a sync runs in, what to fetch
/// next and when, what a fetched page writes, when a walk stops and what it prunes, when to back
/// off, cool down or pause, which list runs next, and what the status says.
///
/// It never reads a clock or the store: every event carries `now` and, where needed, the
/// ``AccountFacts`` it reads (each list's metadata and decoded record, not the index). It owns
/// its state: ``BookmarkSyncEngine`` performs the action each event returns and reports what
/// happened as the next event; a page's batch is decided in the store's turn by a
/// ``PageWork`` the machine hands over, and its outcome comes back as an event.
///
/// Each list is in one ``ListState`` (idle, waiting for the stream, running a ``Job``, paused,
/// failed): at most one list runs at a time, which the one request stream needs. The account's
/// pacing is one ``RequestBudget``, its day's spend one ``DailyRequestLedger``. The policies
/// live in files of their own: which mode a sync runs in (`+Plan`), the delta (`+Delta`), the
/// full walk (`+FullWalk`), answers (`+Results`), failures (`+Failures`), the day's budget
/// (`+DailyBudget`) and the status (`+Status`); the app's own mutations are
/// ``InAppRecordings``.
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
        /// Perform this request, then report ``SyncStateMachine/pageArrived(facts:now:)``,
        /// ``SyncStateMachine/totalFetched(_:now:)`` or ``SyncStateMachine/fetchFailed(_:now:)``.
        case fetch(Fetch)
        /// Send the app's next bookmark or unbookmark, then report
        /// ``SyncStateMachine/writeAnswered(_:now:)``.
        case write
        /// Sleep until this instant of the monotonic clock, then ask again.
        case wait(until: ContinuousClock.Instant)
        /// Nothing to do until the next user intent.
        case idle
    }

    /// Where a running job's next request stands.
    enum Step: Sendable, Hashable {
        /// The next request goes out as soon as the budget allows.
        case ready
        /// A request is out.
        case inFlight
        /// The answer arrived; its page is being written.
        case writing
        /// A request is out or its page is being written, but the kill switch was flipped: an
        /// answer not yet being written is discarded, and the job ends.
        case abandoned
        /// After a server or network failure, the next attempt is at `until`.
        case backingOff(until: ContinuousClock.Instant, attempt: Int)
        /// After a rate-limit answer, the account waits until `until`.
        case coolingDown(until: ContinuousClock.Instant)
    }

    /// A sync of one list, from its first request to its last.
    struct Job: Sendable {
        var restrict: Restrict
        var intent: Intent
        var mode: SyncMode = .delta
        var step: Step = .ready
        var next: Fetch?
        var needsTotal = false
        var pagesFetched = 0
        /// Full walk: the cursor as of the last page.
        var walk: FullWalkPosition?
        /// Delta: where it stands.
        var delta: DeltaCursor?
        var latest: BookmarkedIllustSnapshot?
        /// When the job started fetching.
        var startedAt: Date?
        /// A full walk resumed from a saved cursor that has not yet fetched a page.
        var resumingCursor = false
        /// The job was stopped with a request out (``SyncStateMachine/stop(_:)``): it ends once
        /// that request's answer has been handled (its page written).
        var stopsAfterRequest = false

        init(restrict: Restrict, intent: Intent) {
            self.restrict = restrict
            self.intent = intent
        }
    }

    /// What one list is doing.
    enum ListState: Sendable {
        /// Nothing scheduled.
        case idle
        /// Scheduled behind the list that holds the stream.
        case waiting(Job)
        /// Holds the request stream; `then` is a manual refresh asked for during a delta, which
        /// runs as a full walk after it.
        case running(Job, then: Intent?)
        /// Refuses syncs until `until`.
        case paused(until: Date, reason: BookmarkSyncError)
        /// The last sync stopped with an error that retrying would not fix.
        case failed(BookmarkSyncError)
    }

    /// What a list remembers whatever its state.
    struct ListMemory: Sendable {
        var consecutiveFailures = 0
        /// The list's total as Pixiv told it during this process.
        var knownTotal: KnownTotal?
        /// The saved cursor failed in a way retrying will not fix (another host, a bad token):
        /// the next full walk starts over instead of resuming it.
        var cursorRejected = false
        /// Answers since the last success that were a refreshed token's.
        var consecutiveTokenRefreshes = 0
        /// A walk set aside until the day's budget allows it (`+DailyBudget`).
        var parkedWalk: Job?
    }

    let configuration: SyncConfiguration
    private(set) var isEnabled = true
    var lists: [Restrict: ListState] = [.public: .idle, .private: .idle]
    var memory: [Restrict: ListMemory] = [.public: ListMemory(), .private: ListMemory()]
    /// The order in which waiting lists were scheduled.
    var waitingOrder: [Restrict] = []
    var budget: RequestBudget
    /// The account's requests of the last day, against ``SyncConfiguration/dailyRequestLimit``.
    var daily = DailyRequestLedger()
    /// The account's budget has been restored from the index.
    var budgetRestored = false
    /// The lists whose last job reached its end (a delta at known ground, a walk through its
    /// last page), rather than being stopped, switched off or set aside.
    var completedLastJob: Set<Restrict> = []
    /// The app's bookmarks and unbookmarks waiting to be sent (`+Writes`).
    var queuedWrites = 0
    var writeInFlight = false

    init(configuration: SyncConfiguration = SyncConfiguration()) {
        self.configuration = configuration
        budget = RequestBudget(configuration: configuration)
    }

    /// The list that holds the request stream, and its job.
    var running: (restrict: Restrict, job: Job)? {
        for restrict in Restrict.allCases {
            if case .running(let job, _)? = lists[restrict] { return (restrict, job) }
        }
        return nil
    }

    /// Whether a sync is running or waiting: `false` means only a user intent starts work.
    var hasWork: Bool { running != nil || !waitingOrder.isEmpty || hasParkedWalk || queuedWrites > 0 }

    /// Whether `restrict`'s sync is running or queued (a walk parked for the day's budget
    /// counts only with `parked`).
    func isActive(_ restrict: Restrict, parked: Bool = false) -> Bool {
        switch lists[restrict] {
        case .running?, .waiting?: return true
        default: return parked && memory[restrict]?.parkedWalk != nil
        }
    }

    mutating func replaceRunningJob(_ job: Job) {
        guard case .running(_, let then)? = lists[job.restrict] else { return }
        lists[job.restrict] = .running(job, then: then)
    }

    // MARK: User intent

    /// A user intent to sync `restrict`. Decides whether it runs, queues, or is refused.
    mutating func request(_ restrict: Restrict, intent: Intent, facts: AccountFacts, now: SyncMoment) -> SyncRequestOutcome {
        guard isEnabled else { return .disabled }
        restoreBudget(from: facts, now: now)
        // A pause recorded in the index (by this process or one before it) holds too.
        if case .idle? = lists[restrict], let pause = facts[restrict].record.pause, now.date < pause.until {
            lists[restrict] = .paused(until: pause.until, reason: BookmarkSyncError(.named(pause.code), pause.message))
        }
        switch lists[restrict] ?? .idle {
        case .paused(let until, _):
            if now.date < until { return .paused(until: until) }
            lists[restrict] = .idle
            memory[restrict]?.consecutiveFailures = 0
        case .running(let job, let then) where job.step == .abandoned:
            // The kill switch abandoned this sync's request in flight: this intent runs once
            // that request has returned.
            lists[restrict] = .running(job, then: then == .manual ? .manual : intent)
            return .queued
        case .running(let job, let then):
            // A refresh asked for during a delta runs as a full walk after it; anything else
            // is what is already running.
            guard intent == .manual, job.mode == .delta, then == nil else {
                return .alreadyScheduled
            }
            // A delta does not change the last full sync, so the refresh's cooldown is the
            // same now as when it would start.
            if case .tooSoon(let until) = plan(.manual, list: facts[restrict], now: now, restrict: restrict) {
                return .recentlySynced(until: until)
            }
            lists[restrict] = .running(job, then: .manual)
            return .queued
        case .waiting(var job):
            if intent == .manual {
                job.intent = .manual
                lists[restrict] = .waiting(job)
            }
            return .alreadyScheduled
        case .idle, .failed:
            break
        }
        let planned = plan(intent, list: facts[restrict], now: now, restrict: restrict)
        if case .tooSoon(let until) = planned {
            return .recentlySynced(until: until)
        }
        // A walk parked for the day's budget goes on by itself; only a delta runs meanwhile.
        if memory[restrict]?.parkedWalk != nil, planned != .run(.delta) { return .alreadyScheduled }
        if planned == .run(.delta), memory[restrict]?.parkedWalk == nil, facts[restrict].record.fullWalkPosition != nil {
            // A walk an earlier process left waiting for the day's budget: parked here, it
            // resumes by itself once the day allows, after this delta.
            var walk = Job(restrict: restrict, intent: .auto)
            walk.mode = .full
            startWalk(&walk, record: facts[restrict].record, list: facts[restrict], now: now)
            memory[restrict]?.parkedWalk = walk
        }
        let job = Job(restrict: restrict, intent: intent)
        guard running == nil, waitingOrder.isEmpty else {
            lists[restrict] = .waiting(job)
            waitingOrder.append(restrict)
            return .queued
        }
        guard let started = start(job, facts: facts, now: now) else {
            lists[restrict] = .idle
            return .alreadyScheduled
        }
        lists[restrict] = .running(started, then: nil)
        return .started
    }

    // MARK: Driving the request stream

    /// What to do next: start the next waiting sync, wait out a backoff, a cooldown or the
    /// budget, or fetch.
    mutating func nextAction(facts: AccountFacts, now: SyncMoment) -> Action {
        // The app's own writes go first, switched off or not: a tap is never behind a page.
        if let write = nextWrite(now: now) { return write }
        guard isEnabled else {
            for restrict in Restrict.allCases {
                switch lists[restrict] {
                case .running?, .waiting?: lists[restrict] = .idle
                default: break
                }
            }
            waitingOrder.removeAll()
            for restrict in Restrict.allCases { memory[restrict]?.parkedWalk = nil }
            return .idle
        }
        restoreBudget(from: facts, now: now)
        while running == nil, !waitingOrder.isEmpty {
            let restrict = waitingOrder.removeFirst()
            guard case .waiting(let job)? = lists[restrict] else { continue }
            if let started = start(job, facts: facts, now: now) {
                lists[restrict] = .running(started, then: nil)
            } else {
                lists[restrict] = .idle
            }
        }
        if running == nil, let resumeAt = resumeParkedWalk(now: now) { return .wait(until: now.instant(of: resumeAt)) }
        guard var job = running?.job else { return .idle }
        switch job.step {
        case .inFlight, .writing, .abandoned:
            preconditionFailure("nextAction while a request is in flight or its page is being written")
        case .backingOff(let until, _), .coolingDown(let until):
            if now.instant < until { return .wait(until: until) }
        case .ready:
            break
        }
        let start = budget.earliestStart(now: now.instant)
        if now.instant < start {
            job.step = .ready
            replaceRunningJob(job)
            return .wait(until: start)
        }
        let dayStart = dailyStart(for: job.mode, now: now)
        if now.date < dayStart {
            guard job.mode == .full else {
                job.step = .ready
                replaceRunningJob(job)
                return .wait(until: now.instant(of: dayStart))
            }
            // The walk waits for the day's budget without holding the stream.
            park(job)
            return nextAction(facts: facts, now: now)
        }
        let fetch: Fetch = job.needsTotal ? .total(job.restrict) : (job.next ?? .firstPage(job.restrict))
        job.step = .inFlight
        budget.requestStarted(now: now.instant)
        daily.record(at: now.date)
        replaceRunningJob(job)
        return .fetch(fetch)
    }

    /// Sets up `queued` to run now: its mode, where it starts, and what it resumes; `nil` when
    /// it cannot run now (paused, or synced too recently meanwhile).
    private mutating func start(_ queued: Job, facts: AccountFacts, now: SyncMoment) -> Job? {
        let list = facts[queued.restrict]
        var record = list.record
        if memory[queued.restrict]?.cursorRejected == true {
            record.fullWalkPosition = nil
            record.deltaCursor = nil
        }
        if let pause = record.pause, now.date < pause.until { return nil }
        guard case .run(let mode) = plan(queued.intent, list: list, now: now, restrict: queued.restrict) else { return nil }
        if mode == .full, let parked = memory[queued.restrict]?.parkedWalk {
            // The day allows walks again: the parked one goes on, rather than a second.
            memory[queued.restrict]?.parkedWalk = nil
            return parked
        }
        var job = queued
        job.mode = mode
        job.startedAt = now.date
        switch mode {
        case .delta: startDelta(&job, record: record, list: list, now: now)
        case .full: startWalk(&job, record: record, list: list, now: now)
        }
        return job
    }

    // MARK: Kill switch

    /// Switches indexing on or off. Off: the queue is dropped and a running sync stops (the
    /// answer to a request in flight is discarded; a walk's saved cursor stays for later).
    mutating func setEnabled(_ enabled: Bool) {
        isEnabled = enabled
        guard !enabled else { return }
        waitingOrder.removeAll()
        for restrict in Restrict.allCases {
            memory[restrict]?.parkedWalk = nil
            switch lists[restrict] {
            case .waiting?:
                lists[restrict] = .idle
            case .running(var job, _)?:
                if job.step == .inFlight || job.step == .writing {
                    job.step = .abandoned
                    lists[restrict] = .running(job, then: nil)
                } else {
                    lists[restrict] = .idle
                }
            default:
                break
            }
        }
    }
}
